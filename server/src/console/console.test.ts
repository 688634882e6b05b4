import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, databaseText, signIn, startDataProbe, startTestServer, type DataProbe, type TestServer } from "../../testing/index.ts";
import { isWellFormedApiKey } from "./api-keys.ts";

let server: TestServer;
let probe: DataProbe;
beforeAll(async () => {
  server = await startTestServer();
  probe = await startDataProbe(server);
});
afterAll(async () => {
  await probe.close();
  await server.close();
});

const expectError = (body: any, code: string) => {
  expect(Object.keys(body).sort()).toEqual(["code", "message", "request_id"]);
  expect(body.code).toBe(code);
};

describe("API keys", () => {
  it("POST creates a key shown once (no-store); listings never show it again", async () => {
    const alice = await signIn(server);
    const created = await server.json("/console/api-keys", { method: "POST", headers: alice.headers, body: { name: "  production  " } });
    expect(created.status).toBe(200);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const { key, item } = created.body.data;
    expect(key).toMatch(/^ir21_[0-9A-Za-z]{49}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(item).toEqual({ id: expect.stringMatching(/^key_/), name: "production", prefix: key.slice(0, 12), created_at: server.clock.now().toISOString(), revoked_at: null, last_used_at: null });

    const list = await server.json("/console/api-keys", { headers: alice.headers });
    expect(list.status).toBe(200);
    expect(list.body.data.items).toEqual([item]);
    expect(Object.keys(list.body.data.items[0]).sort()).toEqual(["created_at", "id", "last_used_at", "name", "prefix", "revoked_at"]);
    expect(JSON.stringify(list.body)).not.toContain(key);
    expect(await databaseText(server)).not.toContain(key);
    expect(server.logs.text()).not.toContain(key);
  });

  it("a key works on data endpoints, updates last_used_at at most once a minute, and is unusable at once when revoked", async () => {
    const alice = await signIn(server);
    const { key, id, headers } = await createApiKey(server, alice);
    const lastUsed = async () => (await server.deps.db.selectFrom("api_keys").select("last_used_at").where("id", "=", id).executeTakeFirstOrThrow()).last_used_at;

    const first = await probe.fetch("/v1/probe", { headers });
    expect(first.status).toBe(200);
    expect((await first.json()).data).toEqual({ access: "apiKey" });
    const t0 = server.clock.now().getTime();
    expect(await lastUsed()).toBe(t0);
    server.clock.advance(59_000);
    await probe.fetch("/v1/probe", { headers });
    expect(await lastUsed()).toBe(t0);
    server.clock.advance(1_000);
    await probe.fetch("/v1/probe", { headers });
    expect(await lastUsed()).toBe(t0 + 60_000);
    const listed = await server.json("/console/api-keys", { headers: alice.headers });
    expect(listed.body.data.items[0].last_used_at).toBe(new Date(t0 + 60_000).toISOString());

    const revoked = await server.json(`/console/api-keys/${id}`, { method: "DELETE", headers: alice.headers });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toEqual({ revoked: true });
    const after = await probe.fetch("/v1/probe", { headers: { "x-api-key": key } });
    expect(after.status).toBe(401);
    expectError(await after.json(), "UNAUTHORIZED");
    const row = (await server.json("/console/api-keys", { headers: alice.headers })).body.data.items.find((k: any) => k.id === id);
    expect(row.revoked_at).toBe(server.clock.now().toISOString());
    // Revoking again is harmless.
    expect((await server.json(`/console/api-keys/${id}`, { method: "DELETE", headers: alice.headers })).body.data).toEqual({ revoked: true });
  });

  it("unknown, malformed and bad-checksum keys are 401", async () => {
    const alice = await signIn(server);
    const { key } = await createApiKey(server, alice);
    const flipped = key.slice(0, 20) + (key[20] === "a" ? "b" : "a") + key.slice(21);
    for (const bad of [flipped, "ir21_short", `ir21_${"0".repeat(49)}`, "garbage"]) {
      const response = await probe.fetch("/v1/probe", { headers: { "x-api-key": bad } });
      expect(response.status).toBe(401);
    }
  });

  it("an API key cannot use the console (403); no credentials is 401", async () => {
    const alice = await signIn(server);
    const { headers } = await createApiKey(server, alice);
    for (const [method, path] of [["GET", "/console/api-keys"], ["POST", "/console/api-keys"], ["GET", "/console/usage"], ["GET", "/console/sessions"], ["POST", "/console/sessions/revoke-others"], ["GET", "/console/plan"], ["GET", "/console/billing"]]) {
      const withKey = await server.json(path!, { method, headers, body: method === "POST" ? { name: "x" } : undefined });
      expect(withKey.status, `${method} ${path}`).toBe(403);
      expectError(withKey.body, "FORBIDDEN");
      const anonymous = await server.json(path!, { method, body: method === "POST" ? { name: "x" } : undefined });
      expect(anonymous.status, `${method} ${path}`).toBe(401);
      expectError(anonymous.body, "UNAUTHORIZED");
    }
  });

  it("caps active keys per account (409 API_KEY_LIMIT_REACHED)", async () => {
    const capped = await startTestServer({ env: { API_KEYS_PER_ACCOUNT: "2" } });
    try {
      const alice = await signIn(capped);
      const a = await createApiKey(capped, alice);
      await createApiKey(capped, alice);
      const third = await capped.json("/console/api-keys", { method: "POST", headers: alice.headers, body: { name: "third" } });
      expect(third.status).toBe(409);
      expectError(third.body, "API_KEY_LIMIT_REACHED");
      await capped.json(`/console/api-keys/${a.id}`, { method: "DELETE", headers: alice.headers });
      expect((await capped.json("/console/api-keys", { method: "POST", headers: alice.headers, body: { name: "third" } })).status).toBe(200);
    } finally {
      await capped.close();
    }
  });
});

describe("login sessions", () => {
  it("lists live sessions with `current`, revokes one, and revoke-others keeps the current session and the keys", async () => {
    const phone = (await signIn(server)).phone;
    server.clock.advance(61_000);
    const laptop = await signIn(server, phone);
    server.clock.advance(61_000);
    const phoneApp = await signIn(server, phone);
    server.clock.advance(61_000);
    const desktop = await signIn(server, phone);
    const key = await createApiKey(server, desktop);

    const list = await server.json("/console/sessions", { headers: desktop.headers });
    expect(list.status).toBe(200);
    const items = list.body.data.items as Array<{ id: string; created_at: string; expires_at: string; current: boolean }>;
    expect(items.length).toBe(4);
    expect(items[0]).toEqual({ id: desktop.sessionId, created_at: server.clock.now().toISOString(), expires_at: new Date(server.clock.now().getTime() + 30 * 86_400_000).toISOString(), current: true });
    expect(items.filter((s) => s.current)).toHaveLength(1);

    const one = await server.json(`/console/sessions/${laptop.sessionId}`, { method: "DELETE", headers: desktop.headers });
    expect(one.body.data).toEqual({ revoked: true, current: false });
    expect((await server.json("/auth/me", { headers: laptop.headers })).status).toBe(401);
    expect((await server.json(`/console/sessions/${laptop.sessionId}`, { method: "DELETE", headers: desktop.headers })).status).toBe(404);

    const others = await server.json("/console/sessions/revoke-others", { method: "POST", headers: desktop.headers });
    expect(others.status).toBe(200);
    expect(others.body.data).toEqual({ revoked: 2 });
    expect((await server.json("/auth/me", { headers: phoneApp.headers })).status).toBe(401);
    expect((await server.json("/auth/me", { headers: desktop.headers })).status).toBe(200);
    expect((await probe.fetch("/v1/probe", { headers: key.headers })).status).toBe(200);
    expect((await server.json("/console/sessions", { headers: desktop.headers })).body.data.items).toHaveLength(1);
  });

  it("revoking the current session answers current: true and clears the cookie", async () => {
    const alice = await signIn(server);
    const response = await server.fetch(`/console/sessions/${alice.sessionId}`, { method: "DELETE", headers: alice.headers });
    expect((await response.json()).data).toEqual({ revoked: true, current: true });
    expect(response.headers.getSetCookie().some((c) => c.startsWith("ir21_session=;") || /ir21_session=.*Max-Age=0/.test(c))).toBe(true);
    expect((await server.json("/auth/me", { headers: alice.headers })).status).toBe(401);
  });
});

describe("tenant isolation", () => {
  it("account B can neither see nor change A's keys or sessions (404)", async () => {
    const alice = await signIn(server);
    const bob = await signIn(server);
    const aliceKey = await createApiKey(server, alice, "alice's");

    const bobKeys = await server.json("/console/api-keys", { headers: bob.headers });
    expect(bobKeys.body.data.items.find((k: any) => k.id === aliceKey.id)).toBeUndefined();
    const revokeKey = await server.json(`/console/api-keys/${aliceKey.id}`, { method: "DELETE", headers: bob.headers });
    expect(revokeKey.status).toBe(404);
    expectError(revokeKey.body, "NOT_FOUND");
    expect((await probe.fetch("/v1/probe", { headers: aliceKey.headers })).status).toBe(200);

    const bobSessions = await server.json("/console/sessions", { headers: bob.headers });
    expect(bobSessions.body.data.items.map((s: any) => s.id)).toEqual([bob.sessionId]);
    const revokeSession = await server.json(`/console/sessions/${alice.sessionId}`, { method: "DELETE", headers: bob.headers });
    expect(revokeSession.status).toBe(404);
    expect((await server.json("/auth/me", { headers: alice.headers })).status).toBe(200);
    await server.json("/console/sessions/revoke-others", { method: "POST", headers: bob.headers });
    expect((await server.json("/auth/me", { headers: alice.headers })).status).toBe(200);
  });
});

describe("plan and billing", () => {
  it("GET /console/plan lists the provisional plans with the account's current plan", async () => {
    const alice = await signIn(server);
    const { status, body } = await server.json("/console/plan", { headers: alice.headers });
    expect(status).toBe(200);
    expect(body.data.current_plan).toBe("free");
    expect(body.data.pricing_is_provisional).toBe(true);
    expect(body.data.payment_enabled).toBe(false);
    expect(body.data.plans.map((p: any) => p.id)).toEqual(["free", "developer", "business", "enterprise"]);
    for (const plan of body.data.plans) {
      expect(Object.keys(plan).sort()).toEqual(["id", "monthly_quota", "name", "price", "provisional", "rate_limit_per_minute"]);
      expect(plan.provisional).toBe(true);
    }
    expect(body.data.plans[1].price).toEqual({ amount: 199, currency: "CNY", interval: "month" });
    expect(body.data.plans[3].price).toBeNull();
  });

  it("GET /console/billing: no bills, payment disabled", async () => {
    const alice = await signIn(server);
    const { status, body } = await server.json("/console/billing", { headers: alice.headers });
    expect(status).toBe(200);
    expect(body.data).toEqual({ items: [], payment_enabled: false });
  });
});

describe("bad input on every console route: 400 with the error body", () => {
  it.each([
    ["POST", "/console/api-keys", { name: "" }, /^name: /],
    ["POST", "/console/api-keys", { name: "x".repeat(65) }, /^name: /],
    ["POST", "/console/api-keys", { name: 42 }, /^name: /],
    ["POST", "/console/api-keys", {}, /^name: /],
    ["POST", "/console/api-keys", { name: "ok", extra: 1 }, /extra/],
    ["POST", "/console/api-keys", "[1]", /object/],
    ["POST", "/console/api-keys", '{"name": ', /JSON/],
    ["DELETE", "/console/api-keys/not-an-id", undefined, /^id: /],
    ["DELETE", "/console/api-keys/ses_0000000000000000000000000", undefined, /^id: /],
    ["DELETE", "/console/sessions/key_0000000000000000000000000", undefined, /^id: /],
    ["POST", "/console/sessions/revoke-others", { everything: true }, /everything/],
    ["GET", "/console/api-keys?limit=5", undefined, /limit/],
    ["GET", "/console/sessions?x=1", undefined, /x/],
    ["GET", "/console/usage?month=2026-01", undefined, /month/],
    ["GET", "/console/plan?id=free", undefined, /id/],
    ["GET", "/console/billing?page=2", undefined, /page/],
  ])("%s %s %j", async (method, path, body, message) => {
    const alice = await signIn(server);
    const { status, body: error } = await server.json(path, {
      method,
      headers: { ...alice.headers, ...(typeof body === "string" ? { "content-type": "application/json" } : {}) },
      body,
    });
    expect(status).toBe(400);
    expect(["INVALID_REQUEST", "MALFORMED_JSON"]).toContain(error.code);
    expectError(error, error.code);
    expect(error.message).toMatch(message);
  });
});
