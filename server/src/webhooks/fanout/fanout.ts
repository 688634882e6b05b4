import { sql } from "kysely";
import { operatorFilterIds } from "../../catalog/operators/lineage.ts";
import { CATALOG_UPDATED, type EventPayload } from "../../contract/events.ts";
import type { Db } from "../../db/db.ts";
import { writeTransaction } from "../../db/transaction.ts";
import { dialectOf } from "../../db/db.ts";
import { newId } from "../../ids.ts";
import type { WebhookEnv } from "../env.ts";
import { newDeliveryRow } from "../subscriptions/subscriptions.ts";

/**
 * A durable, ordered source of events: the catalogue's change log, read by sequence. Fan-out keeps its
 * own cursor per feed, so the change log is the outbox: an event is in it once its import committed,
 * and fan-out turns it into deliveries exactly once, however often it runs or crashes.
 */
export interface ChangeFeed {
  /** Names the cursor row; stable forever. */
  name: string;
  /** Events with sequence > `afterSeq`, in sequence order, at most `limit`; read inside the fan-out transaction. */
  readAfter(db: Db, afterSeq: number, limit: number): Promise<Array<{ seq: number; event: EventPayload }>>;
}

interface SubscriptionFilter {
  id: string;
  userId: string;
  events: Set<string>;
  countries: Set<string>;
  /** The ids the stored operator filter matches: a merged duplicate's id brings its survivor's (operatorFilterIds). */
  operators: Set<string>;
}

/**
 * A subscription's or listen session's stored filters (JSON arrays, as the caller wrote them) as
 * `matches` reads them. Merged operator ids are resolved here, at every fan-out, rather than when the
 * filter is saved: a merge can come with an import after the filter was written (docs/webhooks.md
 * "Merged operator ids").
 */
export function filterOf(row: { id: string; user_id: string; events: string; countries: string; operators: string }): SubscriptionFilter {
  return {
    id: row.id,
    userId: row.user_id,
    events: new Set(JSON.parse(row.events) as string[]),
    countries: new Set(JSON.parse(row.countries) as string[]),
    operators: new Set(operatorFilterIds(JSON.parse(row.operators) as string[])),
  };
}

/**
 * Whether a subscription receives an event: its type is selected and, unless it is the global
 * ir21.catalog.updated, the country and operator filters match (an empty filter matches everything).
 */
export function matches(subscription: SubscriptionFilter, event: Pick<EventPayload, "type" | "country_iso2" | "operator_id">): boolean {
  if (!subscription.events.has(event.type)) return false;
  if (event.type === CATALOG_UPDATED) return true;
  if (subscription.countries.size > 0 && !subscription.countries.has(event.country_iso2.toUpperCase())) return false;
  if (subscription.operators.size > 0 && !subscription.operators.has(event.operator_id)) return false;
  return true;
}

/** How far the fan-out has read a feed (its cursor); 0 before its first run. Change-log retention never prunes past it. */
export async function feedPosition(db: Db, feedName: string): Promise<number> {
  const row = await db.selectFrom("webhook_fanout_cursors").select("last_seq").where("name", "=", feedName).executeTakeFirst();
  return Number(row?.last_seq ?? 0);
}

const CHUNK = 200;

/**
 * One fan-out step: reads the feed after the stored cursor, writes one delivery per matching enabled
 * subscription, and advances the cursor, all in one transaction. A crash anywhere leaves the cursor
 * where it was and no delivery written; a rerun writes the same deliveries (the unique key on
 * subscription + event absorbs a concurrent duplicate run).
 */
export async function fanOutOnce(env: WebhookEnv, feed: ChangeFeed, options: { batchSize?: number } = {}): Promise<{ events: number; deliveries: number }> {
  const batchSize = options.batchSize ?? 500;
  const mysql = dialectOf(env.db) === "mysql";
  return writeTransaction(env.db, async (trx, { afterCommit }) => {
    const now = env.clock.now().getTime();
    await trx
      .insertInto("webhook_fanout_cursors")
      .values({ name: feed.name, last_seq: 0, updated_at: now })
      .$call((qb) => (mysql ? qb.onDuplicateKeyUpdate({ name: sql`name` }) : qb.onConflict((oc) => oc.column("name").doNothing())))
      .execute();
    // (No INSERT IGNORE on MySQL: it would also turn data errors into warnings.)
    // FOR UPDATE serialises concurrent fan-outs on MySQL; SQLite has one writer anyway.
    const cursor = await trx
      .selectFrom("webhook_fanout_cursors")
      .select("last_seq")
      .where("name", "=", feed.name)
      .$call((qb) => (mysql ? qb.forUpdate() : qb))
      .executeTakeFirstOrThrow();
    const changes = await feed.readAfter(trx, Number(cursor.last_seq), batchSize);
    if (changes.length === 0) return { events: 0, deliveries: 0 };

    // Shared locks on MySQL/MariaDB: a subscription deleted or disabled meanwhile waits for this
    // transaction (and then removes or cancels its deliveries) instead of leaving them behind it.
    const subscriptions: SubscriptionFilter[] = (
      await trx
        .selectFrom("webhook_subscriptions")
        .select(["id", "user_id", "events", "countries", "operators"])
        .where("enabled", "=", 1)
        .$call((qb) => (mysql ? qb.modifyEnd(sql`lock in share mode`) : qb))
        .execute()
    ).map(filterOf);

    const events = [];
    const deliveries = [];
    for (const { seq, event } of changes) {
      const targets = subscriptions.filter((s) => matches(s, event));
      if (targets.length === 0) continue;
      events.push({ id: event.id, type: event.type, payload: JSON.stringify(event), source_seq: seq, subscription_id: null, created_at: now });
      for (const s of targets) deliveries.push(newDeliveryRow({ id: newId("dlv", now), subscriptionId: s.id, userId: s.userId, eventId: event.id, eventType: event.type, now }));
    }
    for (let i = 0; i < events.length; i += CHUNK) {
      await trx
        .insertInto("webhook_events")
        .values(events.slice(i, i + CHUNK))
        .$call((qb) => (mysql ? qb.onDuplicateKeyUpdate({ id: sql`id` }) : qb.onConflict((oc) => oc.column("id").doNothing())))
        .execute();
    }
    for (let i = 0; i < deliveries.length; i += CHUNK) {
      await trx
        .insertInto("webhook_deliveries")
        .values(deliveries.slice(i, i + CHUNK))
        .$call((qb) => (mysql ? qb.onDuplicateKeyUpdate({ id: sql`id` }) : qb.onConflict((oc) => oc.columns(["subscription_id", "event_id"]).doNothing())))
        .execute();
    }
    await trx
      .updateTable("webhook_fanout_cursors")
      .set({ last_seq: changes[changes.length - 1]!.seq, updated_at: now })
      .where("name", "=", feed.name)
      .execute();
    if (deliveries.length > 0) afterCommit(() => env.queued.emit("queued"));
    return { events: changes.length, deliveries: deliveries.length };
  });
}

/** Fans out until the feed is exhausted (bounded), returning the totals. */
export async function fanOutAll(env: WebhookEnv, feed: ChangeFeed, options: { batchSize?: number; maxRounds?: number } = {}) {
  const totals = { events: 0, deliveries: 0 };
  for (let round = 0; round < (options.maxRounds ?? 100); round++) {
    const step = await fanOutOnce(env, feed, options);
    totals.events += step.events;
    totals.deliveries += step.deliveries;
    if (step.events === 0) break;
  }
  return totals;
}
