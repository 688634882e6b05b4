import { lastChangeSeq } from "../../catalog/changes/changes.ts";
import { toIso, toIsoOrNull } from "../../contract/common.ts";
import { EVENT_TYPES, type EventType } from "../../contract/events.ts";
import type { ListenSession } from "../../contract/webhooks.ts";
import type { Db } from "../../db/db.ts";
import { lockAccount, writeTransaction, type WriteTrx } from "../../db/transaction.ts";
import { AppError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { generateSecret } from "../delivery/signing.ts";
import type { WebhookEnv } from "../env.ts";
import type { WebhookListenSessionTable } from "../tables.ts";
import { failUnsent } from "./deliveries.ts";
import { ownListenSession } from "./ownership.ts";
import type { ListenSettings } from "./settings.ts";

/**
 * Listen sessions (docs/webhooks.md "Listen sessions"): a subscription that lives as long as a stream.
 * A session is `open` while the process holding its stream renews its lease; it ends when the stream
 * closes (or its holder vanishes and the lease runs out), and can be resumed, same id and secret,
 * within an hour by the account that opened it: that is how the CLI reconnects without changing the
 * secret the developer's receiver was given. Events while no stream was attached are not replayed.
 */

/** Why a session ended; `ended` (by the account) is final, every other reason can be resumed. */
export type EndReason = "stream_closed" | "ended" | "shutdown" | "lease_expired" | "idle" | "replaced";

export interface ListenFilters {
  events?: EventType[];
  countries?: string[];
  operators?: string[];
}

export function toListenSession(row: WebhookListenSessionTable): ListenSession {
  return {
    id: row.id,
    status: row.status,
    events: JSON.parse(row.events) as EventType[],
    countries: JSON.parse(row.countries) as string[],
    operators: JSON.parse(row.operators) as string[],
    forward_to: row.forward_to,
    created_at: toIso(Number(row.created_at)),
    connected_at: toIso(Number(row.connected_at)),
    ended_at: toIsoOrNull(row.ended_at === null ? null : Number(row.ended_at)),
    end_reason: row.end_reason,
  };
}


/**
 * Makes the write (which opens one session of the account) only if the account then has at most
 * `cap` open sessions, atomically under parallel opens on any instances and both databases: the
 * account is locked first (db/transaction.ts `lockAccount`: its row FOR UPDATE on MySQL/MariaDB, the
 * write lock on SQLite), so opens of one account run one after the other and each counts what the
 * previous ones committed. Over the cap, the transaction rolls back and nothing is written.
 */
async function withinSessionCap(db: Db, userId: string, cap: number, now: number, write: (trx: WriteTrx) => Promise<boolean>): Promise<boolean> {
  return writeTransaction(db, async (trx) => {
    if (!(await lockAccount(trx, userId))) throw new AppError("UNAUTHORIZED", "Sign in to use the console");
    if (!(await write(trx))) return false;
    const { n } = await trx
      .selectFrom("webhook_listen_sessions")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_id", "=", userId)
      .where("status", "=", "open")
      .where("lease_until", ">=", now)
      .executeTakeFirstOrThrow();
    if (Number(n) > cap) {
      throw new AppError(
        "LISTEN_SESSION_LIMIT_REACHED",
        `An account can have ${cap} open listen sessions; stop one (Ctrl-C its \`ir21 listen\`, or DELETE /console/listen-sessions/:id) first`,
      );
    }
    return true;
  });
}

/** Opens a session held by `holder`: its secret is returned here only (the stream's ready message). */
export async function openListenSession(
  env: WebhookEnv,
  settings: ListenSettings,
  input: { userId: string; filters: ListenFilters; forwardTo: string | null; holder: string },
): Promise<{ row: WebhookListenSessionTable; secret: string }> {
  const now = env.clock.now().getTime();
  const id = newId("lsn", now);
  const secret = generateSecret();
  const row: WebhookListenSessionTable = {
    id,
    user_id: input.userId,
    events: JSON.stringify(input.filters.events?.length ? input.filters.events : EVENT_TYPES),
    countries: JSON.stringify(input.filters.countries ?? []),
    operators: JSON.stringify(input.filters.operators ?? []),
    forward_to: input.forwardTo,
    secret_sealed: env.box.seal(secret, id),
    status: "open",
    end_reason: null,
    holder: input.holder,
    lease_until: now + settings.leaseMs,
    // Events committed from now on; what came before is in /v1/changes.
    last_seq: await lastChangeSeq(env.db),
    created_at: now,
    connected_at: now,
    ended_at: null,
    updated_at: now,
  };
  await withinSessionCap(env.db, input.userId, settings.sessionsPerAccount, now, async (trx) => {
    await trx.insertInto("webhook_listen_sessions").values(row).execute();
    return true;
  });
  return { row, secret };
}

/**
 * Attaches a new stream to the account's session `id`: still open (its old stream may not have been
 * noticed gone yet; that holder lets go at its next look) or ended within the resume window for any
 * reason but `ended`. Events between the two streams are not replayed.
 */
export async function resumeListenSession(
  env: WebhookEnv,
  settings: ListenSettings,
  input: { userId: string; id: string; holder: string },
): Promise<{ row: WebhookListenSessionTable; secret: string }> {
  const now = env.clock.now().getTime();
  const current = await ownListenSession(env.db, input.userId, input.id);
  const resumable = current.status === "open" || (current.end_reason !== "ended" && Number(current.ended_at) >= now - settings.resumeWindowMs);
  if (!resumable) throw new AppError("CONFLICT", "This listen session has ended and cannot be resumed; open a new one");
  const lastSeq = await lastChangeSeq(env.db);
  const resumed = await withinSessionCap(env.db, input.userId, settings.sessionsPerAccount, now, async (trx) => {
    const updated = await trx
      .updateTable("webhook_listen_sessions")
      .set({ status: "open", holder: input.holder, lease_until: now + settings.leaseMs, connected_at: now, ended_at: null, end_reason: null, last_seq: lastSeq, updated_at: now })
      .where("id", "=", input.id)
      .where("user_id", "=", input.userId)
      // Unchanged since it was judged resumable (an `ended` by the account in between wins).
      .where("updated_at", "=", current.updated_at)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  });
  if (!resumed) throw new AppError("CONFLICT", "This listen session changed meanwhile; try again");
  const row = await ownListenSession(env.db, input.userId, input.id);
  return { row, secret: env.box.open(row.secret_sealed, row.id) };
}

/**
 * Ends an open session (only if `holder` still holds it, when given) and fails its deliveries not yet
 * sent; deliveries already on the stream keep waiting for their report until the report timeout.
 * Returns whether it was open.
 */
export async function endListenSession(db: Db, input: { id: string; reason: EndReason; now: number; holder?: string }): Promise<boolean> {
  return writeTransaction(db, async (trx) => {
    let query = trx
      .updateTable("webhook_listen_sessions")
      .set({ status: "ended", ended_at: input.now, end_reason: input.reason, holder: null, lease_until: null, updated_at: input.now })
      .where("id", "=", input.id)
      .where("status", "=", "open");
    if (input.holder !== undefined) query = query.where("holder", "=", input.holder);
    const updated = await query.executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return false;
    await failUnsent(trx, { sessionIds: [input.id], now: input.now, error: `stream_closed: the session ended (${input.reason}) before this delivery was sent` });
    return true;
  });
}

/**
 * Ends the session for good (the account's DELETE): an open one ends now, an ended one can no longer
 * be resumed. Returns whether it was open (its holder is then told to close the stream).
 */
export async function endListenSessionForGood(db: Db, input: { id: string; now: number }): Promise<boolean> {
  return writeTransaction(db, async (trx) => {
    if (await endListenSession(trx, { id: input.id, reason: "ended", now: input.now })) return true;
    await trx.updateTable("webhook_listen_sessions").set({ end_reason: "ended", updated_at: input.now }).where("id", "=", input.id).where("status", "=", "ended").execute();
    return false;
  });
}

/** Newest first: open sessions and those that ended within the retention period. */
export async function listListenSessions(env: WebhookEnv, userId: string): Promise<ListenSession[]> {
  const now = env.clock.now().getTime();
  const rows = await env.db.selectFrom("webhook_listen_sessions").selectAll().where("user_id", "=", userId).orderBy("created_at", "desc").orderBy("id", "desc").limit(100).execute();
  // A session whose holder vanished is ended in substance before the sweep writes it down.
  return rows.map((row) => toListenSession(row.status === "open" && Number(row.lease_until) < now ? { ...row, status: "ended", end_reason: "lease_expired", ended_at: Number(row.lease_until) } : row));
}

/** The holder keeps its sessions alive. */
export async function renewLeases(db: Db, input: { ids: string[]; holder: string; until: number }): Promise<void> {
  if (input.ids.length === 0) return;
  await writeTransaction(db, (trx) => trx.updateTable("webhook_listen_sessions").set({ lease_until: input.until }).where("id", "in", input.ids).where("holder", "=", input.holder).where("status", "=", "open").execute());
}

/** Open listen sessions of the whole deployment (the metrics' `ir21_listen_sessions_open`). */
export async function countOpenListenSessions(db: Db): Promise<number> {
  const row = await db.selectFrom("webhook_listen_sessions").select((eb) => eb.fn.countAll<number>().as("n")).where("status", "=", "open").executeTakeFirstOrThrow();
  return Number(row.n);
}
