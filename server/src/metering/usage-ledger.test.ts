import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startDataProbe, startTestServer, testTarget, type DataProbe, type TestServer } from "../../testing/index.ts";
import { setPlanCommand } from "../app/commands/console.ts";

/*
 * Usage is counted in memory and written in batches (console/usage-ledger.ts). These tests pin what
 * that must not change: exact counts, success-only charging, no lost counts (failed writes, shutdown),
 * and quota decisions shared by instances. The flush interval is set to a minute so that only the
 * explicit flushes in a test write.
 */
const rowsOf = async (server: TestServer, userId: string) =>
  server.deps.db.selectFrom("usage_daily").select(["endpoint", "successes", "failures"]).where("user_id", "=", userId).execute();

describe("buffered usage", () => {
  let server: TestServer;
  let probe: DataProbe;
  beforeAll(async () => {
    server = await startTestServer({ env: { USAGE_FLUSH_INTERVAL_MS: "60000", PLAN_FREE_MONTHLY_QUOTA: "5" } });
    probe = await startDataProbe(server);
  });
  afterAll(async () => {
    await probe.close();
    await server.close();
  });

  it("writes no row per request; a flush writes the exact counts; the usage report includes them", async () => {
    const alice = await signIn(server);
    const key = await createApiKey(server, alice);
    for (let i = 0; i < 3; i++) expect((await probe.fetch("/v1/probe", { headers: key.headers })).status).toBe(200);
    expect((await probe.fetch("/v1/probe?status=404", { headers: key.headers })).status).toBe(404);
    expect(await rowsOf(server, alice.userId)).toEqual([]);

    const usage = await server.json("/console/usage", { headers: alice.headers });
    expect(usage.body.data).toMatchObject({ used: 3, failures: 1, by_endpoint: [{ endpoint: "GET /v1/probe", count: 3 }] });
    expect(await rowsOf(server, alice.userId)).toEqual([{ endpoint: "GET /v1/probe", successes: 3, failures: 1 }]);
    // The counts were moved, not copied: another flush adds nothing.
    await server.deps.console.ledger.flush();
    expect(await rowsOf(server, alice.userId)).toEqual([{ endpoint: "GET /v1/probe", successes: 3, failures: 1 }]);
  });

  it("concurrent requests cannot overshoot the quota within an instance (in-flight requests hold their unit)", async () => {
    const bob = await signIn(server);
    const key = await createApiKey(server, bob);
    const statuses = await Promise.all(Array.from({ length: 12 }, () => probe.fetch("/v1/probe?delay_ms=30", { headers: key.headers }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    expect((await server.json("/console/usage", { headers: bob.headers })).body.data).toMatchObject({ used: 5, failures: 7 });
  });

  it("counts survive a failed write and are written once the database takes them", async () => {
    const carol = await signIn(server);
    const key = await createApiKey(server, carol);
    for (let i = 0; i < 2; i++) await probe.fetch("/v1/probe", { headers: key.headers });
    await server.deps.db.schema.alterTable("usage_daily").renameTo("usage_daily_away").execute();
    try {
      await server.deps.console.ledger.flush();
    } finally {
      await server.deps.db.schema.alterTable("usage_daily_away").renameTo("usage_daily").execute();
    }
    expect(server.logs.text()).toContain("could not write usage counts");
    await probe.fetch("/v1/probe", { headers: key.headers });
    // Still counted for the quota while unwritten.
    expect((await server.json("/console/usage", { headers: carol.headers })).body.data).toMatchObject({ used: 3 });
    expect(await rowsOf(server, carol.userId)).toEqual([{ endpoint: "GET /v1/probe", successes: 3, failures: 0 }]);
  });
});

describe("instances sharing a database", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ env: { USAGE_FLUSH_INTERVAL_MS: "60000", PLAN_FREE_MONTHLY_QUOTA: "6", PLAN_FREE_RATE_LIMIT_PER_MINUTE: "1000" } });
    b = await startTestServer({ instanceOf: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("share one monthly quota: what one instance has written counts on the other", async () => {
    const probeA = await startDataProbe(a);
    const probeB = await startDataProbe(b);
    try {
      const alice = await signIn(a);
      const key = await createApiKey(a, alice);
      for (let i = 0; i < 4; i++) expect((await probeA.fetch("/v1/probe", { headers: key.headers })).status).toBe(200);
      await a.deps.console.ledger.flush();
      expect((await probeB.fetch("/v1/probe", { headers: key.headers })).status).toBe(200);
      expect((await probeB.fetch("/v1/probe", { headers: alice.headers })).status).toBe(200);
      const refused = await probeB.fetch("/v1/probe", { headers: key.headers });
      expect(refused.status).toBe(429);
      expect((await refused.json()).code).toBe("QUOTA_EXCEEDED");
      await b.deps.console.ledger.flush();
      expect((await a.json("/console/usage", { headers: alice.headers })).body.data).toMatchObject({ used: 6, failures: 1 });
    } finally {
      await probeA.close();
      await probeB.close();
    }
  });

  it("a stopping instance writes its buffered counts before it closes the database", async () => {
    const c = await startTestServer({ instanceOf: a });
    const probeC = await startDataProbe(c);
    const carol = await signIn(a);
    const key = await createApiKey(a, carol);
    for (let i = 0; i < 3; i++) expect((await probeC.fetch("/v1/probe", { headers: key.headers })).status).toBe(200);
    expect((await probeC.fetch("/v1/probe?status=404", { headers: key.headers })).status).toBe(404);
    await probeC.close();
    expect(await rowsOf(a, carol.userId)).toEqual([]);
    await c.close(); // graceful stop: HTTP drained, then buffered usage written, then the database closed
    expect(await rowsOf(a, carol.userId)).toEqual([{ endpoint: "GET /v1/probe", successes: 3, failures: 1 }]);
  });

  it.runIf(testTarget() === "mysql")("an operator's plan change reaches the other instance through Redis", async () => {
    const probeB = await startDataProbe(b);
    try {
      const bob = await signIn(a);
      const key = await createApiKey(a, bob);
      expect((await probeB.fetch("/v1/probe", { headers: key.headers })).headers.get("ratelimit-policy")).toBe('"minute";q=1000;w=60');
      await setPlanCommand(a.deps, bob.userId, "developer");
      let policy: string | null = null;
      for (let i = 0; i < 100 && policy !== '"minute";q=300;w=60'; i++) {
        policy = (await probeB.fetch("/v1/probe", { headers: key.headers })).headers.get("ratelimit-policy");
        if (policy !== '"minute";q=300;w=60') await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(policy).toBe('"minute";q=300;w=60');
    } finally {
      await probeB.close();
    }
  });
});
