import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type SignedIn, type TestServer } from "../../../testing/index.ts";

let server: TestServer;
let alice: SignedIn;
let key: { "x-api-key": string };
beforeAll(async () => {
  server = await startTestServer({ dataset: "demo", env: { PLAN_FREE_MONTHLY_QUOTA: "6" } });
  alice = await signIn(server);
  key = (await createApiKey(server, alice)).headers;
});
afterAll(() => server.close());

const usage = async () => (await server.json("/console/usage", { headers: alice.headers })).body.data;

describe("quota through the real console metering", () => {
  it("charges successes only, a batch per number, an export once; then 429 QUOTA_EXCEEDED", async () => {
    expect((await server.json("/v1/networks/460-00", { headers: key })).status).toBe(200);
    expect((await server.json("/v1/networks/999-99", { headers: key })).status).toBe(404);
    expect((await server.json("/v1/networks?mcc=x", { headers: key })).status).toBe(400);
    expect((await server.json("/v1/changes?since=1999-01-01.000001", { headers: alice.headers })).status).toBe(400);
    let data = await usage();
    expect(data.used).toBe(1);
    expect(data.by_endpoint).toEqual(expect.arrayContaining([expect.objectContaining({ endpoint: "GET /v1/networks/:id", count: 1 })]));

    const batch = await server.json("/v1/lookup/batch", { method: "POST", headers: key, body: { numbers: ["+8613912345678", "+8613312345678", "+447700900123"] } });
    expect(batch.status).toBe(200);
    const csv = await server.fetch("/v1/exports/operators.csv", { headers: alice.headers });
    expect(csv.status).toBe(200);
    await csv.text();
    data = await usage();
    expect(data.used).toBe(5);
    expect(data.by_endpoint).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ endpoint: "POST /v1/lookup/batch", count: 3 }),
        expect.objectContaining({ endpoint: "GET /v1/exports/:file", count: 1 }),
      ]),
    );

    expect((await server.json("/v1/operators", { headers: key })).status).toBe(200);
    const refused = await server.json("/v1/operators", { headers: key });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("QUOTA_EXCEEDED");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // The quota is shared by the account's keys and its session.
    expect((await server.json("/v1/operators", { headers: alice.headers })).status).toBe(429);
    expect((await usage()).used).toBe(6);
  });
});
