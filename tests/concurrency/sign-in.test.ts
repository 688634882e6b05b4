/**
 * Sign-in under parallel requests (POST /auth/sms/code, /auth/login, /auth/logout): no 5xx, no SMS
 * without its stored challenge and every sent code usable, the per-phone gate and per-address caps
 * exact, exactly one sign-in per single-use code, a send that fails charges nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agreementOf, randomPhone, readOutbox, type TestServer } from "@ir21/server/testing";
import { challengeOf, expectNoServerErrors, freshAddress, messagesTo, N, parallel, startConcurrencyServer, tally, type Answer } from "./harness.ts";

const IP_HOURLY = 5;
let server: TestServer;
beforeAll(async () => {
  server = await startConcurrencyServer({ SMS_IP_HOURLY_LIMIT: String(IP_HOURLY) });
});
afterAll(() => server.close());

const e164 = (phone: string) => `+86${phone}`;

function requestCode(phone: string, from: string): Promise<Answer> {
  return server.json("/auth/sms/code", { method: "POST", body: { phone, ...agreementOf(server) }, headers: { "x-forwarded-for": from } });
}

function login(phone: string, challengeId: string, code: string, from: string, headers: Record<string, string> = {}): Promise<Answer> {
  return server.json("/auth/login", { method: "POST", body: { phone, challenge_id: challengeId, code, ...agreementOf(server) }, headers: { "x-forwarded-for": from, ...headers } });
}

async function challengesOf(phones: string[]) {
  return server.deps.db.selectFrom("sms_challenges").selectAll().where("phone", "in", phones.map(e164)).execute();
}

/** Every outbox message to these phones belongs to a stored challenge that can still be used. */
async function expectEverySentCodeUsable(phones: string[]) {
  const stored = await challengesOf(phones);
  for (const message of messagesTo(server, phones.map(e164))) {
    const challenge = challengeOf(server, message, stored);
    expect(challenge, `a stored challenge for the SMS to ${message.phone}`).toBeDefined();
    const row = stored.find((c) => c.id === challenge!.id)!;
    expect({ superseded: row.superseded_at, failed: (row as { send_failed_at?: number | null }).send_failed_at ?? null }).toEqual({ superseded: null, failed: null });
  }
}

function cookieOf(answer: Answer): string {
  const setCookie = answer.headers.getSetCookie().find((c) => /^(__Host-)?ir21_session=/.test(c));
  if (!setCookie) throw new Error("no session cookie");
  return setCookie.split(";")[0]!;
}

describe("POST /auth/sms/code in parallel", () => {
  it(`${N} different phones at once: ${N} codes sent, ${N} challenges stored, every code signs in`, async () => {
    const phones = Array.from({ length: N }, () => randomPhone());
    const sent = await parallel(N, (i) => requestCode(phones[i]!, freshAddress()));
    expectNoServerErrors(sent);
    expect(tally(sent).status).toEqual({ 200: N });
    expect(messagesTo(server, phones.map(e164))).toHaveLength(N);
    expect(await challengesOf(phones)).toHaveLength(N);
    await expectEverySentCodeUsable(phones);

    // ...and N first sign-ins at once: N accounts, N sessions, each code consumed once.
    const codes = new Map(messagesTo(server, phones.map(e164)).map((m) => [m.phone, m.code]));
    const signedIn = await parallel(N, (i) => login(phones[i]!, sent[i]!.body.data.challenge_id, codes.get(e164(phones[i]!))!, freshAddress()));
    expectNoServerErrors(signedIn);
    expect(signedIn.map((a) => a.body.data?.created)).toEqual(Array(N).fill(true));
    const users = await server.deps.db.selectFrom("users").select("id").where("phone", "in", phones.map(e164)).execute();
    expect(users).toHaveLength(N);
    const sessions = await server.deps.db.selectFrom("sessions").select("id").where("user_id", "in", users.map((u) => u.id)).execute();
    expect(sessions).toHaveLength(N);
  });

  it(`one phone ${N} times at once: exactly one code is sent and stored, the rest are 429`, async () => {
    const phone = randomPhone();
    const sent = await parallel(N, () => requestCode(phone, freshAddress()));
    expectNoServerErrors(sent);
    expect(tally(sent)).toEqual({ status: { 200: 1, 429: N - 1 }, codes: { SMS_SEND_LIMITED: N - 1 } });
    expect(messagesTo(server, [e164(phone)])).toHaveLength(1);
    expect(await challengesOf([phone])).toHaveLength(1);
    await expectEverySentCodeUsable([phone]);
  });

  it(`one address, ${N} phones at once: exactly the per-address cap (${IP_HOURLY}) is sent`, async () => {
    const address = freshAddress();
    const phones = Array.from({ length: N }, () => randomPhone());
    const sent = await parallel(N, (i) => requestCode(phones[i]!, address));
    expectNoServerErrors(sent);
    expect(tally(sent)).toEqual({ status: { 200: IP_HOURLY, 429: N - IP_HOURLY }, codes: { SMS_SEND_LIMITED: N - IP_HOURLY } });
    expect(messagesTo(server, phones.map(e164))).toHaveLength(IP_HOURLY);
    await expectEverySentCodeUsable(phones);
  });

  it("a send the provider refuses charges neither the resend interval nor the phone's counters", async () => {
    const real = server.deps.auth.sms!;
    const failing = new Set<string>();
    server.deps.auth.sms = {
      name: real.name,
      async send(message) {
        if (failing.has(message.phone)) throw new Error("provider down (test)");
        return real.send(message);
      },
    };
    try {
      // Half of N phones fail, at once: only the others get an SMS, each with its usable challenge.
      const phones = Array.from({ length: N }, () => randomPhone());
      for (const p of phones.slice(0, N / 2)) failing.add(e164(p));
      const sent = await parallel(N, (i) => requestCode(phones[i]!, freshAddress()));
      expectNoServerErrors(sent.filter((a) => a.body?.code !== "SMS_PROVIDER_UNAVAILABLE"));
      expect(tally(sent)).toEqual({ status: { 200: N / 2, 503: N / 2 }, codes: { SMS_PROVIDER_UNAVAILABLE: N / 2 } });
      expect(messagesTo(server, phones.map(e164))).toHaveLength(N / 2);
      await expectEverySentCodeUsable(phones);

      // One phone refused more times than its hourly cap: each failure is answered 503 (never 429,
      // the interval was not taken), and once the provider works the code is sent and usable.
      const phone = randomPhone();
      failing.add(e164(phone));
      const from = freshAddress();
      for (let i = 0; i < 6; i++) expect((await requestCode(phone, from)).body.code).toBe("SMS_PROVIDER_UNAVAILABLE");
      failing.delete(e164(phone));
      const ok = await requestCode(phone, from);
      expect(ok.status).toBe(200);
      await expectEverySentCodeUsable([phone]);
      const code = messagesTo(server, [e164(phone)]).at(-1)!.code;
      expect((await login(phone, ok.body.data.challenge_id, code, from)).status).toBe(200);
    } finally {
      server.deps.auth.sms = real;
    }
  });
});

describe("the service-wide daily cap under parallel sends", () => {
  const SERVICE_DAILY = 7;
  let capped: TestServer;
  beforeAll(async () => {
    // A database of its own: the cap counts every send of the service.
    capped = await startConcurrencyServer({ SMS_GLOBAL_DAILY_LIMIT: String(SERVICE_DAILY) });
  });
  afterAll(() => capped.close());
  const send = (phone: string) => capped.json("/auth/sms/code", { method: "POST", body: { phone, ...agreementOf(capped) }, headers: { "x-forwarded-for": freshAddress() } });
  const stored = () => capped.deps.db.selectFrom("sms_challenges").select(["id", "phone", "code_mac"]).where("send_failed_at", "is", null).execute();

  it(`${N} phones from ${N} addresses at once: exactly the cap (${SERVICE_DAILY}) is sent and stored`, async () => {
    const phones = Array.from({ length: N }, () => randomPhone());
    const startedAt = capped.clock.now().getTime();
    const sent = await parallel(N, (i) => send(phones[i]!));
    expectNoServerErrors(sent);
    expect(tally(sent)).toEqual({ status: { 200: SERVICE_DAILY, 429: N - SERVICE_DAILY }, codes: { SMS_SEND_LIMITED: N - SERVICE_DAILY } });
    const challenges = await stored();
    expect(challenges).toHaveLength(SERVICE_DAILY);
    const outbox = readOutbox(capped);
    expect(outbox).toHaveLength(SERVICE_DAILY);
    expect(outbox.filter((m) => !challengeOf(capped, m, challenges))).toEqual([]);
    // Refused until the first counted send is a day old: the clock has not moved, so a whole day.
    for (const refused of sent.filter((a) => a.status === 429)) expect(refused.headers.get("retry-after")).toBe("86400");

    // A day later the window has moved on: the cap is whole again, and still exact.
    capped.clock.set(startedAt + 24 * 3600_000 + 1);
    const later = Array.from({ length: N }, () => randomPhone());
    const again = await parallel(N, (i) => send(later[i]!));
    expectNoServerErrors(again);
    expect(tally(again).status).toEqual({ 200: SERVICE_DAILY, 429: N - SERVICE_DAILY });
    expect(await stored()).toHaveLength(2 * SERVICE_DAILY);
    expect(readOutbox(capped)).toHaveLength(2 * SERVICE_DAILY);
  });
});

describe("POST /auth/login in parallel", () => {
  it(`${N} logins with the right code for one challenge: exactly one signs in`, async () => {
    const phone = randomPhone();
    const sent = await requestCode(phone, freshAddress());
    const code = messagesTo(server, [e164(phone)]).at(-1)!.code;
    const answers = await parallel(N, () => login(phone, sent.body.data.challenge_id, code, freshAddress()));
    expectNoServerErrors(answers);
    expect(tally(answers).status[200]).toBe(1);
    expect(Object.keys(tally(answers).codes).every((c) => ["CHALLENGE_CONSUMED", "CODE_ATTEMPTS_EXHAUSTED"].includes(c))).toBe(true);
    const users = await server.deps.db.selectFrom("users").select("id").where("phone", "=", e164(phone)).execute();
    expect(users).toHaveLength(1);
    const sessions = await server.deps.db.selectFrom("sessions").select("id").where("user_id", "=", users[0]!.id).execute();
    expect(sessions).toHaveLength(1);
    const [challenge] = await challengesOf([phone]);
    expect(challenge!.consumed_at).not.toBeNull();
    expect(challenge!.attempts).toBeLessThanOrEqual(5);
  });

  it(`${N} wrong codes at once: exactly five attempts are counted`, async () => {
    const phone = randomPhone();
    const sent = await requestCode(phone, freshAddress());
    const code = messagesTo(server, [e164(phone)]).at(-1)!.code;
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    const answers = await parallel(N, () => login(phone, sent.body.data.challenge_id, wrong, freshAddress()));
    expectNoServerErrors(answers);
    expect(tally(answers).status).toEqual({ 400: N });
    const [challenge] = await challengesOf([phone]);
    expect(challenge!.attempts).toBe(5);
    // The sixth attempt fails even with the right code.
    expect((await login(phone, sent.body.data.challenge_id, code, freshAddress())).body.code).toBe("CODE_ATTEMPTS_EXHAUSTED");
  });

  it(`${N} logins of one number, each carrying the same earlier session: one new session, the old one ended`, async () => {
    const phone = randomPhone();
    const from = freshAddress();
    const first = await requestCode(phone, from);
    const old = await login(phone, first.body.data.challenge_id, messagesTo(server, [e164(phone)]).at(-1)!.code, from);
    const oldCookie = cookieOf(old);
    server.clock.advance(61_000);
    const second = await requestCode(phone, from);
    const code = messagesTo(server, [e164(phone)]).at(-1)!.code;
    const answers = await parallel(N, () => login(phone, second.body.data.challenge_id, code, freshAddress(), { cookie: oldCookie }));
    expectNoServerErrors(answers);
    expect(tally(answers).status[200]).toBe(1);
    const live = await server.deps.db.selectFrom("sessions").select("id").where("user_id", "=", old.body.data.user.id).where("revoked_at", "is", null).execute();
    expect(live).toHaveLength(1);
    expect((await server.json("/auth/me", { headers: { cookie: oldCookie } })).status).toBe(401);
  });
});

describe("POST /auth/logout in parallel", () => {
  it(`${N} logouts of one session at once: all answer logged_out, the session is revoked once`, async () => {
    const phone = randomPhone();
    const from = freshAddress();
    const sent = await requestCode(phone, from);
    const signedIn = await login(phone, sent.body.data.challenge_id, messagesTo(server, [e164(phone)]).at(-1)!.code, from);
    const cookie = cookieOf(signedIn);
    const answers = await parallel(N, () => server.json("/auth/logout", { method: "POST", headers: { cookie } }));
    expectNoServerErrors(answers);
    expect(answers.map((a) => a.body.data?.logged_out)).toEqual(Array(N).fill(true));
    const sessions = await server.deps.db.selectFrom("sessions").select(["revoked_at"]).where("user_id", "=", signedIn.body.data.user.id).execute();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.revoked_at).not.toBeNull();
    expect((await server.json("/auth/me", { headers: { cookie } })).status).toBe(401);
  });
});

describe("the outbox and the database agree", () => {
  it("after everything above: no SMS was sent without a stored challenge", async () => {
    const stored = await server.deps.db.selectFrom("sms_challenges").select(["id", "phone", "code_mac"]).execute();
    const orphans = readOutbox(server).filter((m) => !challengeOf(server, m, stored));
    expect(orphans).toEqual([]);
  });
});
