import { toIso, toIsoOrNull } from "../../contract/common.ts";
import { CATALOG_UPDATED, type EventPayload, type EventType } from "../../contract/events.ts";
import { LIMITS } from "../../contract/limits.ts";
import type { WebhookSubscription } from "../../contract/webhooks.ts";
import type { Db } from "../../db/db.ts";
import { forUpdate, lockAccount, writeTransaction } from "../../db/transaction.ts";
import { AppError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { WebhookEnv } from "../env.ts";
import { MAX_ATTEMPTS } from "../delivery/schedule.ts";
import { generateSecret } from "../delivery/signing.ts";
import type { WebhookSubscriptionTable } from "../tables.ts";
import { BlockedUrlError, vetUrl } from "./url-policy.ts";
import { sampleEvent, scopeOf } from "../delivery-log/sample-events.ts";

/** Subscriptions per account: enough for every environment a team runs, small enough to bound fan-out. */
export const MAX_SUBSCRIPTIONS_PER_ACCOUNT = 20;

export interface SubscriptionInput {
  url: string;
  events: EventType[];
  countries?: string[];
  operators?: string[];
}

export interface SubscriptionPatch {
  url?: string;
  events?: EventType[];
  countries?: string[];
  operators?: string[];
  enabled?: boolean;
}

export function toSubscription(row: WebhookSubscriptionTable, now: number): WebhookSubscription {
  const graceRunning = row.previous_secret_sealed !== null && row.previous_secret_expires_at !== null && Number(row.previous_secret_expires_at) > now;
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as EventType[],
    countries: JSON.parse(row.countries) as string[],
    operators: JSON.parse(row.operators) as string[],
    enabled: Number(row.enabled) === 1,
    previous_secret_expires_at: graceRunning ? toIsoOrNull(Number(row.previous_secret_expires_at)) : null,
    created_at: toIso(Number(row.created_at)),
    updated_at: toIso(Number(row.updated_at)),
  };
}

/** The URL as stored, or a 400 naming what is wrong with it. Resolves the host (the save-time SSRF check). */
async function acceptableUrl(env: WebhookEnv, url: string): Promise<string> {
  try {
    const { target } = await vetUrl(url.trim(), env.policy);
    return target.url.toString();
  } catch (error) {
    if (error instanceof BlockedUrlError) throw new AppError("WEBHOOK_URL_FORBIDDEN", `url: ${error.message}`);
    throw error;
  }
}

/**
 * The caller's subscription row, or 404 whether it does not exist or belongs to someone else. Inside a
 * write transaction pass `lock`: the row stays locked until the commit (MySQL/MariaDB `FOR UPDATE`),
 * so the writes that depend on it (a delivery queued, a secret rotated) serialise with a concurrent
 * update or delete of the subscription and never outlive it.
 */
export async function ownSubscription(db: Db, userId: string, id: string, options: { lock?: boolean } = {}): Promise<WebhookSubscriptionTable> {
  const query = db.selectFrom("webhook_subscriptions").selectAll().where("id", "=", id).where("user_id", "=", userId);
  const row = await (options.lock ? forUpdate(db, query) : query).executeTakeFirst();
  if (!row) throw new AppError("NOT_FOUND", "No webhook subscription with this id");
  return row;
}

/**
 * Creates a subscription. The URL is vetted first (it resolves the host, so outside any transaction);
 * the per-account cap is counted and filled under the account's lock, exact across instances.
 */
export async function createSubscription(env: WebhookEnv, userId: string, input: SubscriptionInput): Promise<{ item: WebhookSubscription; secret: string }> {
  const url = await acceptableUrl(env, input.url);
  const now = env.clock.now().getTime();
  const id = newId("whk", now);
  const secret = generateSecret();
  const row: WebhookSubscriptionTable = {
    id,
    user_id: userId,
    url,
    events: JSON.stringify(input.events),
    countries: JSON.stringify(input.countries ?? []),
    operators: JSON.stringify(input.operators ?? []),
    enabled: 1,
    secret_sealed: env.box.seal(secret, id),
    previous_secret_sealed: null,
    previous_secret_expires_at: null,
    created_at: now,
    updated_at: now,
  };
  await writeTransaction(env.db, async (trx) => {
    if (!(await lockAccount(trx, userId))) throw new AppError("UNAUTHORIZED", "The account no longer exists; sign in again");
    const count = await trx
      .selectFrom("webhook_subscriptions")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_id", "=", userId)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_SUBSCRIPTIONS_PER_ACCOUNT) {
      throw new AppError("CONFLICT", `An account can have at most ${MAX_SUBSCRIPTIONS_PER_ACCOUNT} webhook subscriptions; delete one first`);
    }
    await trx.insertInto("webhook_subscriptions").values(row).execute();
  });
  return { item: toSubscription(row, now), secret };
}

export async function listSubscriptions(env: WebhookEnv, userId: string): Promise<WebhookSubscription[]> {
  const now = env.clock.now().getTime();
  const rows = await env.db.selectFrom("webhook_subscriptions").selectAll().where("user_id", "=", userId).orderBy("created_at", "desc").orderBy("id", "desc").execute();
  return rows.map((r) => toSubscription(r, now));
}

/**
 * Applies a PATCH. Disabling cancels every pending delivery of the subscription in the same
 * transaction (an attempt already in flight finishes, but its result cannot revive the delivery);
 * enabling again does not revive cancelled deliveries (a manual retry does).
 */
export async function updateSubscription(env: WebhookEnv, userId: string, id: string, patch: SubscriptionPatch): Promise<WebhookSubscription> {
  await ownSubscription(env.db, userId, id);
  const url = patch.url === undefined ? undefined : await acceptableUrl(env, patch.url);
  const now = env.clock.now().getTime();
  return writeTransaction(env.db, async (trx) => {
    await ownSubscription(trx, userId, id, { lock: true });
    const changes: Partial<WebhookSubscriptionTable> = { updated_at: now };
    if (url !== undefined) changes.url = url;
    if (patch.events !== undefined) changes.events = JSON.stringify(patch.events);
    if (patch.countries !== undefined) changes.countries = JSON.stringify(patch.countries);
    if (patch.operators !== undefined) changes.operators = JSON.stringify(patch.operators);
    if (patch.enabled !== undefined) changes.enabled = patch.enabled ? 1 : 0;
    await trx.updateTable("webhook_subscriptions").set(changes).where("id", "=", id).where("user_id", "=", userId).execute();
    if (patch.enabled === false) {
      await trx
        .updateTable("webhook_deliveries")
        .set({ status: "cancelled", next_attempt_at: null, last_error: "cancelled: the subscription was disabled", lease_owner: null, lease_until: null, updated_at: now })
        .where("subscription_id", "=", id)
        .where("status", "=", "pending")
        .execute();
    }
    return toSubscription(await ownSubscription(trx, userId, id), now);
  });
}

/**
 * Deletes the subscription with its deliveries, their attempts and its test events. The subscription
 * row goes first: of concurrent deletes exactly one finds it (the others answer 404), and a delivery
 * being queued for it (which locks the row) either commits before and is deleted here, or waits and
 * then finds no subscription.
 */
export async function deleteSubscription(env: WebhookEnv, userId: string, id: string): Promise<void> {
  await writeTransaction(env.db, async (trx) => {
    const deleted = await trx.deleteFrom("webhook_subscriptions").where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
    if (Number(deleted.numDeletedRows) !== 1) throw new AppError("NOT_FOUND", "No webhook subscription with this id");
    await trx
      .deleteFrom("webhook_attempts")
      .where("delivery_id", "in", (eb) => eb.selectFrom("webhook_deliveries").select("id").where("subscription_id", "=", id))
      .execute();
    await trx.deleteFrom("webhook_deliveries").where("subscription_id", "=", id).execute();
    await trx.deleteFrom("webhook_events").where("subscription_id", "=", id).execute();
  });
}

/**
 * Rotates the signing secret. The old secret keeps signing X-IR21-Signature-Previous for
 * `graceSeconds` (0: not at all). Only one grace period at a time: a rotation while one runs is a 409,
 * so a receiver never has to juggle three secrets.
 */
export async function rotateSecret(
  env: WebhookEnv,
  userId: string,
  id: string,
  graceSeconds: number = LIMITS.graceSeconds.default,
): Promise<{ item: WebhookSubscription; secret: string; previous_secret_expires_at: string | null }> {
  const now = env.clock.now().getTime();
  const secret = generateSecret();
  const expiresAt = graceSeconds > 0 ? now + graceSeconds * 1000 : null;
  // The row is locked while the grace period is checked and the secrets replaced: of concurrent
  // rotations one at a time decides, so two can never both start a grace period.
  const item = await writeTransaction(env.db, async (trx) => {
    const row = await ownSubscription(trx, userId, id, { lock: true });
    if (row.previous_secret_sealed !== null && row.previous_secret_expires_at !== null && Number(row.previous_secret_expires_at) > now) {
      throw new AppError(
        "CONFLICT",
        `A rotation grace period is already running until ${toIso(Number(row.previous_secret_expires_at))}; wait for it to end or revoke the previous secret (DELETE previous-secret) first`,
      );
    }
    const updated = await trx
      .updateTable("webhook_subscriptions")
      .set({
        secret_sealed: env.box.seal(secret, id),
        previous_secret_sealed: expiresAt === null ? null : row.secret_sealed,
        previous_secret_expires_at: expiresAt,
        updated_at: now,
      })
      .where("id", "=", id)
      .where("user_id", "=", userId)
      // Compare-and-set on the secret read (SQLite reads take no lock): a rotation that raced this one
      // and won makes this one a 409 instead of a silent overwrite.
      .where("secret_sealed", "=", row.secret_sealed)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) throw new AppError("CONFLICT", "Another rotation of this subscription just happened; list it and try again");
    return toSubscription(await ownSubscription(trx, userId, id), now);
  });
  return { item, secret, previous_secret_expires_at: toIsoOrNull(expiresAt) };
}

/** Revokes the previous secret at once (idempotent): no delivery from now on carries its signature. */
export async function revokePreviousSecret(env: WebhookEnv, userId: string, id: string): Promise<void> {
  const now = env.clock.now().getTime();
  await writeTransaction(env.db, async (trx) => {
    // Matched rows, changed or not (SQLite counts them; mysql2 sets CLIENT_FOUND_ROWS): 0 is not ours.
    const result = await trx
      .updateTable("webhook_subscriptions")
      .set({ previous_secret_sealed: null, previous_secret_expires_at: null, updated_at: now })
      .where("id", "=", id)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) throw new AppError("NOT_FOUND", "No webhook subscription with this id");
  });
}

/** Forgets previous secrets whose grace period ended (signing already ignores them; this removes them). */
export async function purgeExpiredPreviousSecrets(db: Db, now: number): Promise<number> {
  const result = await writeTransaction(db, (trx) =>
    trx
      .updateTable("webhook_subscriptions")
      .set({ previous_secret_sealed: null, previous_secret_expires_at: null })
      .where("previous_secret_expires_at", "<=", now)
      .executeTakeFirst(),
  );
  return Number(result.numUpdatedRows);
}

/**
 * Queues a test event for one subscription, delivered through the same queue, signing and URL checks
 * as any event, whatever the subscription's filters. Without `eventType` (the contract's bodiless call)
 * it is the subscription's first selected type with a summary in data; with it, a sample of that type
 * with the data a real one carries (sample-events.ts).
 */
export async function queueTestEvent(env: WebhookEnv, userId: string, id: string, dataset: { version: string }, eventType?: EventType): Promise<{ deliveryId: string }> {
  return writeTransaction(env.db, async (trx, { afterCommit }) => {
    // Locked, so a concurrent delete or disable waits for this delivery, which it then removes or cancels.
    const row = await ownSubscription(trx, userId, id, { lock: true });
    if (Number(row.enabled) !== 1) throw new AppError("CONFLICT", "The subscription is disabled; enable it before sending a test event");
    const now = env.clock.now().getTime();
    const events = JSON.parse(row.events) as EventType[];
    const countries = JSON.parse(row.countries) as string[];
    const operators = JSON.parse(row.operators) as string[];
    const payload: EventPayload = eventType
      ? await sampleEvent(trx, eventType, scopeOf({ countries, operators }), now)
      : {
          id: newId("evt", now),
          type: events[0] ?? CATALOG_UPDATED,
          occurred_at: toIso(now),
          effective_at: null,
          dataset_version: dataset.version,
          previous_version: dataset.version,
          country_iso2: countries[0] ?? "",
          // As a real event for this filter would carry it: a merged duplicate's id gives its survivor's.
          operator_id: scopeOf({ countries, operators }).operator ?? "",
          data: { summary: `Test event for webhook ${id}: if you can verify this signature, your endpoint is set up.` },
          test: true,
        };
    const eventId = payload.id;
    const deliveryId = newId("dlv", now);
    await trx.insertInto("webhook_events").values({ id: eventId, type: payload.type, payload: JSON.stringify(payload), source_seq: null, subscription_id: id, created_at: now }).execute();
    await trx.insertInto("webhook_deliveries").values(newDeliveryRow({ id: deliveryId, subscriptionId: id, userId, eventId, eventType: payload.type, now })).execute();
    afterCommit(() => env.queued.emit("queued"));
    return { deliveryId };
  });
}

/** A fresh pending delivery, due now. */
export function newDeliveryRow(input: { id: string; subscriptionId: string; userId: string; eventId: string; eventType: string; now: number }) {
  return {
    id: input.id,
    subscription_id: input.subscriptionId,
    user_id: input.userId,
    event_id: input.eventId,
    event_type: input.eventType,
    status: "pending" as const,
    attempts: 0,
    max_attempts: MAX_ATTEMPTS,
    manual_retry: 0,
    next_attempt_at: input.now,
    response_status: null,
    last_error: null,
    lease_owner: null,
    lease_until: null,
    lease_token: 0,
    created_at: input.now,
    updated_at: input.now,
  };
}
