import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialHash } from "./credential-cache.ts";
import { createApiKey, randomPhone, signIn, startTestServer, type TestServer } from "../../testing/index.ts";

/*
 * Two instances of one deployment (one database; with the mysql target one Redis) behind a load
 * balancer: a credential revoked through one must stop working on the other although both cache
 * resolved credentials (docs/auth.md "Revocation"). The caches' TTL is set to a minute here, so on
 * Redis nothing but the invalidation message can explain a 401 within a second.
 */

/** Polls until the server answers 401 to a data request; how long it took (ms), or null after `withinMs`. */
async function msUntil401(server: TestServer, headers: Record<string, string>, withinMs: number): Promise<number | null> {
  const started = performance.now();
  while (performance.now() - started < withinMs) {
    if ((await server.fetch("/v1/meta", { headers })).status === 401) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return null;
}

describe.runIf(process.env.IR21_TEST_DB === "mysql")("revocation across instances (shared Redis)", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ dataset: "demo", env: { CREDENTIAL_CACHE_SECONDS: "60" } });
    b = await startTestServer({ instanceOf: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("an API key revoked on one instance is refused by the other within the message's delivery", async () => {
    const alice = await signIn(a);
    const key = await createApiKey(a, alice);
    expect((await b.fetch("/v1/meta", { headers: key.headers })).status).toBe(200); // now cached on b
    expect((await b.fetch("/v1/meta", { headers: key.headers })).status).toBe(200);
    expect(b.deps.credentials.get(credentialHash(key.key))).toMatchObject({ kind: "apiKey", id: key.id });
    expect((await a.json(`/console/api-keys/${key.id}`, { method: "DELETE", headers: alice.headers })).status).toBe(200);
    expect((await a.fetch("/v1/meta", { headers: key.headers })).status).toBe(401); // the revoking instance: at once
    expect(await msUntil401(b, key.headers, 1000)).not.toBeNull();
  });

  it("sessions: revoke by id, revoke-others and logout reach the other instance; the kept session and keys still work there", async () => {
    const phone = randomPhone();
    const next = async () => {
      a.clock.advance(61_000); // the resend interval between codes to one phone
      return signIn(a, phone);
    };
    const laptop = await next();
    const tablet = await next();
    const desktop = await next();
    const leaving = await next();
    const key = await createApiKey(a, desktop);
    for (const s of [laptop, tablet, desktop, leaving]) {
      expect((await b.fetch("/v1/meta", { headers: s.headers })).status).toBe(200);
      expect(b.deps.credentials.get(credentialHash(s.token))).toMatchObject({ kind: "session", id: s.sessionId });
    }
    expect((await b.fetch("/v1/meta", { headers: key.headers })).status).toBe(200);

    expect((await a.json(`/console/sessions/${laptop.sessionId}`, { method: "DELETE", headers: desktop.headers })).status).toBe(200);
    expect(await msUntil401(b, laptop.headers, 1000)).not.toBeNull();
    expect((await b.fetch("/v1/meta", { headers: tablet.headers })).status).toBe(200);

    expect((await a.json("/auth/logout", { method: "POST", headers: leaving.headers })).status).toBe(200);
    expect(await msUntil401(b, leaving.headers, 1000)).not.toBeNull();

    expect((await a.json("/console/sessions/revoke-others", { method: "POST", headers: desktop.headers })).body.data).toEqual({ revoked: 1 });
    expect(await msUntil401(b, tablet.headers, 1000)).not.toBeNull();
    expect((await b.fetch("/v1/meta", { headers: desktop.headers })).status).toBe(200);
    expect((await b.fetch("/v1/meta", { headers: key.headers })).status).toBe(200);
  });
});

describe.runIf(process.env.IR21_TEST_DB !== "mysql")("revocation across instances without Redis", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ dataset: "demo", env: { CREDENTIAL_CACHE_SECONDS: "2" } });
    b = await startTestServer({ instanceOf: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("the other instance refuses a revoked key once its cache entry expires (the documented TTL bound)", async () => {
    const alice = await signIn(a);
    const key = await createApiKey(a, alice);
    expect((await b.fetch("/v1/meta", { headers: key.headers })).status).toBe(200);
    const cachedAt = performance.now();
    await a.json(`/console/api-keys/${key.id}`, { method: "DELETE", headers: alice.headers });
    expect((await a.fetch("/v1/meta", { headers: key.headers })).status).toBe(401);
    // Nothing tells b: it answers from its cache…
    expect((await b.fetch("/v1/meta", { headers: key.headers })).status).toBe(200);
    // …until the entry's two seconds are over.
    expect(await msUntil401(b, key.headers, 4000)).not.toBeNull();
    expect(performance.now() - cachedAt).toBeLessThan(2000 + 1000);
  });
});
