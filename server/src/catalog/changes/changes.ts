import { toIso, toIsoOrNull } from "../../contract/common.ts";
import { CATALOG_UPDATED, type EventPayload, type EventType } from "../../contract/events.ts";
import type { Db } from "../../db/db.ts";
import { AppError } from "../../errors.ts";
import { operatorFilterIds } from "../operators/lineage.ts";
import { prunedThroughSeq } from "./retention.ts";
import type { ChangeTable } from "../model/tables.ts";
import { findVersion } from "../model/versions.ts";

/**
 * The change log as events. Rows are written only by imports (import.ts), in commit order, with a
 * strictly increasing `seq`: the webhook fan-out reads them as a durable outbox (cursor = the last
 * seq it processed) and /v1/changes pages over them.
 */

export interface LoggedEvent {
  /** Position in the change log (commit order). */
  seq: number;
  event: EventPayload;
}

/**
 * The contract's payload for a change-log row. Events about no single country or operator
 * (ir21.catalog.updated, a range whose holder is not linked to an operator) carry "" there
 * (docs/catalog.md "Events").
 */
export function toEventPayload(row: ChangeTable): EventPayload {
  return {
    id: row.event_id,
    type: row.type as EventType,
    occurred_at: toIso(Number(row.occurred_at)),
    effective_at: toIsoOrNull(row.effective_at === null ? null : Number(row.effective_at)),
    dataset_version: row.dataset_version,
    previous_version: row.previous_version,
    country_iso2: row.country_iso2 ?? "",
    operator_id: row.operator_id ?? "",
    data: JSON.parse(row.data) as Record<string, unknown>,
    test: false,
  };
}

/**
 * Events committed after `afterSeq`, oldest first: the fan-out's outbox read.
 * @example
 * let cursor = 0;
 * for (const { seq, event } of await readChangesAfter(db, cursor, 500)) { enqueue(event); cursor = seq; }
 */
export async function readChangesAfter(db: Db, afterSeq: number, limit: number): Promise<LoggedEvent[]> {
  const rows = await db.selectFrom("catalog_changes").selectAll().where("seq", ">", afterSeq).orderBy("seq").limit(limit).execute();
  return rows.map((row) => ({ seq: Number(row.seq), event: toEventPayload(row) }));
}

/** The highest seq in the change log (0 when empty): where a new fan-out starts if it should skip history. */
export async function lastChangeSeq(db: Db): Promise<number> {
  const row = await db.selectFrom("catalog_changes").select((eb) => eb.fn.max("seq").as("seq")).executeTakeFirst();
  return Number(row?.seq ?? 0);
}

export interface ChangesQuery {
  /** Events of versions after this one (exclusive). */
  since: string;
  /** Continue after this change-log seq (from next_cursor). */
  afterSeq?: number;
  limit: number;
  types?: EventType[];
  countries?: string[];
  operators?: string[];
  /** Only versions up to this seq: the version the request is answered from. */
  untilVersionSeq: number;
}

/**
 * /v1/changes: events of the versions after `since`, in order, filtered by type, country and
 * operator, except ir21.catalog.updated which no filter hides (it tells the client to reload).
 */
export async function queryChanges(db: Db, query: ChangesQuery): Promise<{ items: LoggedEvent[]; more: boolean }> {
  let sinceSeq = 0;
  if (query.since !== "none") {
    const since = await findVersion(db, query.since);
    if (!since) throw new AppError("UNKNOWN_DATASET_VERSION", `since: no dataset version "${query.since}" on this server; use a version from meta.dataset_version or "none" for all changes`);
    sinceSeq = since.seq;
  }
  // Checked on every page: retention may prune while a client pages (retention.ts).
  const prunedThrough = await prunedThroughSeq(db);
  if (sinceSeq < prunedThrough) {
    const oldest = await db.selectFrom("dataset_versions").select("version").where("seq", "=", prunedThrough).executeTakeFirst();
    throw new AppError(
      "UNKNOWN_DATASET_VERSION",
      `since: the changes after "${query.since}" are no longer kept (change-log retention); the oldest since still served is "${oldest?.version ?? "unknown"}". Reload GET /v1/snapshot and continue from its dataset_version`,
    );
  }
  let q = db
    .selectFrom("catalog_changes")
    .selectAll()
    .where("version_seq", ">", sinceSeq)
    .where("version_seq", "<=", query.untilVersionSeq);
  if (query.afterSeq !== undefined) q = q.where("seq", ">", query.afterSeq);
  const { types, countries, operators } = query;
  if (types?.length || countries?.length || operators?.length) {
    q = q.where((eb) => {
      const filters = [];
      if (types?.length) filters.push(eb("type", "in", types));
      if (countries?.length) filters.push(eb("country_iso2", "in", countries));
      // A merged duplicate's id also finds its survivor's events (docs/webhooks.md "Merged operator ids").
      if (operators?.length) filters.push(eb("operator_id", "in", operatorFilterIds(operators)));
      return eb.or([eb("type", "=", CATALOG_UPDATED), eb.and(filters)]);
    });
  }
  const rows = await q.orderBy("seq").limit(query.limit + 1).execute();
  const more = rows.length > query.limit;
  return { items: rows.slice(0, query.limit).map((row) => ({ seq: Number(row.seq), event: toEventPayload(row) })), more };
}
