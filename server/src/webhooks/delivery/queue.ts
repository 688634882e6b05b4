import { sql } from "kysely";
import type { Db } from "../../db/db.ts";
import { dialectOf } from "../../db/db.ts";
import { forUpdate, writeTransaction } from "../../db/transaction.ts";
import { newId } from "../../ids.ts";
import type { DeliveryStatus } from "../../contract/webhooks.ts";

/**
 * The delivery queue is the webhook_deliveries table (docs/webhooks.md "Queue"): a pending row whose
 * next_attempt_at has come and whose lease is free or expired is claimable. A claim sets a lease and
 * bumps the fencing token; a result is written only with the token of the current claim, while the
 * lease holds and the row is still pending, so a worker that stalled past its lease (and was replaced)
 * cannot overwrite anything. At-least-once: a worker that dies after sending but before writing leaves
 * the row to be claimed again when the lease expires, and the receiver deduplicates on the event id.
 */

export interface Claim {
  deliveryId: string;
  subscriptionId: string;
  /** The fencing token this claim holds. */
  token: number;
  leaseUntil: number;
}

/** How many due rows a claim looks at per delivery it wants, to find endpoints below their cap. */
const CANDIDATES_PER_CLAIM = 4;

/**
 * How long a worker counts as alive after its last claim or heartbeat, unless told otherwise
 * (docs/webhooks.md "Crash recovery"): a worker beats every {@link HEARTBEAT_EVERY_MS} of real time, so
 * a live one never lapses; a dead one stops blocking its subscriptions' other deliveries this long
 * after its last beat.
 */
export const WORKER_ALIVE_MS = 10_000;
export const HEARTBEAT_EVERY_MS = 2_000;

/**
 * Records that `owner` is alive until `now + aliveMs` (creating its row on the first beat). Part of
 * every claim, and beaten by a running worker in between, so in-flight deliveries of a live worker
 * always count towards their subscription's cap.
 */
export async function heartbeat(db: Db, input: { owner: string; now: number; aliveMs?: number }): Promise<void> {
  const aliveUntil = input.now + (input.aliveMs ?? WORKER_ALIVE_MS);
  await writeTransaction(db, async (trx) => {
    const insert = trx.insertInto("webhook_workers").values({ owner: input.owner, alive_until: aliveUntil, started_at: input.now });
    if (dialectOf(trx) === "mysql") await insert.onDuplicateKeyUpdate({ alive_until: aliveUntil }).execute();
    else await insert.onConflict((oc) => oc.column("owner").doUpdateSet({ alive_until: aliveUntil })).execute();
  });
}

/** A worker that stops cleanly leaves: its row goes (its deliveries have finished and recorded). */
export async function retireWorker(db: Db, owner: string): Promise<void> {
  await writeTransaction(db, (trx) => trx.deleteFrom("webhook_workers").where("owner", "=", owner).execute());
}

/**
 * Claims up to `limit` due deliveries for `owner` until `now + leaseMs`, oldest first, while keeping
 * every subscription at or below `maxInFlightPerSubscription` deliveries in flight across all workers
 * (docs/webhooks.md "Fairness"): a subscription at its cap is skipped, so a slow receiver cannot take
 * every lane. Without the cap option, nothing is skipped. In flight means pending, leased, and leased
 * by a worker that is alive (its heartbeat has not lapsed): a dead worker's deliveries wait for their
 * lease to expire, but from the moment its heartbeat lapses they no longer hold their subscription's
 * slots, so its other deliveries flow (docs/webhooks.md "Crash recovery"). The claim also beats the
 * owner's heartbeat, `aliveMs` (default {@link WORKER_ALIVE_MS}), unless the caller says its last
 * beat still holds (`beat: false`).
 *
 * SQLite has one writer at a time: a single UPDATE ... WHERE id IN (subquery) RETURNING counts and
 * claims atomically, so the cap is exact, across processes too. MySQL/MariaDB: in one transaction,
 * one SELECT ... FOR UPDATE SKIP LOCKED counts the in-flight rows (a non-locking derived table) and
 * takes the oldest due rows of subscriptions below the cap, keep at most (cap - in flight) per
 * subscription, one UPDATE claims those; concurrent workers take
 * disjoint rows without waiting on each other. The count is a plain read, so two claims racing on the
 * same subscription can each fill its remaining slots: the bound is the cap per claim running at that
 * instant (at most workers × cap), which the next claims then respect again.
 */
export async function claimDue(db: Db, input: ClaimInput): Promise<Claim[]> {
  return (await claimDueReporting(db, input)).claims;
}

export interface ClaimInput {
  owner: string;
  now: number;
  leaseMs: number;
  limit: number;
  maxInFlightPerSubscription?: number;
  aliveMs?: number;
  /**
   * false: the caller knows the owner's heartbeat, committed earlier, holds well past `now` (worker.ts
   * "#beatWithClaim"), so the claim skips its heartbeat write: one statement (one round trip on
   * MySQL/MariaDB) less per claim. Default true: the claim beats, as a claim by an unknown caller must.
   */
  beat?: boolean;
}

/**
 * {@link claimDue}, also saying whether due deliveries were left behind although the claim got fewer
 * than `limit`: their subscriptions were at the cap (slots held by this or another worker) or, on
 * MySQL/MariaDB, another claim had them locked. A worker then claims again as soon as one of its own
 * deliveries finishes (a slot may have come free by then), instead of waiting for an enqueue or the
 * next poll (worker.ts). Costs one indexed read, and only after a claim that came back short.
 */
export async function claimDueReporting(db: Db, input: ClaimInput): Promise<{ claims: Claim[]; leftBehind: boolean }> {
  if (input.limit <= 0) return { claims: [], leftBehind: false };
  const leaseUntil = input.now + input.leaseMs;
  const cap = input.maxInFlightPerSubscription ?? Number.MAX_SAFE_INTEGER;
  const window = input.limit * CANDIDATES_PER_CLAIM;

  return writeTransaction(db, async (trx) => {
    if (input.beat !== false) await heartbeat(trx, { owner: input.owner, now: input.now, aliveMs: input.aliveMs });
    if (dialectOf(trx) === "mysql") {
      // One statement (one round trip) counts and selects: busy is the in-flight count per subscription
      // (leased by a live worker), read in a derived table; the candidates are the oldest due rows of
      // subscriptions below the cap, locked with SKIP LOCKED. In a locking SELECT, MariaDB/InnoDB reads
      // a derived table without locking (a consistent read, as the separate count before was): an
      // in-flight row locked by another transaction (a recording's fence) is counted and never waited
      // for, and only the candidates are locked (queue.test.ts proves both). `saturated` says whether
      // subscriptions at the cap were left out (for leftBehind), on every row alike.
      const alive = sql`SELECT owner FROM webhook_workers WHERE alive_until >= ${input.now}`;
      const candidates = (
        await sql<{ id: string; subscription_id: string; lease_token: number; busy: number; saturated: number }>`
          WITH busy AS (
            SELECT subscription_id, COUNT(*) AS n FROM webhook_deliveries
            WHERE lease_until >= ${input.now} AND status = 'pending' AND lease_owner IN (${alive})
            GROUP BY subscription_id
          )
          SELECT d.id, d.subscription_id, d.lease_token, COALESCE(b.n, 0) AS busy,
            (SELECT COUNT(*) FROM busy WHERE n >= ${cap}) AS saturated
          FROM webhook_deliveries d LEFT JOIN busy b ON b.subscription_id = d.subscription_id
          WHERE d.status = 'pending' AND d.next_attempt_at <= ${input.now}
            AND (d.lease_until IS NULL OR d.lease_until < ${input.now})
            AND COALESCE(b.n, 0) < ${cap}
          ORDER BY d.next_attempt_at
          LIMIT ${window}
          FOR UPDATE SKIP LOCKED`.execute(trx)
      ).rows;
      const busy = new Map<string, number>();
      const rows: typeof candidates = [];
      for (const row of candidates) {
        if (rows.length >= input.limit) break;
        const n = busy.get(row.subscription_id) ?? Number(row.busy);
        if (n >= cap) continue;
        busy.set(row.subscription_id, n + 1);
        rows.push(row);
      }
      // Short, and due rows were seen but not taken (cap), or subscriptions at their cap were not even
      // looked at. With no candidate at all the statement cannot say the latter: one indexed read does
      // (a due row still unleased is one this claim could not take).
      let leftBehind = rows.length < input.limit && (candidates.length > rows.length || Number(candidates[0]?.saturated ?? 0) > 0);
      if (candidates.length === 0) leftBehind = await dueUnleasedLeft(trx, input.now);
      if (rows.length === 0) return { claims: [], leftBehind };
      await trx
        .updateTable("webhook_deliveries")
        .set({ lease_owner: input.owner, lease_until: leaseUntil, lease_token: sql<number>`lease_token + 1` })
        .where("id", "in", rows.map((r) => r.id))
        .execute();
      return { claims: rows.map((r) => ({ deliveryId: r.id, subscriptionId: r.subscription_id, token: Number(r.lease_token) + 1, leaseUntil })), leftBehind };
    }

    // busy: in flight per subscription (leased by a live worker), counted through the index of leases
    // (0401): left to itself, SQLite's planner picks the index on status and walks every pending row,
    // the whole backlog, on every claim (docs/performance.md); candidates: the oldest due rows of
    // subscriptions below the cap; a candidate is taken when its rank within its subscription still
    // fits under the cap.
    const claimed = await sql<{ id: string; subscription_id: string; lease_token: number }>`
      UPDATE webhook_deliveries
      SET lease_owner = ${input.owner}, lease_until = ${leaseUntil}, lease_token = lease_token + 1
      WHERE id IN (
        WITH busy AS (
          SELECT subscription_id, COUNT(*) AS n FROM webhook_deliveries INDEXED BY webhook_deliveries_in_flight
          WHERE lease_until >= ${input.now} AND status = 'pending'
            AND lease_owner IN (SELECT owner FROM webhook_workers WHERE alive_until >= ${input.now})
          GROUP BY subscription_id
        ),
        candidates AS (
          SELECT id, subscription_id, next_attempt_at FROM webhook_deliveries
          WHERE status = 'pending' AND next_attempt_at <= ${input.now}
            AND (lease_until IS NULL OR lease_until < ${input.now})
            AND subscription_id NOT IN (SELECT subscription_id FROM busy WHERE n >= ${cap})
          ORDER BY next_attempt_at
          LIMIT ${window}
        ),
        ranked AS (
          SELECT c.id, c.next_attempt_at,
            COALESCE(b.n, 0) + ROW_NUMBER() OVER (PARTITION BY c.subscription_id ORDER BY c.next_attempt_at, c.id) AS slot
          FROM candidates c LEFT JOIN busy b ON b.subscription_id = c.subscription_id
        )
        SELECT id FROM ranked WHERE slot <= ${cap} ORDER BY next_attempt_at LIMIT ${input.limit}
      )
      RETURNING id, subscription_id, lease_token`.execute(trx);
    const claims = claimed.rows.map((r) => ({ deliveryId: r.id, subscriptionId: r.subscription_id, token: Number(r.lease_token), leaseUntil }));
    if (claims.length === input.limit) return { claims, leftBehind: false };
    // After the UPDATE, a row still due and unleased is one the claim could not take (its subscription is at the cap).
    return { claims, leftBehind: await dueUnleasedLeft(trx, input.now) };
  });
}

/** Whether a due delivery is still unleased: after a claim, one it could not take (cap, or locked by another claim). */
async function dueUnleasedLeft(db: Db, now: number): Promise<boolean> {
  const left = await db
    .selectFrom("webhook_deliveries")
    .select("id")
    .where("status", "=", "pending")
    .where("next_attempt_at", "<=", now)
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
    .limit(1)
    .executeTakeFirst();
  return left !== undefined;
}

export interface AttemptRecord {
  kind: "scheduled" | "manual";
  attemptedAt: number;
  durationMs: number;
  responseStatus: number | null;
  error: string | null;
  responseExcerpt: string | null;
  /** The receiver's response headers as kept (answer.ts); null when no response arrived. */
  responseHeaders?: Record<string, string> | null;
  responseTruncated?: boolean;
}

export interface Outcome {
  status: DeliveryStatus;
  nextAttemptAt: number | null;
}

/** What a worker needs to send one claimed delivery: read for every delivery of a claim at once. */
export interface ClaimedDelivery {
  id: string;
  subscription_id: string;
  event_id: string;
  attempts: number;
  max_attempts: number;
  manual_retry: number;
  payload: string;
}

/** The subscription fields a delivery needs (target and secrets), read once per claim. */
export interface DeliveryTarget {
  id: string;
  url: string;
  enabled: number;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: number | null;
}

/**
 * Reads what the claimed deliveries need in ONE query however many they are (docs/webhooks.md
 * "Round trips per delivery"): the deliveries with their events' payloads and their subscriptions'
 * target and secrets, joined (a subscription's few short columns repeat per delivery, which costs
 * less than a second round trip). A delivery missing from the answer was purged meanwhile; a
 * subscription missing (the left join found none) was deleted.
 */
export async function loadClaimed(db: Db, claims: readonly Claim[]): Promise<{ deliveries: Map<string, ClaimedDelivery>; targets: Map<string, DeliveryTarget> }> {
  if (claims.length === 0) return { deliveries: new Map(), targets: new Map() };
  const rows = await db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_events as e", "e.id", "d.event_id")
    .leftJoin("webhook_subscriptions as s", "s.id", "d.subscription_id")
    .select([
      "d.id",
      "d.subscription_id",
      "d.event_id",
      "d.attempts",
      "d.max_attempts",
      "d.manual_retry",
      "e.payload",
      "s.id as target_id",
      "s.url",
      "s.enabled",
      "s.secret_sealed",
      "s.previous_secret_sealed",
      "s.previous_secret_expires_at",
    ])
    .where("d.id", "in", claims.map((c) => c.deliveryId))
    .execute();
  const deliveries = new Map<string, ClaimedDelivery>();
  const targets = new Map<string, DeliveryTarget>();
  for (const r of rows) {
    deliveries.set(r.id, {
      id: r.id,
      subscription_id: r.subscription_id,
      event_id: r.event_id,
      attempts: Number(r.attempts),
      max_attempts: Number(r.max_attempts),
      manual_retry: Number(r.manual_retry),
      payload: r.payload,
    });
    if (r.target_id !== null && !targets.has(r.target_id)) {
      targets.set(r.target_id, {
        id: r.target_id,
        url: r.url!,
        enabled: Number(r.enabled),
        secret_sealed: r.secret_sealed!,
        previous_secret_sealed: r.previous_secret_sealed ?? null,
        previous_secret_expires_at: r.previous_secret_expires_at === null || r.previous_secret_expires_at === undefined ? null : Number(r.previous_secret_expires_at),
      });
    }
  }
  return { deliveries, targets };
}

/** One claimed delivery's result to write: an attempt and its outcome, or a cancellation. */
export type Recording =
  | { kind: "attempt"; claim: Claim; now: number; attemptNo: number; attempt: AttemptRecord; outcome: Outcome }
  | { kind: "cancel"; claim: Claim; now: number; reason: string };

/**
 * Writes the results of several claimed deliveries in one transaction (docs/webhooks.md "Queue"), in
 * three statements however many there are: one read of their fences (the token of the current
 * claim, the delivery still pending, and for an attempt the lease still holding and the attempt count
 * it was claimed with; a locking read on MySQL/MariaDB, so they hold until the commit; on SQLite the
 * transaction is the one writer, and a stale read is refused at its write and retried), one UPDATE
 * of the deliveries whose fence held, and one insert of their attempt rows. A stale result changes
 * nothing, the others are written regardless. Returns, per recording, whether it was written. The statements are retried as a
 * whole on a deadlock (writeTransaction); what must follow a written result (log lines) goes to
 * `afterCommit` by the caller, which learns the flags only once the transaction committed.
 */
export async function recordOutcomes(db: Db, recordings: readonly Recording[]): Promise<boolean[]> {
  if (recordings.length === 0) return [];
  return writeTransaction(db, async (trx) => {
    // The fence of every recording, read (and on MySQL/MariaDB locked until the commit) in one query.
    const ids = [...new Set(recordings.map((r) => r.claim.deliveryId))];
    const current = await forUpdate(
      trx,
      trx.selectFrom("webhook_deliveries").select(["id", "lease_token", "status", "lease_until", "attempts"]).where("id", "in", ids),
    ).execute();
    const byId = new Map(current.map((row) => [row.id, row]));
    const taken = new Set<string>();
    const written = recordings.map((r) => {
      const row = byId.get(r.claim.deliveryId);
      if (!row || taken.has(row.id) || Number(row.lease_token) !== r.claim.token || row.status !== "pending") return false;
      if (r.kind === "attempt") {
        if (row.lease_until === null || Number(row.lease_until) < r.now) return false;
        // The attempt count the worker read under this claim: nothing else may have moved it.
        if (Number(row.attempts) !== r.attemptNo - 1) return false;
      }
      taken.add(row.id);
      return true;
    });
    const kept = recordings.filter((_, i) => written[i]);
    if (kept.length === 0) return written;
    // One UPDATE for all of them: each column takes its value per row (CASE id …).
    const attempts = kept.filter((r): r is Extract<Recording, { kind: "attempt" }> => r.kind === "attempt");
    const perRow = <T>(column: string, values: Array<[string, T]>) =>
      values.length === 0 ? sql.ref(column) : sql`CASE id ${sql.join(values.map(([id, v]) => sql`WHEN ${id} THEN ${v}`), sql` `)} ELSE ${sql.ref(column)} END`;
    await trx
      .updateTable("webhook_deliveries")
      .set({
        status: perRow("status", kept.map((r) => [r.claim.deliveryId, r.kind === "attempt" ? r.outcome.status : "cancelled"])) as never,
        attempts: perRow("attempts", attempts.map((r) => [r.claim.deliveryId, r.attemptNo])) as never,
        next_attempt_at: perRow("next_attempt_at", kept.map((r) => [r.claim.deliveryId, r.kind === "attempt" ? r.outcome.nextAttemptAt : null])) as never,
        response_status: perRow("response_status", attempts.map((r) => [r.claim.deliveryId, r.attempt.responseStatus])) as never,
        last_error: perRow("last_error", kept.map((r) => [r.claim.deliveryId, r.kind === "attempt" ? r.attempt.error : r.reason])) as never,
        manual_retry: perRow("manual_retry", attempts.map((r) => [r.claim.deliveryId, 0])) as never,
        lease_owner: null,
        lease_until: null,
        updated_at: perRow("updated_at", kept.map((r) => [r.claim.deliveryId, r.now])) as never,
      })
      .where("id", "in", kept.map((r) => r.claim.deliveryId))
      .execute();
    if (attempts.length) {
      await trx
        .insertInto("webhook_attempts")
        .values(
          attempts.map((r) => ({
            id: newId("att", r.attempt.attemptedAt),
            delivery_id: r.claim.deliveryId,
            attempt_no: r.attemptNo,
            kind: r.attempt.kind,
            attempted_at: r.attempt.attemptedAt,
            duration_ms: r.attempt.durationMs,
            response_status: r.attempt.responseStatus,
            error: r.attempt.error,
            response_excerpt: r.attempt.responseExcerpt,
            response_headers: r.attempt.responseHeaders ? JSON.stringify(r.attempt.responseHeaders) : null,
            response_body_truncated: r.attempt.responseStatus === null ? null : r.attempt.responseTruncated ? 1 : 0,
          })),
        )
        .execute();
    }
    return written;
  });
}

/**
 * Records a batch of results and claims the next deliveries in ONE transaction (docs/webhooks.md
 * "Round trips per delivery"): the lanes the batch frees are refilled without a commit of their own.
 * The claim runs after the results are written, so the slots they free count at once (the cap is
 * exact as ever), and it reads what the claimed deliveries need inside the same transaction. All or
 * nothing: should anything fail, nothing is recorded and nothing claimed (the caller then records
 * the results alone; their deliveries stay leased until written or expired, as before).
 */
export async function recordAndClaim(
  db: Db,
  recordings: readonly Recording[],
  next: ClaimInput,
): Promise<{ written: boolean[]; claims: Claim[]; leftBehind: boolean; loaded: Awaited<ReturnType<typeof loadClaimed>> }> {
  return writeTransaction(db, async (trx) => {
    const written = await recordOutcomes(trx, recordings);
    const { claims, leftBehind } = await claimDueReporting(trx, next);
    return { written, claims, leftBehind, loaded: await loadClaimed(trx, claims) };
  });
}

/**
 * Writes one attempt's result under the claim's fence: the attempt row and the delivery's new state
 * in one transaction, or nothing at all when the claim is stale (lease expired, another worker holds
 * it, or the delivery was cancelled meanwhile). Returns whether it was written.
 */
export async function completeAttempt(db: Db, claim: Claim, input: { now: number; attemptNo: number; attempt: AttemptRecord; outcome: Outcome }): Promise<boolean> {
  const [written] = await recordOutcomes(db, [{ kind: "attempt", claim, ...input }]);
  return written!;
}

/** Cancels a claimed delivery whose subscription is gone or disabled, under the same fence. */
export async function cancelClaimed(db: Db, claim: Claim, input: { now: number; reason: string }): Promise<boolean> {
  const [written] = await recordOutcomes(db, [{ kind: "cancel", claim, ...input }]);
  return written!;
}

/**
 * Clears leases that expired (their worker died or stalled). Claims already treat an expired lease as
 * free; the sweep makes the state visible and returns how many there were, for the log.
 */
export async function releaseExpiredLeases(db: Db, now: number): Promise<number> {
  return writeTransaction(db, async (trx) => {
    const result = await trx
      .updateTable("webhook_deliveries")
      .set({ lease_owner: null, lease_until: null })
      .where("status", "=", "pending")
      .where("lease_until", "<", now)
      .executeTakeFirst();
    // Workers dead for longer than any lease hold nothing any more: forget them.
    await trx.deleteFrom("webhook_workers").where("alive_until", "<", now - 24 * 3600_000).execute();
    return Number(result.numUpdatedRows);
  });
}

/** Finished deliveries (and their attempts and events) are kept this long for the console's history. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3600_000;

/**
 * Deletes finished deliveries last updated before `now - retentionMs`, their attempts, and events no
 * delivery refers to any more; at most `limit` deliveries per call so one run never holds long locks.
 * Pending deliveries are never touched, however old.
 */
export async function purgeFinishedDeliveries(db: Db, input: { now: number; retentionMs?: number; limit?: number }): Promise<number> {
  const cutoff = input.now - (input.retentionMs ?? DELIVERY_RETENTION_MS);
  const old = await db
    .selectFrom("webhook_deliveries")
    .select(["id", "event_id"])
    .where("status", "in", ["delivered", "failed", "cancelled"])
    .where("updated_at", "<", cutoff)
    .limit(input.limit ?? 1_000)
    .execute();
  if (old.length === 0) return 0;
  const ids = old.map((r) => r.id);
  const eventIds = [...new Set(old.map((r) => r.event_id))];
  await writeTransaction(db, async (trx) => {
    await trx.deleteFrom("webhook_attempts").where("delivery_id", "in", ids).execute();
    await trx.deleteFrom("webhook_deliveries").where("id", "in", ids).execute();
    await trx
      .deleteFrom("webhook_events")
      .where("id", "in", eventIds)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom("webhook_deliveries").select("id").whereRef("webhook_deliveries.event_id", "=", "webhook_events.id"))))
      .execute();
  });
  return ids.length;
}

/** The pending deliveries at `now`: due (or overdue), scheduled for a later retry, and the oldest one's age. */
export interface QueueSummary {
  due: number;
  scheduled: number;
  oldestPendingAgeSeconds: number;
}

/**
 * What the metrics report of the delivery queue at a scrape (docs/operations.md "Metrics and traces"):
 * one aggregate over the pending rows, which the `(status, next_attempt_at)` index finds.
 * @example
 * const { due, scheduled } = await queueSummary(db, clock.now().getTime());
 */
export async function queueSummary(db: Db, now: number): Promise<QueueSummary> {
  const row = await db
    .selectFrom("webhook_deliveries")
    .select((eb) => [
      eb.fn.countAll<number>().as("pending"),
      eb.fn.sum<number | null>(eb.case().when("next_attempt_at", "<=", now).then(1).else(0).end()).as("due"),
      eb.fn.min<number | null>("created_at").as("oldest"),
    ])
    .where("status", "=", "pending")
    .executeTakeFirstOrThrow();
  const pending = Number(row.pending);
  const due = Number(row.due ?? 0);
  return { due, scheduled: pending - due, oldestPendingAgeSeconds: row.oldest === null ? 0 : Math.max(0, (now - Number(row.oldest)) / 1000) };
}
