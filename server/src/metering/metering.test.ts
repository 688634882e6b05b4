import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../clock.ts";
import { createApiKey, signIn, startDataProbe, startTestServer, type DataProbe, type TestServer } from "../../testing/index.ts";
import { setPlanCommand } from "../app/commands/console.ts";
import { periodAt, shanghaiDate } from "./usage.ts";

describe("usage period (Asia/Shanghai calendar month)", () => {
  it("2026-08-31T16:30Z is already September in Shanghai", () => {
    const at = Date.parse("2026-08-31T16:30:00Z");
    expect(shanghaiDate(at)).toBe("2026-09-01");
    const period = periodAt(at);
    expect(new Date(period.startMs).toISOString()).toBe("2026-08-31T16:00:00.000Z");
    expect(new Date(period.endMs).toISOString()).toBe("2026-09-30T16:00:00.000Z");
    expect(period.firstDay).toBe("2026-09-01");
    expect(period.nextFirstDay).toBe("2026-10-01");
    expect(shanghaiDate(Date.parse("2026-08-31T15:59:59.999Z"))).toBe("2026-08-31");
    expect(new Date(periodAt(Date.parse("2026-12-31T17:00:00Z")).endMs).toISOString()).toBe("2027-01-31T16:00:00.000Z");
  });

  it("the remembered date is right wherever the next instant falls (forwards, backwards, at midnight)", () => {
    const midnight = Date.parse("2026-09-30T16:00:00Z"); // 2026-10-01 00:00 in Shanghai
    const instants = [midnight - 1, midnight, midnight - 1, midnight + 86_399_999, midnight + 86_400_000, midnight - 86_400_001, 0, midnight];
    for (const ms of instants) expect(shanghaiDate(ms), new Date(ms).toISOString()).toBe(new Date(ms + 8 * 3_600_000).toISOString().slice(0, 10));
  });
});

describe("monthly quota", () => {
  let server: TestServer;
  let probe: DataProbe;
  beforeAll(async () => {
    server = await startTestServer({ clock: new ManualClock("2026-08-31T15:00:00Z"), env: { PLAN_FREE_MONTHLY_QUOTA: "5" } });
    probe = await startDataProbe(server);
  });
  afterAll(async () => {
    await probe.close();
    await server.close();
  });

  it("counts only successes, shared by the session and every key; 429 QUOTA_EXCEEDED with Retry-After to the next period", async () => {
    const alice = await signIn(server);
    const key1 = await createApiKey(server, alice, "one");
    const key2 = await createApiKey(server, alice, "two");
    const get = (headers: Record<string, string>, query = "") => probe.fetch(`/v1/probe${query}`, { headers });

    expect((await get(key1.headers)).status).toBe(200);
    expect((await get(key2.headers)).status).toBe(200);
    const bySession = await get(alice.headers);
    expect(bySession.status).toBe(200);
    expect((await bySession.json()).data).toEqual({ access: "session" });
    // Failures are not charged.
    for (let i = 0; i < 3; i++) expect((await get(key1.headers, "?status=404")).status).toBe(404);
    // A 304 (an export or snapshot revalidated by its ETag) is neither charged nor a failure.
    expect((await get(key1.headers, "?status=304")).status).toBe(304);
    // An export counts as one, like any query.
    expect((await get(key2.headers, "?cost=1")).status).toBe(200);
    expect((await get(alice.headers)).status).toBe(200);

    const refused = await get(key2.headers);
    expect(refused.status).toBe(429);
    const body = await refused.json();
    expect(Object.keys(body).sort()).toEqual(["code", "message", "request_id"]);
    expect(body.code).toBe("QUOTA_EXCEEDED");
    // 15:00Z on Aug 31 is 23:00 in Shanghai: the period (August) ends in one hour.
    expect(refused.headers.get("retry-after")).toBe("3600");
    expect((await get(alice.headers)).status).toBe(429);

    const usage = await server.json("/console/usage", { headers: alice.headers });
    expect(usage.status).toBe(200);
    expect(usage.body.data).toMatchObject({
      period: { start: "2026-07-31T16:00:00.000Z", end: "2026-08-31T16:00:00.000Z", resets_at: "2026-08-31T16:00:00.000Z" },
      used: 5,
      quota: 5,
      by_endpoint: [{ endpoint: "GET /v1/probe", count: 5 }],
      failures: 5, // three 404s and two quota refusals
      resets_at: "2026-08-31T16:00:00.000Z",
    });
    const daily = usage.body.data.daily as Array<{ date: string; count: number }>;
    expect(daily).toHaveLength(31);
    expect(daily[0]).toEqual({ date: "2026-08-01", count: 0 });
    expect(daily.at(-1)).toEqual({ date: "2026-08-31", count: 5 });

    // Another account is not affected.
    const bob = await signIn(server);
    expect((await get(bob.headers)).status).toBe(200);

    // At the next period (midnight in Shanghai) the quota is back.
    server.clock.set("2026-08-31T16:00:00Z");
    expect((await get(key1.headers)).status).toBe(200);
    const september = await server.json("/console/usage", { headers: alice.headers });
    expect(september.body.data).toMatchObject({ used: 1, failures: 0, period: { start: "2026-08-31T16:00:00.000Z", end: "2026-09-30T16:00:00.000Z" } });
    expect(september.body.data.daily).toEqual([{ date: "2026-09-01", count: 1 }]);
  });

  it("a new account's usage is empty but complete", async () => {
    const carol = await signIn(server);
    const { body } = await server.json("/console/usage", { headers: carol.headers });
    expect(body.data).toMatchObject({ used: 0, quota: 5, by_endpoint: [], failures: 0 });
    expect(body.data.daily.every((d: { count: number }) => d.count === 0)).toBe(true);
  });
});

describe("rate limits", () => {
  let server: TestServer;
  let probe: DataProbe;
  beforeAll(async () => {
    server = await startTestServer({ env: { PLAN_FREE_RATE_LIMIT_PER_MINUTE: "3", ANONYMOUS_RATE_LIMIT_PER_MINUTE: "2", CONTACT_IP_HOURLY_LIMIT: "2" } });
    probe = await startDataProbe(server);
  });
  afterAll(async () => {
    await probe.close();
    await server.close();
  });

  it("per API key: every attempt counts (failures too); 429 RATE_LIMITED with Retry-After and RateLimit headers", async () => {
    const alice = await signIn(server);
    const key = await createApiKey(server, alice);
    const ok = await probe.fetch("/v1/probe", { headers: key.headers });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("ratelimit-policy")).toBe('"minute";q=3;w=60');
    expect(ok.headers.get("ratelimit")).toMatch(/^"minute";r=2;t=\d+$/);
    // An admitted query that fails still tells the caller where its window stands.
    const failed = await probe.fetch("/v1/probe?status=404", { headers: key.headers });
    expect(failed.status).toBe(404);
    expect((await failed.json()).code).toBe("NOT_FOUND");
    expect(failed.headers.get("ratelimit-policy")).toBe('"minute";q=3;w=60');
    expect(failed.headers.get("ratelimit")).toMatch(/^"minute";r=1;t=\d+$/);
    expect(failed.headers.get("retry-after")).toBeNull();
    expect((await probe.fetch("/v1/probe", { headers: key.headers })).status).toBe(200);
    const refused = await probe.fetch("/v1/probe", { headers: key.headers });
    expect(refused.status).toBe(429);
    expect((await refused.json()).code).toBe("RATE_LIMITED");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit")).toMatch(/^"minute";r=0;t=\d+$/);

    // Each key and each session has its own window.
    const other = await createApiKey(server, alice, "other");
    expect((await probe.fetch("/v1/probe", { headers: other.headers })).status).toBe(200);
    expect((await probe.fetch("/v1/probe", { headers: alice.headers })).status).toBe(200);

    // Rate-limited attempts are business failures, never charged.
    const usage = await server.json("/console/usage", { headers: alice.headers });
    expect(usage.body.data).toMatchObject({ used: 4, failures: 2 });
  });

  it("per anonymous address", async () => {
    expect((await probe.fetch("/v1/probe")).status).toBe(200);
    expect((await probe.fetch("/v1/probe")).status).toBe(200);
    const refused = await probe.fetch("/v1/probe");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused.headers.get("ratelimit-policy")).toBe('"minute";q=2;w=60');
  });

  it("the plan's limit applies: an operator's plan change raises it", async () => {
    const alice = await signIn(server);
    const key = await createApiKey(server, alice);
    for (let i = 0; i < 3; i++) await probe.fetch("/v1/probe", { headers: key.headers });
    expect((await probe.fetch("/v1/probe", { headers: key.headers })).status).toBe(429);
    // The operators' command (ir21-server accounts set-plan), which tells the instances' caches.
    await setPlanCommand(server.deps, alice.userId, "developer");
    const raised = await probe.fetch("/v1/probe", { headers: key.headers });
    expect(raised.status).toBe(200);
    expect(raised.headers.get("ratelimit-policy")).toBe('"minute";q=300;w=60');
  });

  it("POST /contact is limited per address", async () => {
    const inquiry = { name: "Li", email: "li@example.com", company: "Example", message: "Please call us about volume pricing." };
    expect((await server.json("/contact", { method: "POST", body: inquiry })).status).toBe(200);
    expect((await server.json("/contact", { method: "POST", body: { ...inquiry, email: "bad" } })).status).toBe(400);
    const refused = await server.json("/contact", { method: "POST", body: inquiry });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("RATE_LIMITED");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(60);
  });
});
