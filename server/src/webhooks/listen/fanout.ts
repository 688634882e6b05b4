import { writeTransaction } from "../../db/transaction.ts";
import type { WebhookEnv } from "../env.ts";
import { filterOf, matches, type ChangeFeed } from "../fanout/fanout.ts";
import type { WebhookListenDeliveryTable } from "../tables.ts";
import { insertListenDeliveries, newListenDelivery } from "./deliveries.ts";

/**
 * Catalogue changes to open listen sessions, matched exactly as for subscriptions (fanout.ts
 * `matches`). Each session keeps its own position in the change log (`last_seq`, the head when it
 * (re)attached), so it receives what was committed while it was open and nothing from before; no
 * cursor moves while no session is open. One transaction per step; the unique key on session + event
 * absorbs a concurrent run. Returns the sessions that got deliveries (their holders are told).
 */
export async function fanOutToListenSessions(env: WebhookEnv, feed: ChangeFeed, options: { batchSize?: number } = {}): Promise<{ events: number; deliveries: number; sessionIds: string[] }> {
  const batchSize = options.batchSize ?? 500;
  const now = env.clock.now().getTime();
  return writeTransaction(env.db, async (trx) => {
    const sessions = (
      await trx
        .selectFrom("webhook_listen_sessions")
        .select(["id", "user_id", "events", "countries", "operators", "last_seq"])
        .where("status", "=", "open")
        .where("lease_until", ">=", now)
        .execute()
    ).map((s) => ({ ...filterOf(s), lastSeq: Number(s.last_seq) }));
    if (sessions.length === 0) return { events: 0, deliveries: 0, sessionIds: [] };
    const from = Math.min(...sessions.map((s) => s.lastSeq));
    const changes = await feed.readAfter(trx, from, batchSize);
    if (changes.length === 0) return { events: 0, deliveries: 0, sessionIds: [] };

    const rows: WebhookListenDeliveryTable[] = [];
    for (const { seq, event } of changes) {
      const targets = sessions.filter((s) => seq > s.lastSeq && matches(s, event));
      if (targets.length === 0) continue;
      const payload = JSON.stringify(event);
      for (const s of targets) rows.push(newListenDelivery({ sessionId: s.id, userId: s.userId, event, payload, now }));
    }
    await insertListenDeliveries(trx, rows);
    const through = changes.at(-1)!.seq;
    for (const s of sessions) {
      if (s.lastSeq >= through) continue;
      // Never backwards: a resume in between may have moved it to the head already.
      await trx.updateTable("webhook_listen_sessions").set({ last_seq: through }).where("id", "=", s.id).where("last_seq", "<", through).execute();
    }
    return { events: changes.length, deliveries: rows.length, sessionIds: [...new Set(rows.map((r) => r.session_id))] };
  });
}

/** Steps until the feed has nothing more for the open sessions (bounded). */
export async function fanOutAllToListenSessions(env: WebhookEnv, feed: ChangeFeed, options: { batchSize?: number; maxRounds?: number } = {}) {
  const totals = { events: 0, deliveries: 0, sessionIds: new Set<string>() };
  for (let round = 0; round < (options.maxRounds ?? 100); round++) {
    const step = await fanOutToListenSessions(env, feed, options);
    totals.events += step.events;
    totals.deliveries += step.deliveries;
    for (const id of step.sessionIds) totals.sessionIds.add(id);
    if (step.events === 0) break;
  }
  return { events: totals.events, deliveries: totals.deliveries, sessionIds: [...totals.sessionIds] };
}
