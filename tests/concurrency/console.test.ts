/**
 * The console's writes under parallel requests: API keys (create against the per-account cap, revoke),
 * sessions (revoke, revoke-others) and the contact form. No 5xx, caps exact (also across two
 * instances of one deployment), one winner where only one can win, counts that add up.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type CreatedApiKey, type SignedIn, type TestServer } from "@ir21/server/testing";
import { expectNoServerErrors, freshAddress, N, parallel, startConcurrencyServer, tally } from "./harness.ts";

const KEY_CAP = 20;
const CONTACT_CAP = 5;
let server: TestServer;
beforeAll(async () => {
  server = await startConcurrencyServer({
    API_KEYS_PER_ACCOUNT: String(KEY_CAP),
    CONTACT_IP_HOURLY_LIMIT: String(CONTACT_CAP),
    // revoke-others needs many sessions of one account: one sign-in a minute, more than the default caps.
    SMS_PHONE_HOURLY_LIMIT: "1000",
    SMS_PHONE_DAILY_LIMIT: "1000",
  });
});
afterAll(() => server.close());

const activeKeys = async (userId: string) =>
  server.deps.db.selectFrom("api_keys").select(["id", "key_hash"]).where("user_id", "=", userId).where("revoked_at", "is", null).execute();

const createKey = (who: SignedIn, name: string, on: TestServer = server) => on.json("/console/api-keys", { method: "POST", headers: who.headers, body: { name } });

describe("POST /console/api-keys in parallel", () => {
  it(`${KEY_CAP + 10} creates at once: exactly ${KEY_CAP} keys, the rest 409 API_KEY_LIMIT_REACHED`, async () => {
    const owner = await signIn(server);
    const answers = await parallel(KEY_CAP + 10, (i) => createKey(owner, `key ${i}`));
    expectNoServerErrors(answers);
    expect(tally(answers)).toEqual({ status: { 200: KEY_CAP, 409: 10 }, codes: { API_KEY_LIMIT_REACHED: 10 } });
    const rows = await activeKeys(owner.userId);
    expect(rows).toHaveLength(KEY_CAP);
    expect(new Set(rows.map((r) => r.key_hash)).size).toBe(KEY_CAP);
  });

  it("the cap holds across two instances of one deployment", async () => {
    const other = await startTestServer({ instanceOf: server });
    try {
      const owner = await signIn(server);
      const answers = await parallel(KEY_CAP + 10, (i) => createKey(owner, `key ${i}`, i % 2 ? other : server));
      expectNoServerErrors(answers);
      expect(tally(answers).status).toEqual({ 200: KEY_CAP, 409: 10 });
      expect(await activeKeys(owner.userId)).toHaveLength(KEY_CAP);
    } finally {
      await other.close();
    }
  });

  it("creates racing revokes at the cap: never more than the cap active", async () => {
    const owner = await signIn(server);
    const keys: CreatedApiKey[] = [];
    for (let i = 0; i < KEY_CAP; i++) keys.push(await createApiKey(server, owner, `k${i}`));
    const answers = await parallel(N, (i) =>
      i % 2 ? createKey(owner, `new ${i}`) : server.json(`/console/api-keys/${keys[i]!.id}`, { method: "DELETE", headers: owner.headers }),
    );
    expectNoServerErrors(answers);
    const created = answers.filter((a, i) => i % 2 && a.status === 200).length;
    const active = await activeKeys(owner.userId);
    expect(active.length).toBeLessThanOrEqual(KEY_CAP);
    expect(active).toHaveLength(KEY_CAP - N / 2 + created);
  });
});

describe("DELETE /console/api-keys/:id in parallel", () => {
  it(`${N} revokes of one key: all answer revoked, revoked_at is written once, the key stops working`, async () => {
    const owner = await signIn(server);
    const key = await createApiKey(server, owner);
    const answers = await parallel(N, () => server.json(`/console/api-keys/${key.id}`, { method: "DELETE", headers: owner.headers }));
    expectNoServerErrors(answers);
    expect(answers.map((a) => a.body.data?.revoked)).toEqual(Array(N).fill(true));
    const row = await server.deps.db.selectFrom("api_keys").select("revoked_at").where("id", "=", key.id).executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();
    expect((await server.json("/console/api-keys", { headers: owner.headers })).body.data.items[0].revoked_at).toBe(new Date(Number(row.revoked_at)).toISOString());
  });

  it(`${N} different keys revoked at once: none left active`, async () => {
    const owner = await signIn(server);
    const keys: CreatedApiKey[] = [];
    for (let i = 0; i < N; i++) keys.push(await createApiKey(server, owner, `k${i}`));
    const answers = await parallel(N, (i) => server.json(`/console/api-keys/${keys[i]!.id}`, { method: "DELETE", headers: owner.headers }));
    expectNoServerErrors(answers);
    expect(tally(answers).status).toEqual({ 200: N });
    expect(await activeKeys(owner.userId)).toHaveLength(0);
  });
});

/** `count` more sessions of the owner's account (one sign-in a minute of the test clock). */
async function moreSessions(owner: SignedIn, count: number): Promise<SignedIn[]> {
  const sessions: SignedIn[] = [];
  for (let i = 0; i < count; i++) {
    server.clock.advance(61_000);
    sessions.push(await signIn(server, owner.phone.slice(3)));
  }
  return sessions;
}

describe("sessions in parallel", () => {
  it(`${N} DELETEs of one other session: exactly one revokes it, the others find nothing (404)`, async () => {
    const owner = await signIn(server);
    const [victim] = await moreSessions(owner, 1);
    const answers = await parallel(N, () => server.json(`/console/sessions/${victim!.sessionId}`, { method: "DELETE", headers: owner.headers }));
    expectNoServerErrors(answers);
    expect(tally(answers)).toEqual({ status: { 200: 1, 404: N - 1 }, codes: { NOT_FOUND: N - 1 } });
    expect((await server.json("/auth/me", { headers: victim!.headers })).status).toBe(401);
  });

  it(`${N} revoke-others at once: the revoked counts add up to the other sessions, the current one stays`, async () => {
    const owner = await signIn(server);
    const others = await moreSessions(owner, N);
    // The newest sign-in is the current session; the first one is among "the others".
    const current = others.pop()!;
    const answers = await parallel(N, () => server.json("/console/sessions/revoke-others", { method: "POST", headers: current.headers }));
    expectNoServerErrors(answers);
    expect(answers.reduce((sum, a) => sum + a.body.data.revoked, 0)).toBe(N);
    const live = await server.deps.db.selectFrom("sessions").select("id").where("user_id", "=", owner.userId).where("revoked_at", "is", null).execute();
    expect(live.map((s) => s.id)).toEqual([current.sessionId]);
    expect((await server.json("/auth/me", { headers: current.headers })).status).toBe(200);
  });
});

describe("POST /contact in parallel", () => {
  const inquiry = (i: number) => ({ name: `Person ${i}`, email: `p${i}@example.com`, company: "Example Ltd", message: "We would like an enterprise plan, please." });

  it(`${N} inquiries from ${N} addresses: ${N} stored, distinct ids`, async () => {
    const answers = await parallel(N, (i) => server.json("/contact", { method: "POST", body: inquiry(i), headers: { "x-forwarded-for": freshAddress() } }));
    expectNoServerErrors(answers);
    const ids = answers.map((a) => a.body.data.id);
    expect(new Set(ids).size).toBe(N);
    expect(await server.deps.db.selectFrom("contact_inquiries").select("id").where("id", "in", ids).execute()).toHaveLength(N);
  });

  it(`${N} inquiries from one address: exactly its hourly limit (${CONTACT_CAP}) stored`, async () => {
    const address = freshAddress();
    const answers = await parallel(N, (i) => server.json("/contact", { method: "POST", body: inquiry(i), headers: { "x-forwarded-for": address } }));
    expectNoServerErrors(answers);
    expect(tally(answers)).toEqual({ status: { 200: CONTACT_CAP, 429: N - CONTACT_CAP }, codes: { RATE_LIMITED: N - CONTACT_CAP } });
    expect(await server.deps.db.selectFrom("contact_inquiries").select("id").where("ip", "=", address).execute()).toHaveLength(CONTACT_CAP);
  });
});
