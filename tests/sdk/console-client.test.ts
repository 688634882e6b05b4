import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGREEMENT_VERSION, createConsoleClient, getConsoleSession, Ir21ApiError, isIr21ApiError, setConsoleSession, type ConsoleSession } from "@ir21/sdk";
import { LIMITS } from "@ir21/server";
import { agreementOf, lastSmsCode, randomPhone, signIn, startTestServer, type TestServer } from "@ir21/server/testing";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const agreement = { agreed: true as const, terms_version: AGREEMENT_VERSION, privacy_version: AGREEMENT_VERSION };

/** Signs in through the SDK alone: sendCode, the code from the dev outbox, login. */
async function signInWithSdk(phone = randomPhone()) {
  const changes: Array<ConsoleSession | null> = [];
  const ir21 = createConsoleClient({ baseUrl: server.url, onSessionChange: (s) => changes.push(s) });
  const sent = await ir21.auth.sendCode.mutate({ phone, ...agreement });
  const login = await ir21.auth.login.mutate({ phone, challenge_id: sent.challenge_id, code: lastSmsCode(server, phone), ...agreement });
  return { ir21, phone, login, changes };
}

describe("console client: auth over tRPC against a live server", () => {
  it("the SDK's agreement version is the contract's", () => {
    expect(AGREEMENT_VERSION).toBe(LIMITS.agreementVersion);
    expect(agreementOf(server)).toEqual(agreement);
  });

  it("signs in, holds the session cookie itself, and answers me", async () => {
    const { ir21, phone, login, changes } = await signInWithSdk();
    expect(login.created).toBe(true);
    expect(login.user.phone).toBe(`+86${phone}`);
    const session = getConsoleSession(ir21);
    expect(session?.cookie).toMatch(/^ir21_session=ses_[0-9a-z]+\./);
    expect(Date.parse(session!.expiresAt!)).toBeGreaterThan(Date.now());
    expect(changes).toEqual([session]);
    const me = await ir21.auth.me.query();
    expect(me.user.id).toBe(login.user.id);
    expect(me.user.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("exports the session and a new client (a later CLI run) imports it", async () => {
    const { ir21, login } = await signInWithSdk();
    const saved = JSON.parse(JSON.stringify(getConsoleSession(ir21))) as ConsoleSession;
    const later = createConsoleClient({ baseUrl: server.url, session: saved });
    expect((await later.auth.me.query()).user.id).toBe(login.user.id);
    const bare = createConsoleClient({ baseUrl: server.url });
    setConsoleSession(bare, saved.cookie);
    expect((await bare.auth.me.query()).user.id).toBe(login.user.id);
  });

  it("keeps sessions apart per client and signs out: logout clears the held session and revokes it", async () => {
    const alice = await signInWithSdk();
    const bob = await signInWithSdk();
    expect((await alice.ir21.auth.me.query()).user.id).not.toBe((await bob.ir21.auth.me.query()).user.id);
    const saved = getConsoleSession(alice.ir21)!;
    // A cookie-carrying write from Node (no Origin, no Sec-Fetch-Site) passes the cross-site check.
    expect(await alice.ir21.auth.logout.mutate()).toEqual({ logged_out: true });
    expect(getConsoleSession(alice.ir21)).toBeNull();
    expect(alice.changes.at(-1)).toBeNull();
    const revoked = await createConsoleClient({ baseUrl: server.url, session: saved })
      .auth.me.query()
      .catch((e: unknown) => e);
    expect(revoked).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    expect((await bob.ir21.auth.me.query()).user.id).toBe(bob.login.user.id);
  });

  it("refuses a session value that is not the session cookie", () => {
    expect(() => createConsoleClient({ baseUrl: server.url, session: "other=1" })).toThrow(TypeError);
    expect(() => createConsoleClient({ baseUrl: server.url, session: { cookie: "ir21_session=a\r\nx: y", expiresAt: null } })).toThrow(TypeError);
    expect(() => createConsoleClient({ baseUrl: "localhost:8787" })).toThrow(/absolute http\(s\) URL/);
  });
});

describe("console client errors", () => {
  it("throws Ir21ApiError with the contract code, status, message and request id", async () => {
    const ir21 = createConsoleClient({ baseUrl: server.url });
    const error = await ir21.contact.submit.mutate({ name: "x", email: "bad", company: "y", message: "long enough message" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Ir21ApiError);
    expect(error).toMatchObject({ name: "Ir21ApiError", status: 400, code: "INVALID_REQUEST", retryAfter: null });
    expect((error as Ir21ApiError).requestId).toMatch(/\S/);
    expect((error as Ir21ApiError).message).toMatch(/email/i);
    const unauthenticated = await ir21.auth.me.query().catch((e: unknown) => e);
    expect(isIr21ApiError(unauthenticated, "UNAUTHORIZED")).toBe(true);
    expect((unauthenticated as Ir21ApiError).status).toBe(401);
  });

  it("carries Retry-After, and a bounded retry gives up at once when the wait exceeds its budget", async () => {
    const phone = randomPhone();
    const retries: number[] = [];
    const ir21 = createConsoleClient({ baseUrl: server.url, retry: { maxAttempts: 3, maxTotalWaitMs: 5_000, onRetry: (r) => retries.push(r.delayMs) } });
    await ir21.auth.sendCode.mutate({ phone, ...agreement });
    const started = Date.now();
    const limited = await ir21.auth.sendCode.mutate({ phone, ...agreement }).catch((e: unknown) => e);
    expect(limited).toMatchObject({ status: 429, code: "SMS_SEND_LIMITED" });
    expect((limited as Ir21ApiError).retryAfter).toBeGreaterThanOrEqual(59);
    expect(retries).toEqual([]);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it("reports a server that is not there as NETWORK_ERROR", async () => {
    const ir21 = createConsoleClient({ baseUrl: "http://127.0.0.1:9" });
    const error = await ir21.auth.me.query().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "Ir21ApiError", status: 0, code: "NETWORK_ERROR", requestId: null });
  });

  it("keeps an Ir21ApiError from another client's failure distinct from other errors", async () => {
    expect(isIr21ApiError(new Error("x"))).toBe(false);
    const ir21 = createConsoleClient({ baseUrl: server.url });
    const error = await ir21.auth.me.query().catch((e: unknown) => e);
    expect(isIr21ApiError(error, "FORBIDDEN")).toBe(false);
  });
});

describe("console client without a server-side change: signIn helper parity", () => {
  it("a session made by the test helper works in the SDK client", async () => {
    const helper = await signIn(server);
    const ir21 = createConsoleClient({ baseUrl: server.url, session: helper.cookie });
    expect((await ir21.auth.me.query()).user.id).toBe(helper.userId);
  });
});
