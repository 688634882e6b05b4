import { Agent, request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../testing/index.ts";
import { credentialHash, credentialHashOn } from "./credential-cache.ts";

describe("credentialHashOn", () => {
  it("is the secret's hash, whichever key came before on the connection or on another", () => {
    const one = {};
    const other = {};
    const a = "ir21_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    // Same length, one letter apart, at the end and at the start: never the remembered hash.
    const b = `${a.slice(0, -1)}b`;
    const c = `j${a.slice(1)}`;
    for (const [connection, secret] of [[one, a], [one, a], [one, b], [one, c], [other, c], [one, a], [other, "short"], [one, ""]] as const) {
      expect(credentialHashOn(connection, secret), secret).toBe(credentialHash(secret));
    }
  });
});

/**
 * A keep-alive connection presents a key, then another, a revoked one and a wrong one: every request
 * is judged by its own key, on the lookup's own lane (GET /v1/lookup) and through the app (the other
 * data routes) alike.
 */
describe("API keys on one keep-alive connection", () => {
  let server: TestServer;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  beforeAll(async () => {
    server = await startTestServer({ dataset: "demo" });
  });
  afterAll(async () => {
    agent.destroy();
    await server.close();
  });

  const get = (path: string, apiKey: string) =>
    new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
      const url = new URL(path, server.url);
      const req = request({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers: { "x-api-key": apiKey }, agent }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, reused: req.reusedSocket }));
      });
      req.on("error", reject);
      req.end();
    });

  it("answers each request by the key it presents", async () => {
    const alice = await createApiKey(server, await signIn(server));
    const bob = await createApiKey(server, await signIn(server));
    const wrong = `${alice.key.slice(0, -1)}${alice.key.endsWith("A") ? "B" : "A"}`;
    for (const path of ["/v1/lookup?number=%2B8613912345678&fields=number", "/v1/number-ranges?limit=1"]) {
      const statuses: number[] = [];
      for (const key of [alice.key, alice.key, bob.key, alice.key, wrong]) statuses.push((await get(path, key)).status);
      expect(statuses, path).toEqual([200, 200, 200, 200, 401]);
    }
    const owner = await signIn(server);
    const carol = await createApiKey(server, owner);
    for (const path of ["/v1/lookup?number=%2B8613912345678&fields=number", "/v1/number-ranges?limit=1"]) {
      expect((await get(path, carol.key)).status, path).toBe(200);
    }
    expect((await server.json(`/console/api-keys/${carol.id}`, { method: "DELETE", headers: owner.headers })).status).toBe(200);
    const after: { status: number; reused: boolean }[] = [];
    for (const path of ["/v1/lookup?number=%2B8613912345678&fields=number", "/v1/number-ranges?limit=1"]) after.push(await get(path, carol.key), await get(path, bob.key));
    expect(after.map((a) => a.status)).toEqual([401, 200, 401, 200]);
    // One connection throughout: the remembered key was there to be (mis)used.
    expect(after.every((a) => a.reused)).toBe(true);
  });
});
