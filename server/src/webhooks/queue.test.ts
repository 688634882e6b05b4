import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../db/db.ts";
import { startTestServer, type TestServer } from "../testing/index.ts";
import { webhookEnv, type WebhookEnv } from "./env.ts";
import { claimDue, completeAttempt, DELIVERY_RETENTION_MS, purgeFinishedDeliveries, releaseExpiredLeases } from "./queue.ts";
import { queueTestEvent, createSubscription } from "./subscriptions.ts";
import { ir21Headers } from "./test-helpers.ts";
import { startTestReceiver, type TestReceiver } from "../testing/webhook-receiver.ts";
import { DeliveryWorker } from "./worker.ts";

let server: TestServer;
let env: WebhookEnv;
let receiver: TestReceiver;
const userId = "usr_queue0000000000000000";

beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  env = webhookEnv(server.deps);
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
      override async runOnce(): Promise<number> {
        const claimed = await super.runOnce();
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
