import { sql } from "kysely";
import type { Db } from "../../db/db.ts";
import { dialectOf } from "../../db/db.ts";
import { writeTransaction } from "../../db/transaction.ts";
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
 * owner's heartbeat, `aliveMs` (default {@link WORKER_ALIVE_MS}).
 *
 * SQLite has one writer at a time: a single UPDATE ... WHERE id IN (subquery) RETURNING counts and
 * claims atomically, so the cap is exact, across processes too. MySQL/MariaDB: in one transaction,
 * count the in-flight rows, SELECT ... FOR UPDATE SKIP LOCKED the oldest due rows of subscriptions
 * below the cap, keep at most (cap - in flight) per subscription, UPDATE those; concurrent workers take
 * disjoint rows without waiting on each other. The count is a plain read, so two claims racing on the
 * same subscription can each fill its remaining slots: the bound is the cap per claim running at that
 * instant (at most workers × cap), which the next claims then respect again.
 */
export async function claimDue(
  db: Db,
  input: { owner: string; now: number; leaseMs: number; limit: number; maxInFlightPerSubscription?: number; aliveMs?: number },
): Promise<Claim[]> {
  if (input.limit <= 0) return [];
  const leaseUntil = input.now + input.leaseMs;
  const cap = input.maxInFlightPerSubscription ?? Number.MAX_SAFE_INTEGER;
  const window = input.limit * CANDIDATES_PER_CLAIM;

  return writeTransaction(db, async (trx) => {
    await heartbeat(trx, { owner: input.owner, now: input.now, aliveMs: input.aliveMs });
    if (dialectOf(trx) === "mysql") {
      const busyRows = await trx
        .selectFrom("webhook_deliveries")
        .select(["subscription_id", (eb) => eb.fn.countAll<number>().as("n")])
        .where("lease_until", ">=", input.now)
        .where("status", "=", "pending")
        .where("lease_owner", "in", (eb) => eb.selectFrom("webhook_workers").select("owner").where("alive_until", ">=", input.now))
        .groupBy("subscription_id")
        .execute();
      const busy = new Map(busyRows.map((r) => [r.subscription_id, Number(r.n)]));
      const saturated = [...busy].filter(([, n]) => n >= cap).map(([id]) => id);
      let query = trx
        .selectFrom("webhook_deliveries")
        .select(["id", "subscription_id", "lease_token"])
        .where("status", "=", "pending")
        .where("next_attempt_at", "<=", input.now)
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", input.now)]));
      if (saturated.length) query = query.where("subscription_id", "not in", saturated);
      const candidates = await query.orderBy("next_attempt_at").limit(window).forUpdate().skipLocked().execute();
      const rows: typeof candidates = [];
      for (const row of candidates) {
        if (rows.length >= input.limit) break;
        const n = busy.get(row.subscription_id) ?? 0;
        if (n >= cap) continue;
        busy.set(row.subscription_id, n + 1);
        rows.push(row);
      }
      if (rows.length === 0) return [];
      await trx
        .updateTable("webhook_deliveries")
        .set({ lease_owner: input.owner, lease_until: leaseUntil, lease_token: sql<number>`lease_token + 1` })
        .where("id", "in", rows.map((r) => r.id))
        .execute();
      return rows.map((r) => ({ deliveryId: r.id, subscriptionId: r.subscription_id, token: Number(r.lease_token) + 1, leaseUntil }));
    }

    // busy: in flight per subscription (leased by a live worker); candidates: the oldest due rows of
    // subscriptions below the cap; a candidate is taken when its rank within its subscription still
    // fits under the cap.
    const claimed = await sql<{ id: string; subscription_id: string; lease_token: number }>`
      UPDATE webhook_deliveries
      SET lease_owner = ${input.owner}, lease_until = ${leaseUntil}, lease_token = lease_token + 1
      WHERE id IN (
        WITH busy AS (
          SELECT subscription_id, COUNT(*) AS n FROM webhook_deliveries
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
    return claimed.rows.map((r) => ({ deliveryId: r.id, subscriptionId: r.subscription_id, token: Number(r.lease_token), leaseUntil }));
  });
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

/**
 * Writes one attempt's result under the claim's fence: the attempt row and the delivery's new state
 * in one transaction, or nothing at all when the claim is stale (lease expired, another worker holds
 * it, or the delivery was cancelled meanwhile). Returns whether it was written.
 */
export async function completeAttempt(db: Db, claim: Claim, input: { now: number; attemptNo: number; attempt: AttemptRecord; outcome: Outcome }): Promise<boolean> {
  return writeTransaction(db, async (trx) => {
    const updated = await trx
      .updateTable("webhook_deliveries")
      .set({
        status: input.outcome.status,
        attempts: input.attemptNo,
        next_attempt_at: input.outcome.nextAttemptAt,
        response_status: input.attempt.responseStatus,
        last_error: input.attempt.error,
        manual_retry: 0,
        lease_owner: null,
        lease_until: null,
        updated_at: input.now,
      })
      .where("id", "=", claim.deliveryId)
      .where("lease_token", "=", claim.token)
      .where("status", "=", "pending")
      .where("lease_until", ">=", input.now)
      // The attempt count the worker read under this claim: nothing else may have moved it.
      .where("attempts", "=", input.attemptNo - 1)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return false;
    await trx
      .insertInto("webhook_attempts")
      .values({
        id: newId("att", input.attempt.attemptedAt),
        delivery_id: claim.deliveryId,
        attempt_no: input.attemptNo,
        kind: input.attempt.kind,
        attempted_at: input.attempt.attemptedAt,
        duration_ms: input.attempt.durationMs,
        response_status: input.attempt.responseStatus,
        error: input.attempt.error,
        response_excerpt: input.attempt.responseExcerpt,
        response_headers: input.attempt.responseHeaders ? JSON.stringify(input.attempt.responseHeaders) : null,
        response_body_truncated: input.attempt.responseStatus === null ? null : input.attempt.responseTruncated ? 1 : 0,
      })
      .execute();
    return true;
  });
}

/** Cancels a claimed delivery whose subscription is gone or disabled, under the same fence. */
export async function cancelClaimed(db: Db, claim: Claim, input: { now: number; reason: string }): Promise<boolean> {
  const updated = await writeTransaction(db, (trx) =>
    trx
      .updateTable("webhook_deliveries")
      .set({ status: "cancelled", next_attempt_at: null, last_error: input.reason, lease_owner: null, lease_until: null, updated_at: input.now })
      .where("id", "=", claim.deliveryId)
      .where("lease_token", "=", claim.token)
      .where("status", "=", "pending")
      .executeTakeFirst(),
  );
  return Number(updated.numUpdatedRows) === 1;
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
