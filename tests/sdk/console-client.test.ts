import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGREEMENT_VERSION, createConsoleClient, Ir21ApiError, isIr21ApiError, memoryCookieJar, type ConsoleClient, type MemoryCookieJar, type SessionCookieJar } from "@ir21/sdk";
import { LIMITS } from "@ir21/server";
import { agreementOf, lastSmsCode, randomPhone, signIn, startTestServer, type TestServer } from "@ir21/server/testing";

let server: TestServer;
beforeAll(async () => {
  // Webhook URLs are resolved when a subscription is made; tests answer DNS themselves (a public address).
  server = await startTestServer({ hostResolver: async () => [{ address: "93.184.215.14", family: 4 }] });
});
afterAll(() => server.close());

const agreement = { agreed: true as const, terms_version: AGREEMENT_VERSION, privacy_version: AGREEMENT_VERSION };
const isoTime = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A jar that records every set, like a CLI's config file would. */
function recordingJar(initial: string | null = null) {
  const memory = memoryCookieJar(initial);
  const sets: Array<{ cookie: string | null; expiresAt: string | null }> = [];
  const jar: MemoryCookieJar & { sets: typeof sets } = {
    sets,
    get: () => memory.get(),
    set: (cookie: string | null, details?: Parameters<SessionCookieJar["set"]>[1]) => {
      sets.push({ cookie, expiresAt: details?.expiresAt ?? null });
      memory.set(cookie);
    },
  };
  return jar;
}

/** Signs in through the SDK alone: sendCode, the code from the dev outbox, login. */
async function signInWithSdk(phone = randomPhone()) {
  const jar = recordingJar();
  const ir21 = createConsoleClient({ baseUrl: server.url, cookies: jar });
  const sent = await ir21.auth.sendCode.mutate({ phone, ...agreement });
  const login = await ir21.auth.login.mutate({ phone, challenge_id: sent.challenge_id, code: lastSmsCode(server, phone), ...agreement });
  return { ir21, jar, phone, login };
}

describe("console client: auth over tRPC against a live server", () => {
  it("the SDK's agreement version is the contract's", () => {
    expect(AGREEMENT_VERSION).toBe(LIMITS.agreementVersion);
    expect(agreementOf(server)).toEqual(agreement);
  });

  it("signs in, holds the session cookie in its jar with the expiry, and answers me", async () => {
    const { ir21, jar, phone, login } = await signInWithSdk();
    expect(login.created).toBe(true);
    expect(login.user.phone).toBe(`+86${phone}`);
    expect(jar.get()).toMatch(/^ir21_session=ses_[0-9a-z]+\.[\w-]+$/);
    expect(jar.sets).toHaveLength(1);
    expect(Date.parse(jar.sets[0]!.expiresAt!)).toBeGreaterThan(Date.now() + 80 * 86_400_000);
    const me = await ir21.auth.me.query();
    expect(me.user).toEqual(login.user);
    expect(me.user.created_at).toMatch(isoTime);
  });

  it("a saved cookie restores the session in a new client (a later CLI run)", async () => {
    const { jar, login } = await signInWithSdk();
    const later = createConsoleClient({ baseUrl: server.url, cookies: memoryCookieJar(jar.get()) });
    expect((await later.auth.me.query()).user.id).toBe(login.user.id);
  });

  it("keeps sessions apart per client; logout clears the jar and revokes the session", async () => {
    const alice = await signInWithSdk();
    const bob = await signInWithSdk();
    expect((await alice.ir21.auth.me.query()).user.id).not.toBe((await bob.ir21.auth.me.query()).user.id);
    const saved = alice.jar.get();
    // A cookie-carrying write from Node (no Origin, no Sec-Fetch-Site) passes the cross-site check.
    expect(await alice.ir21.auth.logout.mutate()).toEqual({ logged_out: true });
    expect(alice.jar.get()).toBeNull();
    expect(alice.jar.sets.at(-1)).toEqual({ cookie: null, expiresAt: null });
    const revoked = await createConsoleClient({ baseUrl: server.url, cookies: memoryCookieJar(saved) })
      .auth.me.query()
      .catch((e: unknown) => e);
    expect(revoked).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    expect((await bob.ir21.auth.me.query()).user.id).toBe(bob.login.user.id);
  });

  it("refuses a saved value that is not the session cookie pair, and a base URL that is not one", () => {
    for (const bad of ["other=1", "ir21_session=", "ir21_session=a; Path=/", "ir21_session=a\r\nx: y"]) expect(() => memoryCookieJar(bad)).toThrow(TypeError);
    expect(() => createConsoleClient({ baseUrl: "localhost:8787" })).toThrow(/absolute http\(s\) URL/);
  });

  it("a session made by the server's test helper works in the SDK client", async () => {
    const helper = await signIn(server);
    const ir21 = createConsoleClient({ baseUrl: server.url, cookies: memoryCookieJar(helper.cookie) });
    expect((await ir21.auth.me.query()).user.id).toBe(helper.userId);
  });
});

describe("console client: keys, sessions, usage, plan, billing", () => {
  let ir21: ConsoleClient;
  beforeAll(async () => {
    ({ ir21 } = await signInWithSdk());
  });

  it("creates, lists and revokes API keys; the key is shown once", async () => {
    const { key, item } = await ir21.console.apiKeys.create.mutate({ name: "from the SDK" });
    expect(key).toMatch(/^ir21_[0-9A-Za-z]{49}$/);
    expect(key.startsWith(item.prefix)).toBe(true);
    expect(item).toMatchObject({ name: "from the SDK", revoked_at: null, last_used_at: null });
    const listed = await ir21.console.apiKeys.list.query();
    expect(listed.items.map((k) => k.id)).toEqual([item.id]);
    expect(JSON.stringify(listed)).not.toContain(key);
    expect(await ir21.console.apiKeys.revoke.mutate({ id: item.id })).toEqual({ revoked: true });
    expect((await ir21.console.apiKeys.list.query()).items[0]!.revoked_at).toMatch(isoTime);
    const missing = await ir21.console.apiKeys.revoke.mutate({ id: "key_0000000000000000000000000" }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });

  it("lists sessions with the current one marked, revokes others but keeps this one", async () => {
    const { phone } = await signInWithSdk();
    // One code a minute per phone: the server's clock moves on between sign-ins.
    server.clock.advance(61_000);
    const same = await signInWithSdk(phone);
    server.clock.advance(61_000);
    const other = await signInWithSdk(phone);
    const sessions = await same.ir21.console.sessions.list.query();
    expect(sessions.items.filter((s) => s.current)).toHaveLength(1);
    expect(sessions.items.length).toBeGreaterThanOrEqual(3);
    const { revoked } = await same.ir21.console.sessions.revokeOthers.mutate();
    expect(revoked).toBeGreaterThanOrEqual(2);
    expect(await other.ir21.auth.me.query().catch((e: unknown) => (e as Ir21ApiError).code)).toBe("UNAUTHORIZED");
    const [current] = (await same.ir21.console.sessions.list.query()).items;
    expect(current).toMatchObject({ current: true });
    // Revoking the current session clears the cookie: the jar follows.
    expect(await same.ir21.console.sessions.revoke.mutate({ id: current!.id })).toEqual({ revoked: true, current: true });
    expect(same.jar.get()).toBeNull();
  });

  it("reads usage, plan and billing", async () => {
    const usage = await ir21.console.usage.query();
    expect(usage).toMatchObject({ used: 0, quota: expect.any(Number), by_endpoint: [], period: { start: expect.stringMatching(isoTime), resets_at: expect.stringMatching(isoTime) } });
    expect(usage.daily.length).toBeGreaterThanOrEqual(1);
    const plan = await ir21.console.plan.query();
    expect(plan).toMatchObject({ current_plan: "free", pricing_is_provisional: true, payment_enabled: false });
    expect(plan.plans.map((p) => p.id)).toContain("free");
    expect(await ir21.console.billing.query()).toEqual({ items: [], payment_enabled: false });
  });

  it("refuses console calls without a session (401), as the typed error", async () => {
    const anonymous = createConsoleClient({ baseUrl: server.url });
    const error = await anonymous.console.usage.query().catch((e: unknown) => e);
    expect(isIr21ApiError(error, "UNAUTHORIZED")).toBe(true);
  });
});

describe("console client: webhooks", () => {
  it("creates, lists, updates, rotates, retries and deletes subscriptions, with the contract's errors", async () => {
    const { ir21 } = await signInWithSdk();
    const forbidden = await ir21.webhooks.create.mutate({ url: "http://127.0.0.1:9/hook", events: ["ir21.operator.updated"] }).catch((e: unknown) => e);
    expect(forbidden).toMatchObject({ status: 400, code: "WEBHOOK_URL_FORBIDDEN" });
    // Creating does not contact the URL; delivering (not done here) would re-check it at connect time.
    const { item, secret } = await ir21.webhooks.create.mutate({ url: "https://hooks.example.com/ir21", events: ["ir21.catalog.updated"], countries: ["cn"] });
    expect(secret).toMatch(/^whsec_[\w-]{43}$/);
    expect(item).toMatchObject({ url: "https://hooks.example.com/ir21", countries: ["CN"], enabled: true, previous_secret_expires_at: null });
    expect((await ir21.webhooks.list.query()).items.map((w) => w.id)).toEqual([item.id]);
    expect(JSON.stringify(await ir21.webhooks.list.query())).not.toContain(secret);

    const rotated = await ir21.webhooks.rotateSecret.mutate({ id: item.id, grace_seconds: 60 });
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.previous_secret_expires_at).toMatch(isoTime);
    const again = await ir21.webhooks.rotateSecret.mutate({ id: item.id }).catch((e: unknown) => e);
    expect(again).toMatchObject({ status: 409, code: "CONFLICT" });
    expect(await ir21.webhooks.revokePreviousSecret.mutate({ id: item.id })).toEqual({ revoked: true });

    const { delivery_id } = await ir21.webhooks.sendTest.mutate({ id: item.id });
    const listed = await ir21.webhooks.listDeliveries.query({ id: item.id, status: "pending", limit: 5 });
    expect(listed).toMatchObject({ total: 1, next_cursor: null, items: [{ id: delivery_id, status: "pending", event_type: "ir21.catalog.updated" }] });
    expect(await ir21.webhooks.retryDeliveries.mutate({ id: item.id, delivery_ids: [delivery_id] })).toMatchObject({ delivery_ids: [delivery_id] });

    const { item: disabled } = await ir21.webhooks.update.mutate({ id: item.id, enabled: false });
    expect(disabled.enabled).toBe(false);
    expect(await ir21.webhooks.sendTest.mutate({ id: item.id }).catch((e: unknown) => (e as Ir21ApiError).code)).toBe("CONFLICT");
    expect(await ir21.webhooks.delete.mutate({ id: item.id })).toEqual({ deleted: true });
    expect(await ir21.webhooks.getDelivery.query({ id: item.id, deliveryId: delivery_id }).catch((e: unknown) => (e as Ir21ApiError).status)).toBe(404);
  });

  it("keeps tenants apart: another account's subscription is 404", async () => {
    const alice = await signInWithSdk();
    const bob = await signInWithSdk();
    const { item } = await alice.ir21.webhooks.create.mutate({ url: "https://hooks.example.com/a", events: ["ir21.operator.added"] });
    const error = await bob.ir21.webhooks.update.mutate({ id: item.id, enabled: false }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 404, code: "NOT_FOUND" });
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
    expect(isIr21ApiError(unauthenticated, "FORBIDDEN")).toBe(false);
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
});
