import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../db/db.ts";
import { ensureAccount, startTestServer, type TestServer } from "../../../testing/index.ts";
import { testTarget } from "../../../testing/databases.ts";
import { type WebhookEnv } from "../env.ts";
import { cancelClaimed, claimDue, claimDueReporting, completeAttempt, DELIVERY_RETENTION_MS, heartbeat, purgeFinishedDeliveries, releaseExpiredLeases } from "./queue.ts";
import { queueTestEvent, createSubscription } from "../subscriptions/subscriptions.ts";
import { ir21Headers } from "../../../testing/webhooks.ts";
import { startTestReceiver, type TestReceiver } from "../../../testing/webhook-receiver.ts";
import { DeliveryWorker } from "./worker.ts";

let server: TestServer;
let env: WebhookEnv;
let receiver: TestReceiver;
const userId = "usr_queue0000000000000000";

beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  env = server.deps.webhooks;
  await ensureAccount(server, userId);
  await ensureAccount(server, "usr_fairness000000000000");
});
afterAll(() => server.close());
beforeEach(async () => {
  receiver = await startTestReceiver();
});
afterEach(async () => {
  await receiver.close();
  await server.deps.db.updateTable("webhook_deliveries").set({ status: "cancelled", next_attempt_at: null }).where("status", "=", "pending").execute();
});

async function queueMany(n: number): Promise<string[]> {
  const { item } = await createSubscription(env, userId, { url: `${receiver.url}/hook`, events: ["ir21.catalog.updated"] });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await queueTestEvent(env, userId, item.id, { version: "v1" })).deliveryId);
  return ids;
}

describe("delivery queue", () => {
  // MySQL/MariaDB only: two SQLite connections in one process cannot claim at once (one waits for the
  // other's write lock inside better-sqlite3, blocking the event loop); SQLite claims are serialised anyway.
  it.skipIf(testTarget() !== "mysql")("an in-flight delivery locked by another transaction (a recording's fence) still counts towards the cap, and the claim does not wait for it", async () => {
    const { item } = await createSubscription(env, "usr_fairness000000000000", { url: `${receiver.url}/fenced`, events: ["ir21.catalog.updated"] });
    for (let i = 0; i < 5; i++) await queueTestEvent(env, "usr_fairness000000000000", item.id, { version: "v1" });
    const now = server.clock.now().getTime();
    const input = (owner: string) => ({ owner, now, leaseMs: 60_000, limit: 10, maxInFlightPerSubscription: 2 });
    const held = await claimDue(server.deps.db, input("fence-holder"));
    expect(held).toHaveLength(2);
    const second = openDatabase(server.deps.config.databaseUrl);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    try {
      const holding = second.db.transaction().execute(async (trx) => {
        await trx.selectFrom("webhook_deliveries").select("id").where("id", "=", held[0]!.deliveryId).forUpdate().execute();
        locked();
        await released;
      });
      await isLocked;
      // One in-flight row is locked elsewhere: the claim still counts it (a count that skipped it would
      // see a free slot and take one more), and returns at once.
      expect(await claimDueReporting(server.deps.db, input("other"))).toEqual({ claims: [], leftBehind: true });
      release();
      await holding;
    } finally {
      release();
      await second.close();
    }
  });

  it.skipIf(testTarget() !== "mysql")("two workers claiming at once on separate connections: each claim within the cap, both together within the documented bound, the next claim at the cap takes nothing", async () => {
    // docs/webhooks.md "Fairness": on MySQL/MariaDB two claims racing at the same instant may each fill
    // the remaining slots (at most workers × cap); every claim alone, and every claim after them, keeps
    // the cap.
    const cap = 2;
    const second = openDatabase(server.deps.config.databaseUrl);
    const { item } = await createSubscription(env, "usr_fairness000000000000", { url: `${receiver.url}/race`, events: ["ir21.catalog.updated"] });
    const sub = item.id;
    try {
      for (let round = 0; round < 8; round++) {
        for (let i = 0; i < 8; i++) await queueTestEvent(env, "usr_fairness000000000000", sub, { version: "v1" });
        const now = server.clock.now().getTime();
        const input = (owner: string) => ({ owner, now, leaseMs: 60_000, limit: 8, maxInFlightPerSubscription: cap });
        const [a, b] = await Promise.all([claimDue(server.deps.db, input(`race-a-${round}`)), claimDue(second.db, input(`race-b-${round}`))]);
        expect(a.length).toBeLessThanOrEqual(cap);
        expect(b.length).toBeLessThanOrEqual(cap);
        expect(new Set([...a, ...b].map((c) => c.deliveryId)).size).toBe(a.length + b.length);
        const inFlight = await server.deps.db.selectFrom("webhook_deliveries").select("id").where("subscription_id", "=", sub).where("lease_owner", "is not", null).execute();
        expect(inFlight).toHaveLength(a.length + b.length);
        expect(inFlight.length).toBeGreaterThanOrEqual(cap);
        expect(inFlight.length).toBeLessThanOrEqual(2 * cap);
        // Both committed: a later claim by either sees every lease and takes nothing of this subscription.
        expect(await claimDue(second.db, input(`race-b-${round}`))).toEqual([]);
        await server.deps.db.updateTable("webhook_deliveries").set({ status: "cancelled", next_attempt_at: null, lease_owner: null, lease_until: null }).where("subscription_id", "=", sub).execute();
      }
    } finally {
      await second.close();
    }
  });

  it("two workers on separate connections never deliver one job twice", async () => {
    const ids = await queueMany(40);
    // A second database handle: on MySQL/MariaDB a separate pool, so the workers really race on SKIP LOCKED.
    const second = openDatabase(server.deps.config.databaseUrl);
    try {
      const otherEnv: WebhookEnv = { ...env, db: second.db };
      const a = new DeliveryWorker(env, { owner: "worker-a", batchSize: 3, concurrency: 2 });
      const b = new DeliveryWorker(otherEnv, { owner: "worker-b", batchSize: 3, concurrency: 2 });
      const [da, db] = await Promise.all([a.drain(), b.drain()]);
      expect(da + db).toBe(40);
      const eventIds = receiver.requests.map((r) => ir21Headers(r.headers).eventId);
      expect(eventIds).toHaveLength(40);
      expect(new Set(eventIds).size).toBe(40);
      const rows = await server.deps.db.selectFrom("webhook_deliveries").select(["status", "attempts"]).where("id", "in", ids).execute();
      expect(rows.every((r) => r.status === "delivered" && Number(r.attempts) === 1)).toBe(true);
      const attempts = await server.deps.db.selectFrom("webhook_attempts").select("id").where("delivery_id", "in", ids).execute();
      expect(attempts).toHaveLength(40);
    } finally {
      await second.close();
    }
  });

  it("claims are exclusive while the lease holds", async () => {
    await queueMany(3);
    const now = server.clock.now().getTime();
    const first = await claimDue(server.deps.db, { owner: "a", now, leaseMs: 60_000, limit: 10 });
    expect(first).toHaveLength(3);
    expect(await claimDue(server.deps.db, { owner: "b", now: now + 59_999, leaseMs: 60_000, limit: 10 })).toHaveLength(0);
    const again = await claimDue(server.deps.db, { owner: "b", now: now + 60_001, leaseMs: 60_000, limit: 10 });
    expect(again.map((c) => c.deliveryId).sort()).toEqual(first.map((c) => c.deliveryId).sort());
    expect(again.every((c, i) => c.token > 0 && c.token !== first.find((f) => f.deliveryId === c.deliveryId)!.token)).toBe(true);
  });

  it("crash recovery: a worker that claims and dies is replaced after its lease; its late result is fenced off", async () => {
    const [deliveryId] = await queueMany(1);
    const start = server.clock.now().getTime();
    const [dead] = await claimDue(server.deps.db, { owner: "dead-worker", now: start, leaseMs: 60_000, limit: 10 });
    expect(dead!.deliveryId).toBe(deliveryId);

    const survivor = new DeliveryWorker(env, { owner: "survivor" });
    expect(await survivor.drain()).toBe(0); // still leased
    server.clock.advance(60_001);
    expect(await releaseExpiredLeases(server.deps.db, server.clock.now().getTime())).toBe(1);
    expect(await survivor.drain()).toBe(1);
    expect(receiver.requests).toHaveLength(1);

    const late = await completeAttempt(server.deps.db, dead!, {
      now: server.clock.now().getTime(),
      attemptNo: 1,
      attempt: { kind: "scheduled", attemptedAt: start, durationMs: 1, responseStatus: 500, error: "http_status: HTTP 500", responseExcerpt: null },
      outcome: { status: "pending", nextAttemptAt: start + 5_000 },
    });
    expect(late).toBe(false);
    const row = await server.deps.db.selectFrom("webhook_deliveries").selectAll().where("id", "=", deliveryId!).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "delivered", response_status: 200, lease_owner: null });
    expect(Number(row.attempts)).toBe(1);
  });

  it("a worker whose lease expired cannot write its result even if nobody else claimed the job", async () => {
    const [deliveryId] = await queueMany(1);
    const start = server.clock.now().getTime();
    const [claim] = await claimDue(server.deps.db, { owner: "slow", now: start, leaseMs: 1_000, limit: 1 });
    const written = await completeAttempt(server.deps.db, claim!, {
      now: start + 1_001,
      attemptNo: 1,
      attempt: { kind: "scheduled", attemptedAt: start, durationMs: 1001, responseStatus: 200, error: null, responseExcerpt: null },
      outcome: { status: "delivered", nextAttemptAt: null },
    });
    expect(written).toBe(false);
    const row = await server.deps.db.selectFrom("webhook_deliveries").select(["status", "attempts"]).where("id", "=", deliveryId!).executeTakeFirstOrThrow();
    expect(row.status).toBe("pending");
  });

  it("an attempt that cannot even be prepared (secret sealed under another key) is recorded and scheduled, never a poison pill", async () => {
    const [deliveryId] = await queueMany(1);
    const sub = await server.deps.db.selectFrom("webhook_deliveries").select("subscription_id").where("id", "=", deliveryId!).executeTakeFirstOrThrow();
    await server.deps.db.updateTable("webhook_subscriptions").set({ secret_sealed: "v1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }).where("id", "=", sub.subscription_id).execute();
    expect(await new DeliveryWorker(env, { random: () => 0 }).drain()).toBe(1);
    const row = await server.deps.db.selectFrom("webhook_deliveries").selectAll().where("id", "=", deliveryId!).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "pending", last_error: expect.stringMatching(/^internal: /) });
    expect(Number(row.attempts)).toBe(1);
    expect(Number(row.next_attempt_at)).toBe(server.clock.now().getTime() + 5_000);
    expect(receiver.requests).toHaveLength(0);
  });

  it("retention: finished deliveries older than 30 days go with their attempts and events; pending ones stay", async () => {
    const [done, waiting] = await queueMany(2);
    await server.deps.db.updateTable("webhook_deliveries").set({ next_attempt_at: server.clock.now().getTime() + 3600_000 }).where("id", "=", waiting!).execute();
    await new DeliveryWorker(env).drain();
    const row = await server.deps.db.selectFrom("webhook_deliveries").select(["event_id", "updated_at"]).where("id", "=", done!).executeTakeFirstOrThrow();
    const doneEvent = row.event_id;
    const finishedAt = Number(row.updated_at);
    await purgeFinishedDeliveries(server.deps.db, { now: finishedAt + DELIVERY_RETENTION_MS });
    expect(await server.deps.db.selectFrom("webhook_deliveries").select("id").where("id", "=", done!).executeTakeFirst()).toBeDefined();
    expect(await purgeFinishedDeliveries(server.deps.db, { now: finishedAt + DELIVERY_RETENTION_MS + 1 })).toBeGreaterThanOrEqual(1);
    expect(await server.deps.db.selectFrom("webhook_deliveries").select("id").where("id", "=", done!).executeTakeFirst()).toBeUndefined();
    expect(await server.deps.db.selectFrom("webhook_attempts").select("id").where("delivery_id", "=", done!).executeTakeFirst()).toBeUndefined();
    expect(await server.deps.db.selectFrom("webhook_events").select("id").where("id", "=", doneEvent).executeTakeFirst()).toBeUndefined();
    expect(await server.deps.db.selectFrom("webhook_deliveries").select("status").where("id", "=", waiting!).executeTakeFirstOrThrow()).toEqual({ status: "pending" });
  });

  it("an enqueue that lands while a round is running is not missed (no wait for the next poll)", async () => {
    // Hold the worker's first round open (after its claim found nothing) until after the enqueue, so
    // the enqueue signal arrives mid-round.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    class HeldFirstRound extends DeliveryWorker {
      protected override async claim(limit: number) {
        const claimed = await super.claim(limit);
        if (first) {
          first = false;
          await gate;
        }
        return claimed;
      }
    }
    const worker = new HeldFirstRound(env, { owner: "race", pollIntervalMs: 60_000 });
    worker.start();
    try {
      await queueMany(1);
      release();
      for (let i = 0; i < 200 && receiver.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(receiver.requests).toHaveLength(1);
    } finally {
      release();
      await worker.stop();
    }
  });

  it("the background loop delivers a queued event without being polled by the test", async () => {
    const worker = new DeliveryWorker(env, { owner: "loop", pollIntervalMs: 60_000 });
    worker.start();
    try {
      await queueMany(1);
      // The enqueue signal wakes the loop long before its 60 s poll.
      for (let i = 0; i < 200 && receiver.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });
});

describe("per-endpoint fairness", () => {
  const fairUser = "usr_fairness000000000000";
  const until = async (check: () => boolean, what: string) => {
    // Waits for a state, never measures speed: the deadline only turns a hang into a failure.
    for (const deadline = Date.now() + 15_000; !check(); await new Promise((r) => setTimeout(r, 10))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    }
  };
  async function subscriptionWith(url: string, deliveries: number) {
    const { item } = await createSubscription(env, fairUser, { url, events: ["ir21.catalog.updated"] });
    const ids: string[] = [];
    for (let i = 0; i < deliveries; i++) ids.push((await queueTestEvent(env, fairUser, item.id, { version: "v1" })).deliveryId);
    return { id: item.id, ids };
  }
  afterEach(() => server.deps.db.deleteFrom("webhook_subscriptions").where("user_id", "=", fairUser).execute());

  it("a claim skips a subscription at its cap, counting every worker's leases, and takes the next one's deliveries", async () => {
    const a = await subscriptionWith(`${receiver.url}/a`, 5);
    server.clock.advance(1); // b's deliveries are younger: without the cap, a's would fill the claim
    const b = await subscriptionWith(`${receiver.url}/b`, 2);
    const now = server.clock.now().getTime();
    const claim = (owner: string, limit = 10) => claimDue(server.deps.db, { owner, now, leaseMs: 60_000, limit, maxInFlightPerSubscription: 2 });

    const first = await claim("worker-a");
    const ofA = first.filter((c) => a.ids.includes(c.deliveryId));
    expect(ofA).toHaveLength(2);
    expect(first.filter((c) => b.ids.includes(c.deliveryId))).toHaveLength(2);
    // Another worker sees both subscriptions at their cap, though three of a's deliveries are due.
    expect(await claim("worker-b")).toHaveLength(0);
    // One of a's attempts ends: exactly one more of a's may start.
    await cancelClaimed(server.deps.db, ofA[0]!, { now, reason: "test" });
    const next = await claim("worker-b");
    expect(next).toHaveLength(1);
    expect(a.ids).toContain(next[0]!.deliveryId);
    expect(await claim("worker-b")).toHaveLength(0);
    // Without the option nothing is capped (the queue's own tests and tools).
    expect(await claimDue(server.deps.db, { owner: "uncapped", now, leaseMs: 60_000, limit: 10 })).toHaveLength(2);
  });

  it("a claim counts leases taken one at a time by the same worker too", async () => {
    const a = await subscriptionWith(`${receiver.url}/one-by-one`, 4);
    const now = server.clock.now().getTime();
    const claim = () => claimDue(server.deps.db, { owner: "w", now, leaseMs: 60_000, limit: 1, maxInFlightPerSubscription: 2 });
    expect((await claim()).map((c) => a.ids.includes(c.deliveryId))).toEqual([true]);
    expect(await claim()).toHaveLength(1);
    expect(await claim()).toHaveLength(0);
    // An expired lease no longer counts as in flight.
    expect(await claimDue(server.deps.db, { owner: "w", now: now + 60_001, leaseMs: 60_000, limit: 10, maxInFlightPerSubscription: 2 })).toHaveLength(2);
  });

  it("crash recovery per delivery: a dead worker's deliveries wait for their lease, its subscription's others flow once its heartbeat lapses", async () => {
    const sub = await subscriptionWith(`${receiver.url}/after-crash`, 5);
    const start = server.clock.now().getTime();
    // A worker claims two (the cap) and dies without a word: no result, no heartbeat after this claim.
    const dead = await claimDue(server.deps.db, { owner: "dies", now: start, leaseMs: 60_000, limit: 10, maxInFlightPerSubscription: 2, aliveMs: 10_000 });
    expect(dead).toHaveLength(2);
    const survivor = new DeliveryWorker(env, { owner: "survives", endpointConcurrency: 2 });

    // While the dead worker's heartbeat holds, it could be a live, slow worker: its two hold the cap.
    server.clock.set(start + 10_000);
    expect(await survivor.drain()).toBe(0);
    // Its heartbeat lapses (10 s, far before the 60 s lease): the three others go out, its two wait.
    server.clock.set(start + 10_001);
    expect(await survivor.drain()).toBe(3);
    const rows = await server.deps.db.selectFrom("webhook_deliveries").select(["id", "status", "attempts"]).where("subscription_id", "=", sub.id).execute();
    const deadIds = dead.map((c) => c.deliveryId);
    expect(rows.filter((r) => !deadIds.includes(r.id)).map((r) => r.status)).toEqual(["delivered", "delivered", "delivered"]);
    expect(rows.filter((r) => deadIds.includes(r.id)).map((r) => `${r.status}/${r.attempts}`)).toEqual(["pending/0", "pending/0"]);
    expect(receiver.requests).toHaveLength(3);
    // Its own two are retried once their lease ends, not before.
    server.clock.set(start + 59_999);
    expect(await survivor.drain()).toBe(0);
    server.clock.set(start + 60_001);
    expect(await survivor.drain()).toBe(2);
    expect(receiver.requests).toHaveLength(5);
  });

  it("a live worker keeps its slots however long its attempts take: its heartbeat holds them", async () => {
    await subscriptionWith(`${receiver.url}/slow-but-alive`, 3);
    const start = server.clock.now().getTime();
    const claim = (owner: string, now: number) => claimDue(server.deps.db, { owner, now, leaseMs: 60_000, limit: 10, maxInFlightPerSubscription: 2, aliveMs: 10_000 });
    expect(await claim("slow", start)).toHaveLength(2);
    for (const at of [start + 9_000, start + 18_000, start + 27_000]) {
      await heartbeat(server.deps.db, { owner: "slow", now: at, aliveMs: 10_000 });
      expect(await claim("other", at + 5_000)).toHaveLength(0);
    }
  });

  it("a receiver that hangs until the timeout holds only its cap of lanes: a healthy receiver's deliveries all go out meanwhile", async () => {
    const hung = await startTestReceiver();
    hung.fallback = { hang: true };
    // The timeout is far beyond the test: every hanging attempt is still on the wire when we look.
    const worker = new DeliveryWorker(env, { owner: "fair", concurrency: 4, endpointConcurrency: 2, limits: { totalTimeoutMs: 600_000 }, pollIntervalMs: 60_000 });
    try {
      const slow = await subscriptionWith(`${hung.url}/slow`, 6);
      server.clock.advance(1); // the healthy receiver's deliveries queue behind the slow ones
      const healthy = await subscriptionWith(`${receiver.url}/healthy`, 5);
      worker.start();
      await until(() => receiver.requests.length === 5, "the healthy receiver's five deliveries");
      await until(() => hung.requests.length === 2, "two attempts at the hanging receiver");
      // Every healthy delivery is recorded while the slow ones still hang: none of them has ended.
      await until(() => worker.inFlight === 2, "only the two hanging attempts in flight");
      const settled = await server.deps.db.selectFrom("webhook_deliveries").select(["status", "subscription_id", "attempts"]).where("subscription_id", "in", [slow.id, healthy.id]).execute();
      expect(settled.filter((r) => r.subscription_id === healthy.id).map((r) => r.status)).toEqual(Array(5).fill("delivered"));
      expect(settled.filter((r) => r.subscription_id === slow.id).every((r) => r.status === "pending" && Number(r.attempts) === 0)).toBe(true);
      expect(hung.requests).toHaveLength(2); // the cap: the other four wait for a free slot of their own endpoint
    } finally {
      await hung.close(); // drops the hanging connections: the two attempts end as failures
      await worker.stop();
    }
  });

  it("control: without a per-endpoint cap, the hanging receiver takes every lane and the healthy one gets nothing", async () => {
    const hung = await startTestReceiver();
    hung.fallback = { hang: true };
    const worker = new DeliveryWorker(env, { owner: "unfair", concurrency: 4, endpointConcurrency: 4, limits: { totalTimeoutMs: 600_000 }, pollIntervalMs: 60_000 });
    try {
      await subscriptionWith(`${hung.url}/slow`, 6);
      server.clock.advance(1);
      await subscriptionWith(`${receiver.url}/healthy`, 5);
      worker.start();
      await until(() => hung.requests.length === 4 && worker.inFlight === 4, "four attempts at the hanging receiver");
      // Every lane is held until a timeout: nothing else can be claimed before then.
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await hung.close();
      await worker.stop();
    }
  });
});
