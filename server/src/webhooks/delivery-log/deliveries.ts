import { toIso, toIsoOrNull } from "../../contract/common.ts";
import type { EventPayload, EventType } from "../../contract/events.ts";
import type { WebhookAttempt, WebhookDelivery } from "../../contract/webhooks.ts";
import { writeTransaction } from "../../db/transaction.ts";
import { AppError } from "../../errors.ts";
import type { WebhookEnv } from "../env.ts";
import { ownSubscription } from "../subscriptions/subscriptions.ts";
import type { WebhookAttemptTable, WebhookDeliveryTable } from "../tables.ts";
import { pageOfDeliveries, type DeliveryListInput } from "./paging.ts";

/**
 * The contract's delivery from a row of either delivery log. A listen session's has no next attempt
 * (no automatic retry: the developer is watching and triggers another).
 */
export function toDelivery(
  row: Pick<WebhookDeliveryTable, "id" | "event_id" | "event_type" | "status" | "attempts" | "response_status" | "last_error" | "created_at"> & { next_attempt_at?: number | null },
): WebhookDelivery {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type as EventType,
    status: row.status,
    attempts: Number(row.attempts),
    response_status: row.response_status === null ? null : Number(row.response_status),
    last_error: row.last_error,
    created_at: toIso(Number(row.created_at)),
    next_attempt_at: toIsoOrNull(row.next_attempt_at == null ? null : Number(row.next_attempt_at)),
  };
}

/**
 * An attempt as the console shows it: the contract's four fields, then (additive) its duration and
 * what the receiver answered. Attempts recorded before the answer was kept (migration 0410) show their
 * body excerpt with no headers.
 */
export function toAttempt(row: WebhookAttemptTable): WebhookAttempt {
  const status = row.response_status === null ? null : Number(row.response_status);
  return {
    id: row.id,
    attempted_at: toIso(Number(row.attempted_at)),
    response_status: status,
    error: row.error,
    duration_ms: Number(row.duration_ms),
    response:
      status === null
        ? null
        : {
            headers: row.response_headers ? (JSON.parse(row.response_headers) as Record<string, string>) : {},
            body: row.response_excerpt ?? "",
            body_truncated: Number(row.response_body_truncated ?? 0) === 1,
          },
  };
}

/** Newest first; `total` counts every delivery matching the filters (not just this page). */
export async function listDeliveries(env: WebhookEnv, userId: string, subscriptionId: string, input: DeliveryListInput) {
  await ownSubscription(env.db, userId, subscriptionId);
  // The account and subscription are part of the listing: a cursor works only where it was issued.
  const page = await pageOfDeliveries(env, { table: "webhook_deliveries", owner: "subscription_id", ownerId: subscriptionId, userId, listing: `deliveries:${userId}:${subscriptionId}` }, input);
  return { items: page.rows.map(toDelivery), total: page.total, next_cursor: page.next_cursor };
}

async function ownDelivery(env: WebhookEnv, userId: string, subscriptionId: string, deliveryId: string): Promise<WebhookDeliveryTable> {
  const row = await env.db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("id", "=", deliveryId)
    .where("subscription_id", "=", subscriptionId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (!row) throw new AppError("NOT_FOUND", "No delivery with this id in this subscription");
  return row;
}

export async function getDelivery(env: WebhookEnv, userId: string, subscriptionId: string, deliveryId: string): Promise<{ item: WebhookDelivery; attempts: WebhookAttempt[]; event: EventPayload }> {
  await ownSubscription(env.db, userId, subscriptionId);
  const row = await ownDelivery(env, userId, subscriptionId, deliveryId);
  const [attempts, event] = await Promise.all([
    env.db.selectFrom("webhook_attempts").selectAll().where("delivery_id", "=", deliveryId).orderBy("attempt_no").execute(),
    env.db.selectFrom("webhook_events").select("payload").where("id", "=", row.event_id).executeTakeFirstOrThrow(),
  ]);
  return {
    item: toDelivery(row),
    attempts: attempts.map(toAttempt),
    event: JSON.parse(event.payload) as EventPayload,
  };
}

/**
 * Queues deliveries again with their original event (same event id, same body). A finished delivery
 * (delivered, failed, cancelled) gets one more attempt, due now; a pending one is made due now unless
 * an attempt is in flight. Refused (409) while the subscription is disabled: it would only be cancelled.
 */
export async function retryDeliveries(env: WebhookEnv, userId: string, subscriptionId: string, deliveryIds: string[]): Promise<string[]> {
  const ids = [...new Set(deliveryIds)];
  const now = env.clock.now().getTime();
  return writeTransaction(env.db, async (trx, { afterCommit }) => {
    // Locked, so a concurrent delete or disable either runs after this (and removes or cancels what is
    // queued here) or before (and this finds no subscription, or a disabled one).
    const subscription = await ownSubscription(trx, userId, subscriptionId, { lock: true });
    const rows = await trx
      .selectFrom("webhook_deliveries")
      .select(["id"])
      .where("id", "in", ids)
      .where("subscription_id", "=", subscriptionId)
      .where("user_id", "=", userId)
      .execute();
    if (rows.length !== ids.length) {
      const known = new Set(rows.map((r) => r.id));
      throw new AppError("NOT_FOUND", `No delivery with id ${ids.find((id) => !known.has(id))} in this subscription; nothing was queued`);
    }
    if (Number(subscription.enabled) !== 1) throw new AppError("CONFLICT", "The subscription is disabled; enable it before retrying deliveries");
    await trx
      .updateTable("webhook_deliveries")
      .set((eb) => ({
        status: "pending",
        max_attempts: eb("attempts", "+", 1),
        manual_retry: 1,
        next_attempt_at: now,
        lease_owner: null,
        lease_until: null,
        updated_at: now,
      }))
      .where("id", "in", ids)
      .where("status", "in", ["delivered", "failed", "cancelled"])
      .execute();
    await trx
      .updateTable("webhook_deliveries")
      .set({ next_attempt_at: now, updated_at: now })
      .where("id", "in", ids)
      .where("status", "=", "pending")
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
      .where("next_attempt_at", ">", now)
      .execute();
    afterCommit(() => env.queued.emit("queued"));
    return ids;
  });
}
