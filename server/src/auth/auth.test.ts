import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../clock.ts";
import {
  agreementOf,
  databaseText,
  lastSmsCode,
  randomPhone,
  readOutbox,
  signIn,
  startTestServer,
  type TestServer,
} from "../../testing/index.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const DAY = 86_400_000;

async function sendCode(s: TestServer, phone: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return s.json("/auth/sms/code", { method: "POST", body: { phone, ...agreementOf(s), ...extra }, headers });
}

async function login(s: TestServer, phone: string, challenge_id: string, code: string, headers: Record<string, string> = {}) {
  return s.json("/auth/login", { method: "POST", body: { phone, challenge_id, code, ...agreementOf(s) }, headers });
}

async function countRows(s: TestServer, table: "sms_challenges" | "sessions" | "users") {
  const { n } = await s.deps.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(n);
}

/** A wrong code that differs from the right one. */
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("phone numbers", () => {
  it.each([["12345678901"], ["1381234567"], ["+85212345678"], ["+86 138-1234-567x"], ["138123456789"], [""]])(
    "400 INVALID_PHONE for %j, and no SMS sent nor challenge stored",
    async (phone) => {
      const outbox = readOutbox(server).length;
      const challenges = await countRows(server, "sms_challenges");
      const { status, body } = await sendCode(server, phone);
      expect(status).toBe(400);
      expect(body.code).toBe("INVALID_PHONE");
      expect(readOutbox(server).length).toBe(outbox);
      expect(await countRows(server, "sms_challenges")).toBe(challenges);
    },
  );

  it("accepts 11 digits and the +86 form (spaces, hyphens) as the same account, stored in E.164", async () => {
    const digits = randomPhone();
    const first = await signIn(server, digits);
    expect(first.created).toBe(true);
    expect(first.phone).toBe(`+86${digits}`);
    server.clock.advance(61_000);
    const spaced = `+86 ${digits.slice(0, 3)}-${digits.slice(3, 7)} ${digits.slice(7)}`;
    const second = await signIn(server, spaced);
    expect(second.created).toBe(false);
    expect(second.userId).toBe(first.userId);
    const row = await server.deps.db.selectFrom("users").select("phone").where("id", "=", first.userId).executeTakeFirstOrThrow();
    expect(row.phone).toBe(`+86${digits}`);
  });
});

describe("agreement", () => {
  it.each([
    ["agreed false", { agreed: false }, "AGREEMENT_REQUIRED"],
    ["agreed missing", { agreed: undefined }, "INVALID_REQUEST"],
    ["stale terms", { terms_version: "2025-01-01" }, "AGREEMENT_OUTDATED"],
    ["stale privacy", { privacy_version: "2025-01-01" }, "AGREEMENT_OUTDATED"],
  ])("400 for %s: no SMS, no challenge", async (_label, extra, code) => {
    const outbox = readOutbox(server).length;
    const challenges = await countRows(server, "sms_challenges");
    const { status, body } = await sendCode(server, randomPhone(), extra);
    expect(status).toBe(400);
    expect(body.code).toBe(code);
    expect(readOutbox(server).length).toBe(outbox);
    expect(await countRows(server, "sms_challenges")).toBe(challenges);
  });

  it("login requires the current agreement too, and records accepted versions with ip and user agent", async () => {
    const phone = randomPhone();
    const sent = await sendCode(server, phone);
    const code = lastSmsCode(server, phone);
    const stale = await server.json("/auth/login", { method: "POST", body: { phone, challenge_id: sent.body.data.challenge_id, code, ...agreementOf(server), privacy_version: "2020-01-01" } });
    expect(stale.status).toBe(400);
    expect(stale.body.code).toBe("AGREEMENT_OUTDATED");
    const ok = await login(server, phone, sent.body.data.challenge_id, code, { "user-agent": "ir21-test/1.0" });
    expect(ok.status).toBe(200);
    const rows = await server.deps.db.selectFrom("user_agreements").selectAll().where("user_id", "=", ok.body.data.user.id).orderBy("document").execute();
    expect(rows).toEqual([
      { user_id: ok.body.data.user.id, document: "privacy", version: "2026-09-08", accepted_at: server.clock.now().getTime(), ip: "127.0.0.1", user_agent: "ir21-test/1.0" },
      { user_id: ok.body.data.user.id, document: "terms", version: "2026-09-08", accepted_at: server.clock.now().getTime(), ip: "127.0.0.1", user_agent: "ir21-test/1.0" },
    ]);
  });
});

describe("challenge", () => {
  it("sends a 6-digit code and answers {challenge_id, expires_in: 300, retry_after: 60}; only an HMAC is stored", async () => {
    const phone = randomPhone();
    const { status, headers, body } = await sendCode(server, phone);
    expect(status).toBe(200);
    expect(headers.get("cache-control")).toBe("no-store");
    expect(body.data).toEqual({ challenge_id: expect.stringMatching(/^chl_/), expires_in: 300, retry_after: 60 });
    const code = lastSmsCode(server, phone);
    expect(code).toMatch(/^\d{6}$/);
    const row = await server.deps.db.selectFrom("sms_challenges").selectAll().where("id", "=", body.data.challenge_id).executeTakeFirstOrThrow();
    expect(row.code_mac).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(code);
    expect(row.expires_at - row.created_at).toBe(300_000);
  });

  it("429 with Retry-After for a second send within 60 s; after that the new code supersedes the old", async () => {
    const phone = randomPhone();
    const first = await sendCode(server, phone);
    const firstCode = lastSmsCode(server, phone);
    server.clock.advance(20_000);
    const again = await sendCode(server, phone);
    expect(again.status).toBe(429);
    expect(again.body.code).toBe("SMS_SEND_LIMITED");
    expect(again.headers.get("retry-after")).toBe("40");
    server.clock.advance(40_000);
    const second = await sendCode(server, phone);
    expect(second.status).toBe(200);
    const superseded = await login(server, phone, first.body.data.challenge_id, firstCode);
    expect(superseded.status).toBe(400);
    expect(superseded.body.code).toBe("CHALLENGE_SUPERSEDED");
    const ok = await login(server, phone, second.body.data.challenge_id, lastSmsCode(server, phone));
    expect(ok.status).toBe(200);
  });

  it("per phone: 5 an hour and 10 a day (defaults)", async () => {
    const phone = randomPhone();
    for (let i = 0; i < 5; i++) {
      expect((await sendCode(server, phone)).status).toBe(200);
      server.clock.advance(60_000);
    }
    const sixth = await sendCode(server, phone);
    expect(sixth.status).toBe(429);
    expect(sixth.body.message).toMatch(/this phone this hour/);
    expect(Number(sixth.headers.get("retry-after"))).toBe(3600 - 5 * 60);
    server.clock.advance(3600_000);
    for (let i = 0; i < 5; i++) {
      expect((await sendCode(server, phone)).status).toBe(200);
      server.clock.advance(60_000);
    }
    server.clock.advance(3600_000);
    const eleventh = await sendCode(server, phone);
    expect(eleventh.status).toBe(429);
    expect(eleventh.body.message).toMatch(/this phone today/);
    expect(Number(eleventh.headers.get("retry-after"))).toBe(86_400 - 2 * 3600 - 10 * 60);
  });

  it("expires after 300 s", async () => {
    const phone = randomPhone();
    const sent = await sendCode(server, phone);
    server.clock.advance(300_000);
    const late = await login(server, phone, sent.body.data.challenge_id, lastSmsCode(server, phone));
    expect(late.status).toBe(400);
    expect(late.body.code).toBe("CHALLENGE_EXPIRED");
  });

  it("is single use", async () => {
    const phone = randomPhone();
    const sent = await sendCode(server, phone);
    const code = lastSmsCode(server, phone);
    expect((await login(server, phone, sent.body.data.challenge_id, code)).status).toBe(200);
    const replay = await login(server, phone, sent.body.data.challenge_id, code);
    expect(replay.status).toBe(400);
    expect(replay.body.code).toBe("CHALLENGE_CONSUMED");
  });

  it("refuses another phone's challenge and an unknown challenge, each with its own code", async () => {
    const phone = randomPhone();
    const sent = await sendCode(server, phone);
    const other = await login(server, randomPhone(), sent.body.data.challenge_id, lastSmsCode(server, phone));
    expect(other.body.code).toBe("CHALLENGE_PHONE_MISMATCH");
    const unknown = await login(server, phone, "chl_0000000000000000000000000", lastSmsCode(server, phone));
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("CHALLENGE_NOT_FOUND");
    // Neither counted as an attempt: the right code still works.
    expect((await login(server, phone, sent.body.data.challenge_id, lastSmsCode(server, phone))).status).toBe(200);
  });
});

describe("verification", () => {
  it("after 5 wrong codes the challenge is locked, even for the right code", async () => {
    const phone = randomPhone();
    const sent = await sendCode(server, phone);
    const code = lastSmsCode(server, phone);
    for (let i = 1; i <= 5; i++) {
      const { status, body } = await login(server, phone, sent.body.data.challenge_id, wrong(code));
      expect(status).toBe(400);
      expect(body.code).toBe(i < 5 ? "CODE_INCORRECT" : "CODE_ATTEMPTS_EXHAUSTED");
      if (i < 5) expect(body.message).toContain(`${5 - i} attempt`);
    }
    const right = await login(server, phone, sent.body.data.challenge_id, code);
    expect(right.status).toBe(400);
    expect(right.body.code).toBe("CODE_ATTEMPTS_EXHAUSTED");
  });

  it("20 concurrent logins with the right code yield exactly one session", async () => {
    const phone = randomPhone();
    const sent = await sendCode(server, phone);
    const code = lastSmsCode(server, phone);
    const sessionsBefore = await countRows(server, "sessions");
    const results = await Promise.all(Array.from({ length: 20 }, () => login(server, phone, sent.body.data.challenge_id, code)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) expect(["CHALLENGE_CONSUMED", "CODE_ATTEMPTS_EXHAUSTED"]).toContain(r.body.code);
    expect(await countRows(server, "sessions")).toBe(sessionsBefore + 1);
  });

  it("20 concurrent wrong codes count exactly 5 attempts", async () => {
    const phone = randomPhone();
    const sent = await sendCode(server, phone);
    const code = lastSmsCode(server, phone);
    const results = await Promise.all(Array.from({ length: 20 }, () => login(server, phone, sent.body.data.challenge_id, wrong(code))));
    expect(results.every((r) => r.status === 400)).toBe(true);
    const row = await server.deps.db.selectFrom("sms_challenges").select("attempts").where("id", "=", sent.body.data.challenge_id).executeTakeFirstOrThrow();
    expect(row.attempts).toBe(5);
    expect((await login(server, phone, sent.body.data.challenge_id, code)).body.code).toBe("CODE_ATTEMPTS_EXHAUSTED");
  });
});

describe("sessions", () => {
  it("login registers (created: true), then logs in (created: false), and sets an HttpOnly SameSite=Lax cookie", async () => {
    const phone = randomPhone();
    const sent = await sendCode(server, phone);
    const response = await server.fetch("/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ phone, challenge_id: sent.body.data.challenge_id, code: lastSmsCode(server, phone), ...agreementOf(server) }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = await response.json();
    expect(body.data).toEqual({
      created: true,
      user: { id: expect.stringMatching(/^usr_/), email: null, phone: `+86${phone}`, name: null, plan: "free", created_at: server.clock.now().toISOString() },
    });
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith("ir21_session="))!;
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/; Secure/i);
    expect(cookie).not.toMatch(/Domain=/i);
    // The cookie lives as long as the absolute lifetime; the server enforces the idle one.
    const expires = new Date(/Expires=([^;]+)/i.exec(cookie)![1]!).getTime();
    expect(Math.abs(expires - (server.clock.now().getTime() + 90 * DAY))).toBeLessThan(1000);

    server.clock.advance(60_000);
    const again = await signIn(server, phone);
    expect(again.created).toBe(false);
    expect(again.userId).toBe(body.data.user.id);
  });

  it("GET /auth/me: {user} with the cookie; 401 without, tampered, or unknown", async () => {
    const alice = await signIn(server);
    const me = await server.json("/auth/me", { headers: alice.headers });
    expect(me.status).toBe(200);
    expect(me.body.data).toEqual({ user: alice.user });

    // Tampered in the middle of the secret, to a letter it did not have: a change at the end can land in
    // base64url's unused bits, or write back the letters that were there.
    const at = alice.cookie.length - 10;
    const tampered = `${alice.cookie.slice(0, at)}${alice.cookie[at] === "x" ? "y" : "x"}${alice.cookie.slice(at + 1)}`;
    for (const cookie of [undefined, tampered, "ir21_session=ses_0000000000000000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "ir21_session=garbage"]) {
      const { status, body } = await server.json("/auth/me", { headers: cookie ? { cookie } : {} });
      expect(status).toBe(401);
      expect(body.code).toBe("UNAUTHORIZED");
      expect(Object.keys(body).sort()).toEqual(["code", "message", "request_id"]);
    }
  });

  it("an API key alone cannot call /auth/me (403)", async () => {
    const { status, body } = await server.json("/auth/me", { headers: { "x-api-key": `ir21_${"a".repeat(43)}` } });
    expect(status).toBe(403);
    expect(body.code).toBe("FORBIDDEN");
  });

  it("logout revokes the session and clears the cookie; the old cookie is then 401", async () => {
    const alice = await signIn(server);
    const response = await server.fetch("/auth/logout", { method: "POST", headers: alice.headers });
    expect(response.status).toBe(200);
    expect((await response.json()).data).toEqual({ logged_out: true });
    const cleared = response.headers.getSetCookie().find((c) => c.startsWith("ir21_session="))!;
    expect(cleared).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
    expect((await server.json("/auth/me", { headers: alice.headers })).status).toBe(401);
    const row = await server.deps.db.selectFrom("sessions").select("revoked_at").where("id", "=", alice.sessionId).executeTakeFirstOrThrow();
    expect(row.revoked_at).toBe(server.clock.now().getTime());
    // Logging out again (or without a session) is harmless.
    expect((await server.json("/auth/logout", { method: "POST", headers: alice.headers })).body.data).toEqual({ logged_out: true });
  });

  it("login rotates an existing session: the old cookie is revoked and a new id issued", async () => {
    const alice = await signIn(server);
    server.clock.advance(61_000);
    const sent = await sendCode(server, alice.phone);
    const response = await server.fetch("/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json", cookie: alice.cookie },
      body: JSON.stringify({ phone: alice.phone, challenge_id: sent.body.data.challenge_id, code: lastSmsCode(server, alice.phone), ...agreementOf(server) }),
    });
    expect(response.status).toBe(200);
    const fresh = response.headers.getSetCookie().find((c) => c.startsWith("ir21_session="))!.split(";")[0]!;
    expect(fresh).not.toBe(alice.cookie);
    expect((await server.json("/auth/me", { headers: alice.headers })).status).toBe(401);
    expect((await server.json("/auth/me", { headers: { cookie: fresh } })).status).toBe(200);
  });
});

describe("session lifetimes", () => {
  let timed: TestServer;
  beforeAll(async () => {
    timed = await startTestServer({ clock: new ManualClock("2026-01-01T00:00:00Z") });
  });
  afterAll(() => timed.close());

  it("idle expiry slides with use (written at most hourly); absolute expiry ends it regardless", async () => {
    const alice = await signIn(timed);
    const lastSeen = async () => (await timed.deps.db.selectFrom("sessions").select("last_seen_at").where("id", "=", alice.sessionId).executeTakeFirstOrThrow()).last_seen_at;
    const start = await lastSeen();
    timed.clock.advance(30 * 60_000);
    expect((await timed.json("/auth/me", { headers: alice.headers })).status).toBe(200);
    expect(await lastSeen()).toBe(start); // within the hour: no write
    for (let day = 0; day < 4; day++) {
      timed.clock.advance(20 * DAY);
      expect((await timed.json("/auth/me", { headers: alice.headers })).status).toBe(200);
    }
    expect(await lastSeen()).toBe(timed.clock.now().getTime());
    // 80 days in; used every 20 days, but the absolute lifetime is 90 days.
    timed.clock.advance(10 * DAY);
    expect((await timed.json("/auth/me", { headers: alice.headers })).status).toBe(401);
  });

  it("a session unused for 30 days expires", async () => {
    const bob = await signIn(timed);
    timed.clock.advance(30 * DAY - 1000);
    expect((await timed.json("/auth/me", { headers: bob.headers })).status).toBe(200);
    timed.clock.advance(30 * DAY);
    expect((await timed.json("/auth/me", { headers: bob.headers })).status).toBe(401);
  });
});

describe("send caps", () => {
  let capped: TestServer;
  beforeAll(async () => {
    capped = await startTestServer({ env: { SMS_IP_HOURLY_LIMIT: "3", SMS_IP_DAILY_LIMIT: "1000", SMS_GLOBAL_DAILY_LIMIT: "4", SMS_PHONE_HOURLY_LIMIT: "5", SMS_PHONE_DAILY_LIMIT: "10" } });
  });
  afterAll(() => capped.close());

  it("per address per hour, then the global daily cap", async () => {
    for (let i = 0; i < 3; i++) expect((await sendCode(capped, randomPhone())).status).toBe(200);
    const ip = await sendCode(capped, randomPhone());
    expect(ip.status).toBe(429);
    expect(ip.body.code).toBe("SMS_SEND_LIMITED");
    expect(ip.body.message).toMatch(/address/);
    expect(Number(ip.headers.get("retry-after"))).toBe(3600);
    capped.clock.advance(3_600_000);
    expect((await sendCode(capped, randomPhone())).status).toBe(200);
    const global = await sendCode(capped, randomPhone());
    expect(global.status).toBe(429);
    expect(global.body.message).toMatch(/service/);
    expect(Number(global.headers.get("retry-after"))).toBe(23 * 3600);
  });
});

describe("brute-force limits on login", () => {
  const expectLocked = (res: { status: number; headers: Headers; body: any }, code: string, retryAfter?: number) => {
    expect(res.status).toBe(429);
    expect(Object.keys(res.body).sort()).toEqual(["code", "message", "request_id"]);
    expect(res.body.code).toBe(code);
    if (retryAfter !== undefined) expect(Number(res.headers.get("retry-after"))).toBe(retryAfter);
  };

  describe("per phone, across challenges (defaults: 10 wrong codes an hour)", () => {
    let locking: TestServer;
    beforeAll(async () => {
      locking = await startTestServer();
    });
    afterAll(() => locking.close());

    /** Sends a code to `phone` and enters `n` wrong ones; returns the challenge and its right code. */
    async function wrongCodes(phone: string, n: number) {
      const sent = await sendCode(locking, phone);
      expect(sent.status).toBe(200);
      const code = lastSmsCode(locking, phone);
      for (let i = 0; i < n; i++) expect((await login(locking, phone, sent.body.data.challenge_id, wrong(code))).status).toBe(400);
      return { challengeId: sent.body.data.challenge_id as string, code };
    }

    it("10 wrong codes over two challenges lock sign-in (and sending) for the phone until they leave the hour", async () => {
      const phone = randomPhone();
      const t0 = locking.clock.now().getTime();
      await wrongCodes(phone, 5);
      locking.clock.advance(61_000);
      const second = await wrongCodes(phone, 5);
      locking.clock.advance(61_000);
      // The oldest counted attempts leave the window 3600 s after their challenge: 3478 s from now.
      const locked = await login(locking, phone, second.challengeId, second.code);
      expectLocked(locked, "SIGN_IN_LOCKED", 3478);
      expect(locked.body.message).toMatch(/wrong codes/);
      expectLocked(await login(locking, `+86${phone}`, "chl_0000000000000000000000000", "000000"), "SIGN_IN_LOCKED", 3478);
      // No SMS is spent on a code that could not be used.
      const outbox = readOutbox(locking).length;
      expectLocked(await sendCode(locking, phone), "SIGN_IN_LOCKED", 3478);
      expect(readOutbox(locking).length).toBe(outbox);
      // Refused attempts are not counted: the second challenge still has its five.
      const row = await locking.deps.db.selectFrom("sms_challenges").select("attempts").where("id", "=", second.challengeId).executeTakeFirstOrThrow();
      expect(row.attempts).toBe(5);
      // Another phone is not affected.
      expect((await signIn(locking)).created).toBe(true);

      locking.clock.set(new Date(t0 + 3_600_000 - 1000));
      expectLocked(await sendCode(locking, phone), "SIGN_IN_LOCKED", 1);
      locking.clock.set(new Date(t0 + 3_600_000));
      // Five wrong codes are left in the window, under the limit: sign-in works again.
      const sent = await sendCode(locking, phone);
      expect(sent.status).toBe(200);
      expect((await login(locking, phone, sent.body.data.challenge_id, lastSmsCode(locking, phone))).status).toBe(200);
    });

    it("a successful sign-in resets the count", async () => {
      const phone = randomPhone();
      await wrongCodes(phone, 5);
      locking.clock.advance(61_000);
      const second = await wrongCodes(phone, 4);
      expect((await login(locking, phone, second.challengeId, second.code)).status).toBe(200);
      // Nine more wrong codes after it are still answered as wrong codes, and the right one works.
      locking.clock.advance(61_000);
      await wrongCodes(phone, 5);
      locking.clock.advance(61_000);
      const fourth = await wrongCodes(phone, 4);
      expect((await login(locking, phone, fourth.challengeId, fourth.code)).status).toBe(200);
    });

    it("the limit and window are configurable", async () => {
      const strict = await startTestServer({ env: { LOGIN_PHONE_FAILURE_LIMIT: "3", LOGIN_PHONE_FAILURE_WINDOW_SECONDS: "600" } });
      try {
        const phone = randomPhone();
        const sent = await sendCode(strict, phone);
        const code = lastSmsCode(strict, phone);
        for (let i = 0; i < 3; i++) expect((await login(strict, phone, sent.body.data.challenge_id, wrong(code))).body.code).toBe("CODE_INCORRECT");
        expectLocked(await login(strict, phone, sent.body.data.challenge_id, code), "SIGN_IN_LOCKED", 600);
        strict.clock.advance(600_000);
        // The challenge itself has expired meanwhile; the lock no longer answers.
        expect((await login(strict, phone, sent.body.data.challenge_id, code)).body.code).toBe("CHALLENGE_EXPIRED");
      } finally {
        await strict.close();
      }
    });
  });

  describe("per client address", () => {
    let limited: TestServer;
    beforeAll(async () => {
      limited = await startTestServer({ env: { LOGIN_IP_LIMIT: "3", LOGIN_IP_WINDOW_SECONDS: "600", TRUST_PROXY: "true" } });
    });
    afterAll(() => limited.close());

    it("every attempt counts (wrong, malformed, right); then 429 RATE_LIMITED with Retry-After, over REST and tRPC", async () => {
      const from = { "x-forwarded-for": "203.0.113.7" };
      const phone = randomPhone();
      const sent = await sendCode(limited, phone, {}, from);
      const code = lastSmsCode(limited, phone);
      expect((await login(limited, phone, sent.body.data.challenge_id, wrong(code), from)).body.code).toBe("CODE_INCORRECT");
      expect((await limited.json("/auth/login", { method: "POST", body: { phone }, headers: from })).status).toBe(400);
      expect((await login(limited, phone, sent.body.data.challenge_id, code, from)).status).toBe(200);
      const refused = await login(limited, randomPhone(), sent.body.data.challenge_id, code, from);
      expectLocked(refused, "RATE_LIMITED");
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(600);
      expect(refused.headers.get("ratelimit-policy")).toBe('"login";q=3;w=600');
      expect(refused.body.message).toMatch(/sign-in attempts/);
      const overTrpc = await limited.json("/trpc/auth.login", { method: "POST", body: { phone, challenge_id: sent.body.data.challenge_id, code, ...agreementOf(limited) }, headers: from });
      expect(overTrpc.status).toBe(429);
      expect(overTrpc.headers.get("retry-after")).not.toBeNull();
      // Another address has its own window.
      const other = { "x-forwarded-for": "203.0.113.8" };
      expect((await login(limited, phone, sent.body.data.challenge_id, code, other)).body.code).toBe("CHALLENGE_CONSUMED");
    });
  });
});

describe("SMS not configured", () => {
  let bare: TestServer;
  beforeAll(async () => {
    bare = await startTestServer({ env: { SMS_PROVIDER: "none" } });
  });
  afterAll(() => bare.close());

  it("503 on /auth/sms/code and /auth/login, and nothing stored", async () => {
    const phone = randomPhone();
    const sent = await sendCode(bare, phone);
    expect(sent.status).toBe(503);
    expect(sent.body.code).toBe("SMS_NOT_CONFIGURED");
    const loggedIn = await login(bare, phone, "chl_0000000000000000000000000", "123456");
    expect(loggedIn.status).toBe(503);
    expect(loggedIn.body.code).toBe("SMS_NOT_CONFIGURED");
    expect(await countRows(bare, "sms_challenges")).toBe(0);
    expect(await countRows(bare, "users")).toBe(0);
    expect(readOutbox(bare)).toEqual([]);
  });
});

describe("cross-site writes", () => {
  const origin = "http://localhost:8787";
  it.each([
    ["a foreign Origin", { origin: "https://evil.example" }],
    ["Origin null", { origin: "null" }],
    ["a look-alike Origin", { origin: "http://localhost:8787.evil.com" }],
    ["Sec-Fetch-Site cross-site", { "sec-fetch-site": "cross-site" }],
    ["Sec-Fetch-Site same-site", { "sec-fetch-site": "same-site" }],
  ])("403 for a cookie-carrying POST with %s", async (_label, headers) => {
    const alice = await signIn(server);
    for (const path of ["/auth/logout", "/contact"]) {
      const { status, body } = await server.json(path, { method: "POST", headers: { ...alice.headers, ...headers }, body: path === "/contact" ? { name: "A", email: "a@example.com", company: "C", message: "hello there team" } : undefined });
      expect(status).toBe(403);
      expect(body.code).toBe("CROSS_SITE_REQUEST");
    }
    // The session survived the refused logout.
    expect((await server.json("/auth/me", { headers: alice.headers })).status).toBe(200);
  });

  it("passes the console's own origin, same-origin fetch metadata, and clients sending neither", async () => {
    for (const headers of [{ origin }, { "sec-fetch-site": "same-origin" }, {}] as Array<Record<string, string>>) {
      const alice = await signIn(server);
      const { status } = await server.json("/auth/logout", { method: "POST", headers: { ...alice.headers, ...headers } });
      expect(status).toBe(200);
    }
  });

  it("refuses cross-site sign-in even without a cookie (login CSRF), over REST and tRPC", async () => {
    const phone = randomPhone();
    const rest = await sendCode(server, phone, {}, { origin: "https://evil.example" });
    expect(rest.status).toBe(403);
    expect(rest.body.code).toBe("CROSS_SITE_REQUEST");
    const trpc = await server.fetch("/trpc/auth.login", {
      method: "POST",
      headers: { "content-type": "application/json", "sec-fetch-site": "cross-site" },
      body: JSON.stringify({ json: { phone, challenge_id: "chl_0000000000000000000000000", code: "123456", ...agreementOf(server) } }),
    });
    expect(trpc.status).toBe(403);
    expect((await trpc.json()).error.json.data.appCode).toBe("CROSS_SITE_REQUEST");
  });

  it("lets an anonymous or API-key client without Origin write (POST /contact)", async () => {
    const { status } = await server.json("/contact", {
      method: "POST",
      headers: { "x-api-key": `ir21_${"b".repeat(43)}` },
      body: { name: "Server", email: "ops@example.com", company: "S2S Ltd", message: "Sent from a backend job." },
    });
    expect(status).toBe(200);
  });

  it("415 for a body that is not JSON, over REST and tRPC", async () => {
    const phone = randomPhone();
    const body = JSON.stringify({ phone, ...agreementOf(server) });
    const rest = await server.fetch("/auth/sms/code", { method: "POST", headers: { "content-type": "text/plain" }, body });
    expect(rest.status).toBe(415);
    expect((await rest.json()).code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const trpc = await server.fetch("/trpc/auth.sendCode", { method: "POST", headers: { "content-type": "text/plain" }, body: JSON.stringify({ json: JSON.parse(body) }) });
    expect(trpc.status).toBe(415);
    expect(readOutbox(server).some((m) => m.phone === `+86${phone}`)).toBe(false);
  });
});

describe("nothing secret at rest or in logs", () => {
  it("after a full flow the database and the logs hold no code, session secret or full phone", async () => {
    const phone = randomPhone();
    const sent = await sendCode(server, phone);
    const code = lastSmsCode(server, phone);
    await login(server, phone, sent.body.data.challenge_id, wrong(code));
    server.clock.advance(61_000);
    const alice = await signIn(server, phone);
    await server.json("/auth/me", { headers: alice.headers });
    await server.json("/auth/logout", { method: "POST", headers: alice.headers });
    const secret = alice.token.split(".")[1]!;
    const codes = readOutbox(server).filter((m) => m.phone === `+86${phone}`).map((m) => m.code);
    expect(codes).toHaveLength(2);

    const db = await databaseText(server);
    const logs = server.logs.text();
    expect(logs).toContain(`${phone.slice(0, 3)}****${phone.slice(7)}`);
    for (const text of [db, logs]) {
      expect(text).not.toContain(secret);
      for (const c of codes) expect(text).not.toMatch(new RegExp(`(?<![0-9a-f])${c}(?![0-9a-f])`));
    }
    expect(logs).not.toContain(phone);
  });
});
