import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from "kysely";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "../../db/db.ts";
import { ensureAccount, startTestServer, type TestServer } from "../../../testing/index.ts";
import { startTestReceiver, type TestReceiver } from "../../../testing/webhook-receiver.ts";
import { type WebhookEnv } from "../env.ts";
import { createSubscription, queueTestEvent } from "../subscriptions/subscriptions.ts";
import { ir21Headers } from "../../../testing/webhooks.ts";
import { claimDue, claimDueReporting, recordAndClaim, recordOutcomes, type AttemptRecord, type Recording } from "./queue.ts";
import { OutcomeRecorder } from "./recorder.ts";
import { DeliveryWorker } from "./worker.ts";

let server: TestServer;
let env: WebhookEnv;
let receiver: TestReceiver;
const userId = "usr_recorder00000000000000";

beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  env = server.deps.webhooks;
  await ensureAccount(server, userId);
});
afterAll(() => server.close());
beforeEach(async () => {
  receiver = await startTestReceiver();
});
afterEach(async () => {
  await receiver.close();
  await server.deps.db.updateTable("webhook_deliveries").set({ status: "cancelled", next_attempt_at: null }).where("status", "=", "pending").execute();
});

async function queueMany(n: number, subscriptions = 1): Promise<string[]> {
  const ids: string[] = [];
  for (let s = 0; s < subscriptions; s++) {
    const { item } = await createSubscription(env, userId, { url: `${receiver.url}/hook/${s}`, events: ["ir21.catalog.updated"] });
    for (let i = 0; i < n; i++) ids.push((await queueTestEvent(env, userId, item.id, { version: "v1" })).deliveryId);
  }
  return ids;
}

/** Counts the statements that reach the database by kind and table, and can make one kind fail (a crash at that write). */
function watchedDb(db: Db, failOn?: (kind: string, table: string) => boolean) {
  const seen: Array<{ kind: string; table: string }> = [];
  const tableOf = (node: RootOperationNode): string => {
    const n = node as unknown as { into?: { table: { identifier: { name: string } } }; table?: { table: { identifier: { name: string } } } };
    return n.into?.table.identifier.name ?? n.table?.table.identifier.name ?? "";
  };
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs) {
      const entry = { kind: args.node.kind, table: tableOf(args.node) };
      seen.push(entry);
      if (failOn?.(entry.kind, entry.table)) throw new Error(`simulated crash at ${entry.kind} ${entry.table}`);
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      return args.result;
    },
  };
  return { db: db.withPlugin(plugin) as Db, seen };
}

const attempt = (over: Partial<AttemptRecord> = {}): AttemptRecord => ({
  kind: "scheduled",
  attemptedAt: server.clock.now().getTime(),
  durationMs: 3,
  responseStatus: 200,
  error: null,
  responseExcerpt: "ok",
  responseHeaders: { "content-type": "text/plain" },
  responseTruncated: false,
  ...over,
});

describe("results recorded in batches", () => {
  it("one transaction writes exactly the results whose fence holds, each with its own values", async () => {
    const ids = await queueMany(5);
    const now = server.clock.now().getTime();
    const claims = await claimDue(server.deps.db, { owner: "batcher", now, leaseMs: 60_000, limit: 10 });
    const claim = (i: number) => claims.find((c) => c.deliveryId === ids[i])!;
    const recordings: Recording[] = [
      { kind: "attempt", claim: claim(0), now, attemptNo: 1, attempt: attempt(), outcome: { status: "delivered", nextAttemptAt: null } },
      {
        kind: "attempt",
        claim: claim(1),
        now: now + 1,
        attemptNo: 1,
        attempt: attempt({ responseStatus: 503, error: "http_status: HTTP 503", responseExcerpt: "busy" }),
        outcome: { status: "pending", nextAttemptAt: now + 5_001 },
      },
      // A stale token (another claim took the row since).
      { kind: "attempt", claim: { ...claim(2), token: claim(2).token + 1 }, now, attemptNo: 1, attempt: attempt(), outcome: { status: "delivered", nextAttemptAt: null } },
      // Written after its lease ended.
      { kind: "attempt", claim: claim(3), now: claim(3).leaseUntil + 1, attemptNo: 1, attempt: attempt(), outcome: { status: "delivered", nextAttemptAt: null } },
      { kind: "cancel", claim: claim(4), now: now + 2, reason: "cancelled: the subscription is disabled or deleted" },
      // The same delivery twice in one batch: only the first counts.
      { kind: "attempt", claim: claim(0), now, attemptNo: 1, attempt: attempt(), outcome: { status: "delivered", nextAttemptAt: null } },
    ];
    expect(await recordOutcomes(server.deps.db, recordings)).toEqual([true, true, false, false, true, false]);

    const rows = new Map((await server.deps.db.selectFrom("webhook_deliveries").selectAll().where("id", "in", ids).execute()).map((r) => [r.id, r]));
    const row = (i: number) => rows.get(ids[i]!)!;
    expect(row(0)).toMatchObject({ status: "delivered", response_status: 200, last_error: null, lease_owner: null, lease_until: null, next_attempt_at: null });
    expect(Number(row(0).attempts)).toBe(1);
    expect(Number(row(0).updated_at)).toBe(now);
    expect(row(1)).toMatchObject({ status: "pending", response_status: 503, last_error: "http_status: HTTP 503", lease_owner: null });
    expect(Number(row(1).next_attempt_at)).toBe(now + 5_001);
    expect(Number(row(1).updated_at)).toBe(now + 1);
    for (const i of [2, 3]) {
      expect(row(i)).toMatchObject({ status: "pending", lease_owner: "batcher", response_status: null });
      expect(Number(row(i).attempts)).toBe(0);
    }
    expect(row(4)).toMatchObject({ status: "cancelled", last_error: "cancelled: the subscription is disabled or deleted", next_attempt_at: null, lease_owner: null });
    expect(Number(row(4).attempts)).toBe(0);

    const attempts = await server.deps.db.selectFrom("webhook_attempts").selectAll().where("delivery_id", "in", ids).orderBy("delivery_id").execute();
    expect(attempts.map((a) => [a.delivery_id, Number(a.attempt_no), a.response_status === null ? null : Number(a.response_status), a.response_excerpt]).sort()).toEqual(
      [
        [ids[0], 1, 200, "ok"],
        [ids[1], 1, 503, "busy"],
      ].sort(),
    );
  });

  it("results that finish in the same turn share one transaction", async () => {
    const ids = await queueMany(8);
    const now = server.clock.now().getTime();
    const claims = await claimDue(server.deps.db, { owner: "grouped", now, leaseMs: 60_000, limit: 10 });
    expect(claims).toHaveLength(8);
    const watched = watchedDb(server.deps.db);
    const recorder = new OutcomeRecorder(watched.db);
    const written = await Promise.all(
      claims.map((claim) => recorder.record({ kind: "attempt", claim, now, attemptNo: 1, attempt: attempt(), outcome: { status: "delivered", nextAttemptAt: null } })),
    );
    expect(written).toEqual(claims.map(() => true));
    // One read of the fences, one UPDATE, one INSERT of the attempts for all eight.
    expect(watched.seen.filter((s) => s.table === "webhook_deliveries" && s.kind === "UpdateQueryNode")).toHaveLength(1);
    expect(watched.seen.filter((s) => s.table === "webhook_attempts" && s.kind === "InsertQueryNode")).toHaveLength(1);
    const delivered = await server.deps.db.selectFrom("webhook_deliveries").select("id").where("id", "in", ids).where("status", "=", "delivered").execute();
    expect(delivered).toHaveLength(8);
  });

  it("parallel workers on separate connections: every delivery sent and recorded once, one attempt each", async () => {
    const ids = await queueMany(10, 6);
    const extra = [openDatabase(server.deps.config.databaseUrl), openDatabase(server.deps.config.databaseUrl)];
    try {
      const workers = [env, ...extra.map((d) => ({ ...env, db: d.db }))].map((e, i) => new DeliveryWorker(e, { owner: `parallel-${i}`, batchSize: 8, concurrency: 8 }));
      const counts = await Promise.all(workers.map((w) => w.drain()));
      expect(counts.reduce((a, b) => a + b, 0)).toBe(60);
      const eventIds = receiver.requests.map((r) => ir21Headers(r.headers).eventId);
      expect(eventIds).toHaveLength(60);
      expect(new Set(eventIds).size).toBe(60);
      const rows = await server.deps.db.selectFrom("webhook_deliveries").select(["status", "attempts", "lease_owner"]).where("id", "in", ids).execute();
      expect(rows.filter((r) => r.status === "delivered" && Number(r.attempts) === 1 && r.lease_owner === null)).toHaveLength(60);
      const attempts = await server.deps.db.selectFrom("webhook_attempts").select(["delivery_id", "attempt_no"]).where("delivery_id", "in", ids).execute();
      expect(attempts).toHaveLength(60);
      expect(new Set(attempts.map((a) => a.delivery_id)).size).toBe(60);
    } finally {
      await Promise.all(extra.map((d) => d.close()));
    }
  });

  it("a crash while recording a batch leaves every delivery of it leased and unrecorded; another worker sends them again after the lease", async () => {
    const ids = await queueMany(6);
    // Every write of the attempts fails, as if the process died before the recording transaction committed.
    const crashing = watchedDb(server.deps.db, (kind, table) => kind === "InsertQueryNode" && table === "webhook_attempts");
    const doomed = new DeliveryWorker({ ...env, db: crashing.db }, { owner: "doomed", batchSize: 6, concurrency: 6, endpointConcurrency: 6 });
    expect(await doomed.drain()).toBe(6);
    expect(receiver.requests).toHaveLength(6);
    const held = await server.deps.db.selectFrom("webhook_deliveries").select(["status", "attempts", "lease_owner"]).where("id", "in", ids).execute();
    expect(held.every((r) => r.status === "pending" && Number(r.attempts) === 0 && r.lease_owner === "doomed")).toBe(true);
    expect(await server.deps.db.selectFrom("webhook_attempts").select("id").where("delivery_id", "in", ids).execute()).toHaveLength(0);

    const survivor = new DeliveryWorker(env, { owner: "survivor", batchSize: 6, concurrency: 6, endpointConcurrency: 6 });
    expect(await survivor.drain()).toBe(0); // still leased
    server.clock.advance(60_001);
    expect(await survivor.drain()).toBe(6);
    // At least once: each event twice, with the same id; recorded once.
    const eventIds = receiver.requests.map((r) => ir21Headers(r.headers).eventId!);
    expect(eventIds).toHaveLength(12);
    expect([...new Set(eventIds)].map((id) => eventIds.filter((e) => e === id).length)).toEqual([2, 2, 2, 2, 2, 2]);
    const rows = await server.deps.db.selectFrom("webhook_deliveries").select(["status", "attempts"]).where("id", "in", ids).execute();
    expect(rows.every((r) => r.status === "delivered" && Number(r.attempts) === 1)).toBe(true);
    expect(await server.deps.db.selectFrom("webhook_attempts").select("id").where("delivery_id", "in", ids).execute()).toHaveLength(6);
  });

  it("results and the next claim in one transaction: the slots the results free count at once, the cap stays exact", async () => {
    // One subscription, cap 2: two in flight, three more due.
    const ids = await queueMany(5);
    const now = server.clock.now().getTime();
    const first = await claimDue(server.deps.db, { owner: "rounds", now, leaseMs: 60_000, limit: 10, maxInFlightPerSubscription: 2 });
    expect(first).toHaveLength(2);
    // Nothing else may be claimed while both slots are held.
    expect(await claimDueReporting(server.deps.db, { owner: "other", now, leaseMs: 60_000, limit: 10, maxInFlightPerSubscription: 2 })).toEqual({ claims: [], leftBehind: true });
    const done = (claim: (typeof first)[number]): Recording => ({ kind: "attempt", claim, now, attemptNo: 1, attempt: attempt(), outcome: { status: "delivered", nextAttemptAt: null } });
    const round = await recordAndClaim(server.deps.db, first.map(done), { owner: "rounds", now, leaseMs: 60_000, limit: 10, maxInFlightPerSubscription: 2 });
    expect(round.written).toEqual([true, true]);
    // The two recorded deliveries no longer hold their slots: exactly two more, and one left behind at the cap.
    expect(round.claims).toHaveLength(2);
    expect(round.leftBehind).toBe(true);
    const firstIds = new Set(first.map((c) => c.deliveryId));
    expect(round.claims.every((c) => ids.includes(c.deliveryId) && !firstIds.has(c.deliveryId))).toBe(true);
    // What the claimed deliveries need was read in the same transaction.
    expect([...round.loaded.deliveries.keys()].sort()).toEqual(round.claims.map((c) => c.deliveryId).sort());
    expect(round.loaded.targets.size).toBe(1);
    const rows = new Map((await server.deps.db.selectFrom("webhook_deliveries").selectAll().where("id", "in", ids).execute()).map((r) => [r.id, r]));
    for (const c of first) expect(rows.get(c.deliveryId)).toMatchObject({ status: "delivered", lease_owner: null });
    for (const c of round.claims) {
      expect(rows.get(c.deliveryId)).toMatchObject({ status: "pending", lease_owner: "rounds" });
      expect(Number(rows.get(c.deliveryId)!.lease_token)).toBe(c.token);
    }
    // Once the last one is taken, nothing is left behind.
    const last = await recordAndClaim(server.deps.db, round.claims.map(done), { owner: "rounds", now, leaseMs: 60_000, limit: 10, maxInFlightPerSubscription: 2 });
    expect(last.claims).toHaveLength(1);
    expect(last.leftBehind).toBe(false);
  });

  it("a failure in the claim of a recording transaction records nothing and claims nothing", async () => {
    const ids = await queueMany(4);
    const now = server.clock.now().getTime();
    const first = await claimDue(server.deps.db, { owner: "all-or-nothing", now, leaseMs: 60_000, limit: 2 });
    // The claim's heartbeat write fails, after the results were written in the same transaction.
    const crashing = watchedDb(server.deps.db, (kind, table) => kind === "InsertQueryNode" && table === "webhook_workers");
    const recordings: Recording[] = first.map((claim) => ({ kind: "attempt", claim, now, attemptNo: 1, attempt: attempt(), outcome: { status: "delivered", nextAttemptAt: null } }));
    await expect(recordAndClaim(crashing.db, recordings, { owner: "all-or-nothing", now, leaseMs: 60_000, limit: 2 })).rejects.toThrow(/simulated crash/);
    const rows = await server.deps.db.selectFrom("webhook_deliveries").select(["id", "status", "attempts", "lease_owner"]).where("id", "in", ids).execute();
    expect(rows.filter((r) => r.status === "pending" && Number(r.attempts) === 0)).toHaveLength(4);
    expect(rows.filter((r) => r.lease_owner === "all-or-nothing").map((r) => r.id).sort()).toEqual(first.map((c) => c.deliveryId).sort());
    expect(await server.deps.db.selectFrom("webhook_attempts").select("id").where("delivery_id", "in", ids).execute()).toHaveLength(0);
    // The recorder then writes the results alone (no claim), and they are kept.
    expect(await recordOutcomes(server.deps.db, recordings)).toEqual([true, true]);
  });

  it("a claim that finds nothing due leaves nothing behind", async () => {
    const now = server.clock.now().getTime();
    expect(await claimDueReporting(server.deps.db, { owner: "idle", now, leaseMs: 60_000, limit: 4, maxInFlightPerSubscription: 2 })).toEqual({ claims: [], leftBehind: false });
  });
});
