import { sql } from "kysely";
import type { EventPayload, EventType } from "../../contract/events.ts";
import type { WebhookAttempt, WebhookDelivery } from "../../contract/webhooks.ts";
import { dialectOf, type Db } from "../../db/db.ts";
import { writeTransaction } from "../../db/transaction.ts";
import { AppError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { keptBody, keptHeaders, redactSecrets } from "../delivery/answer.ts";
import { toAttempt, toDelivery } from "../delivery-log/deliveries.ts";
import { pageOfDeliveries, type DeliveryListInput } from "../delivery-log/paging.ts";
import { sampleEvent, scopeOf } from "../delivery-log/sample-events.ts";
import type { WebhookEnv } from "../env.ts";
import type { WebhookListenDeliveryTable } from "../tables.ts";
import { ownListenSession } from "./ownership.ts";

/**
 * Deliveries to listen sessions. A delivery is `pending` until its stream's holder sends it (`sent_at`
 * set, one attempt counted), then `delivered` or `failed` by the forwarder's report (which records the
 * attempt with what the local receiver answered), or `failed` when no report comes in time, the
 * session's buffer is full (backpressure) or the session ends before it is sent. No automatic retry:
 * the developer is watching, and `ir21 trigger` sends another.
 */

const CHUNK = 200;

/** A fresh pending delivery of `event` to a session. */
export function newListenDelivery(input: { sessionId: string; userId: string; event: EventPayload; payload: string; now: number }): WebhookListenDeliveryTable {
  return {
    id: newId("dlv", input.now),
    session_id: input.sessionId,
    user_id: input.userId,
    event_id: input.event.id,
    event_type: input.event.type,
    payload: input.payload,
    status: "pending",
    attempts: 0,
    sent_at: null,
    response_status: null,
    last_error: null,
    created_at: input.now,
    updated_at: input.now,
  };
}

/** Inserts deliveries; one that already exists (same session and event: a fan-out rerun) is skipped. */
export async function insertListenDeliveries(db: Db, rows: WebhookListenDeliveryTable[]): Promise<void> {
  const mysql = dialectOf(db) === "mysql";
  await writeTransaction(db, async (trx) => {
    for (let i = 0; i < rows.length; i += CHUNK) {
      await trx
        .insertInto("webhook_listen_deliveries")
        .values(rows.slice(i, i + CHUNK))
        // No INSERT IGNORE on MySQL: it would also turn data errors into warnings.
        .$call((qb) => (mysql ? qb.onDuplicateKeyUpdate({ id: sql`id` }) : qb.onConflict((oc) => oc.columns(["session_id", "event_id"]).doNothing())))
        .execute();
    }
  });
}

/** Fails a session's deliveries not yet sent (the session ended, or its buffer is full). */
export async function failUnsent(db: Db, input: { sessionIds?: string[]; ids?: string[]; now: number; error: string }): Promise<number> {
  if (!input.sessionIds?.length && !input.ids?.length) return 0;
  const updated = await writeTransaction(db, (trx) => {
    let query = trx
      .updateTable("webhook_listen_deliveries")
      .set({ status: "failed", last_error: input.error.slice(0, 1024), updated_at: input.now })
      .where("status", "=", "pending")
      .where("sent_at", "is", null);
    if (input.sessionIds?.length) query = query.where("session_id", "in", input.sessionIds);
    if (input.ids?.length) query = query.where("id", "in", input.ids);
    return query.executeTakeFirst();
  });
  return Number(updated.numUpdatedRows);
}

/** Deliveries of these sessions waiting to be sent, oldest first. */
export async function unsentDeliveries(db: Db, sessionIds: string[], limit: number): Promise<WebhookListenDeliveryTable[]> {
  if (sessionIds.length === 0) return [];
  return db
    .selectFrom("webhook_listen_deliveries")
    .selectAll()
    .where("session_id", "in", sessionIds)
    .where("status", "=", "pending")
    .where("sent_at", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .limit(limit)
    .execute();
}

/** Per session: deliveries on the stream with no report yet (what the buffer bounds). */
export async function unreportedCounts(db: Db, sessionIds: string[]): Promise<Map<string, number>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("webhook_listen_deliveries")
    .select(["session_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("session_id", "in", sessionIds)
    .where("status", "=", "pending")
    .where("sent_at", "is not", null)
    .groupBy("session_id")
    .execute();
  return new Map(rows.map((r) => [r.session_id, Number(r.n)]));
}

/** Takes a delivery for sending (once: a concurrent holder loses), counting the attempt. */
export async function markSent(db: Db, id: string, now: number): Promise<boolean> {
  const updated = await writeTransaction(db, (trx) =>
    trx
      .updateTable("webhook_listen_deliveries")
      .set((eb) => ({ sent_at: now, attempts: eb("attempts", "+", 1), updated_at: now }))
      .where("id", "=", id)
      .where("status", "=", "pending")
      .where("sent_at", "is", null)
      .executeTakeFirst(),
  );
  return Number(updated.numUpdatedRows) === 1;
}

/** What the forwarder reports about one delivery: the local receiver's answer, or why there was none. */
export interface ForwarderReport {
  status: number | null;
  duration_ms: number;
  headers?: Record<string, string>;
  body?: string;
  body_truncated?: boolean;
  error?: string | null;
}

/**
 * Ends the attempt on the stream: the delivery becomes delivered (a 2xx) or failed, and the attempt
 * row keeps the answer, all under the condition that the attempt is still the one awaiting a report.
 */
async function finishAttempt(
  db: Db,
  row: Pick<WebhookListenDeliveryTable, "id" | "attempts" | "sent_at">,
  result: { now: number; status: number | null; durationMs: number; error: string | null; headers: Record<string, string> | null; body: string | null; truncated: boolean },
): Promise<boolean> {
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  return writeTransaction(db, async (trx) => {
    const updated = await trx
      .updateTable("webhook_listen_deliveries")
      .set({ status: ok ? "delivered" : "failed", sent_at: null, response_status: result.status, last_error: ok ? null : result.error, updated_at: result.now })
      .where("id", "=", row.id)
      .where("status", "=", "pending")
      .where("sent_at", "=", Number(row.sent_at))
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return false;
    await trx
      .insertInto("webhook_attempts")
      .values({
        id: newId("att", result.now),
        delivery_id: row.id,
        attempt_no: Number(row.attempts),
        kind: "forwarded",
        attempted_at: Number(row.sent_at),
        duration_ms: result.durationMs,
        response_status: result.status,
        error: ok ? null : result.error,
        response_excerpt: result.body,
        response_headers: result.headers ? JSON.stringify(result.headers) : null,
        response_body_truncated: result.status === null ? null : result.truncated ? 1 : 0,
      })
      .execute();
    return true;
  });
}

/**
 * Records the forwarder's report for a delivery of the caller's session. A report for a delivery that
 * is not waiting for one (reported already, timed out, never sent) is a 409: the first word stands.
 */
export async function recordReport(env: WebhookEnv, userId: string, sessionId: string, deliveryId: string, report: ForwarderReport): Promise<{ status: "delivered" | "failed" }> {
  await ownListenSession(env.db, userId, sessionId);
  const row = await env.db
    .selectFrom("webhook_listen_deliveries")
    .select(["id", "attempts", "sent_at", "status"])
    .where("id", "=", deliveryId)
    .where("session_id", "=", sessionId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (!row) throw new AppError("NOT_FOUND", "No delivery with this id in this listen session");
  if (row.status !== "pending" || row.sent_at === null) throw new AppError("CONFLICT", `This delivery is not waiting for a report (it is ${row.status})`);
  const now = env.clock.now().getTime();
  const status = report.status ?? null;
  const body = status === null || report.body === undefined ? null : keptBody(report.body);
  const error =
    status !== null && (status < 200 || status >= 300)
      ? `http_status: HTTP ${status}`
      : status === null
        ? redactSecrets(report.error?.trim() || "forward_failed: the forwarder got no answer from the local receiver").slice(0, 1024)
        : null;
  const written = await finishAttempt(env.db, row, {
    now,
    status,
    durationMs: report.duration_ms,
    error,
    headers: status === null ? null : keptHeaders(Object.entries(report.headers ?? {})),
    body: body?.body ?? null,
    truncated: (body?.truncated ?? false) || report.body_truncated === true,
  });
  if (!written) throw new AppError("CONFLICT", "This delivery is not waiting for a report any more");
  return { status: status !== null && status >= 200 && status < 300 ? "delivered" : "failed" };
}

/**
 * Fails deliveries on a stream whose report did not come within `timeoutMs` (of the given sessions, or
 * of every session: the sweep), recording the attempt as `no_report`.
 */
export async function failUnreported(db: Db, input: { now: number; timeoutMs: number; sessionIds?: string[] }): Promise<number> {
  if (input.sessionIds && input.sessionIds.length === 0) return 0;
  let query = db
    .selectFrom("webhook_listen_deliveries")
    .select(["id", "attempts", "sent_at"])
    .where("status", "=", "pending")
    .where("sent_at", "<", input.now - input.timeoutMs);
  if (input.sessionIds) query = query.where("session_id", "in", input.sessionIds);
  const late = await query.limit(500).execute();
  let failed = 0;
  for (const row of late) {
    const written = await finishAttempt(db, row, {
      now: input.now,
      status: null,
      durationMs: input.now - Number(row.sent_at),
      error: `no_report: the forwarder did not report within ${Math.round(input.timeoutMs / 1000)} s`,
      headers: null,
      body: null,
      truncated: false,
    });
    if (written) failed++;
  }
  return failed;
}

/**
 * Sends a test event of `type` (test: true, a realistic sample: sample-events.ts) to every open session
 * of the account, whatever their filters (as a subscription's test event). Nothing open is a 409.
 */
export async function triggerListenEvent(env: WebhookEnv, userId: string, type: EventType): Promise<{ event: EventPayload; deliveries: Array<{ session_id: string; delivery_id: string }> }> {
  const now = env.clock.now().getTime();
  const sessions = await env.db
    .selectFrom("webhook_listen_sessions")
    .select(["id", "countries", "operators"])
    .where("user_id", "=", userId)
    .where("status", "=", "open")
    .where("lease_until", ">=", now)
    .orderBy("created_at")
    .execute();
  if (sessions.length === 0) throw new AppError("CONFLICT", "No listen session is open for this account; start one with `ir21 listen --forward-to <url>`");
  const first = sessions[0]!;
  const event = await sampleEvent(env.db, type, scopeOf({ countries: JSON.parse(first.countries) as string[], operators: JSON.parse(first.operators) as string[] }), now);
  const payload = JSON.stringify(event);
  const rows = sessions.map((s) => newListenDelivery({ sessionId: s.id, userId, event, payload, now }));
  await insertListenDeliveries(env.db, rows);
  return { event, deliveries: rows.map((r) => ({ session_id: r.session_id, delivery_id: r.id })) };
}

/** A session's deliveries, newest first, paged like a subscription's (delivery-log/paging.ts). */
export async function listListenDeliveries(env: WebhookEnv, userId: string, sessionId: string, input: DeliveryListInput) {
  await ownListenSession(env.db, userId, sessionId);
  // A cursor works only for the listing it was issued for (cursors.ts).
  const page = await pageOfDeliveries(env, { table: "webhook_listen_deliveries", owner: "session_id", ownerId: sessionId, userId, listing: `listen-deliveries:${userId}:${sessionId}` }, input);
  return { items: page.rows.map(toDelivery), total: page.total, next_cursor: page.next_cursor };
}

/** One delivery with its attempts (what the local receiver answered) and the event as sent. */
export async function getListenDelivery(env: WebhookEnv, userId: string, sessionId: string, deliveryId: string): Promise<{ item: WebhookDelivery; attempts: WebhookAttempt[]; event: EventPayload }> {
  await ownListenSession(env.db, userId, sessionId);
  const row = await env.db
    .selectFrom("webhook_listen_deliveries")
    .selectAll()
    .where("id", "=", deliveryId)
    .where("session_id", "=", sessionId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (!row) throw new AppError("NOT_FOUND", "No delivery with this id in this listen session");
  const attempts = await env.db.selectFrom("webhook_attempts").selectAll().where("delivery_id", "=", deliveryId).orderBy("attempt_no").execute();
  return { item: toDelivery(row), attempts: attempts.map(toAttempt), event: JSON.parse(row.payload) as EventPayload };
}
