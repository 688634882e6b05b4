import { sql, type Kysely, type SelectQueryBuilder } from "kysely";
import type { Capability, Country, Network, NumberRange, Operator } from "../../contract/catalog.ts";
import type { Db } from "../../db/db.ts";
import { AppError } from "../../errors.ts";
import { capabilities, countries, networks, numberRanges, operators, type EntityKind } from "./entities.ts";
import { operatorFilterIds, survivingOperatorId } from "../operators/lineage.ts";
import { servesCountry } from "../operators/territories.ts";

/**
 * Reading the catalogue at a pinned dataset version (by its seq): a record incarnation is visible
 * when valid_from <= seq < valid_to. Lists are keyset-paged by id; the cursor carries the version it
 * started at, so every page of a listing comes from the same version even if an import commits
 * between pages.
 */

export interface Page<T> {
  items: T[];
  /** Opaque; null on the last page. */
  next_cursor: string | null;
}

interface CursorState {
  /** Version seq the listing is pinned at. */
  v: number;
  /** Last id of the previous page. */
  k: string;
}

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state)).toString("base64url");
}

export function decodeCursor(cursor: string): CursorState {
  try {
    const state = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as CursorState;
    if (Number.isInteger(state.v) && state.v > 0 && typeof state.k === "string") return state;
  } catch {
    // fall through
  }
  throw new AppError("INVALID_REQUEST", "cursor: not a cursor returned by a previous page");
}

/** The version a request reads: the cursor's (a later page of the same listing) or the current one. */
export function readSeq(currentSeq: number, cursor: string | undefined): { seq: number; after: string | null } {
  if (!cursor) return { seq: currentSeq, after: null };
  const state = decodeCursor(cursor);
  if (state.v > currentSeq) throw new AppError("INVALID_REQUEST", "cursor: not a cursor returned by a previous page");
  return { seq: state.v, after: state.k };
}

type AnyQuery = SelectQueryBuilder<any, any, any>;

function atVersion<Q extends AnyQuery>(query: Q, seq: number): Q {
  return query.where("valid_from", "<=", seq).where("valid_to", ">", seq) as Q;
}

async function page<R>(kind: EntityKind<R>, query: AnyQuery, seq: number, after: string | null, limit: number): Promise<Page<R & { dataset_version: string }>> {
  let q = atVersion(query, seq);
  if (after !== null) q = q.where("id", ">", after);
  const rows = await q.orderBy("id").limit(limit + 1).execute();
  const items = rows.slice(0, limit).map((row) => kind.fromRow(row as never));
  const last = items.at(-1);
  return { items, next_cursor: rows.length > limit && last ? encodeCursor({ v: seq, k: kind.key(last) }) : null };
}

const raw = (db: Db) => db as unknown as Kysely<any>;

async function one<R>(db: Db, kind: EntityKind<R>, seq: number, id: string): Promise<(R & { dataset_version: string }) | null> {
  const row = await atVersion(raw(db).selectFrom(kind.table).selectAll().where("id", "=", id), seq).executeTakeFirst();
  return row ? kind.fromRow(row as never) : null;
}

export async function listCountries(db: Db, seq: number): Promise<Country[]> {
  const rows = await atVersion(raw(db).selectFrom("catalog_countries").selectAll(), seq).orderBy("id").execute();
  return rows.map((row) => countries.fromRow(row as never));
}

export const getCountry = (db: Db, seq: number, iso2: string) => one(db, countries, seq, iso2) as Promise<Country | null>;

export interface OperatorFilter {
  country?: string;
  q?: string;
}

/** The operators serving a country (servesCountry), in id order: a country's operators are a few hundred at most. */
export async function countryOperators(db: Db, seq: number, country: string): Promise<Operator[]> {
  const rows = await atVersion(raw(db).selectFrom("catalog_operators").selectAll().where(servesCountry(country)), seq).orderBy("id").execute();
  return rows.map((row) => operators.fromRow(row as never) as Operator);
}

export function listOperators(db: Db, seq: number, filter: OperatorFilter, after: string | null, limit: number): Promise<Page<Operator>> {
  // Test, unassigned and composite rows are no operators: not listed, still served by id.
  let q = raw(db).selectFrom("catalog_operators").selectAll().where("listed", "=", 1);
  if (filter.country) q = q.where(servesCountry(filter.country));
  if (filter.q) {
    // Case-insensitive substring on both databases (MySQL tables use a binary collation); instr
    // rather than LIKE, so % and _ in the search text are plain characters.
    const needle = filter.q.toLowerCase();
    q = q.where((eb) =>
      eb.or(["name", "brand", "name_local"].map((column) => eb(sql<number>`instr(lower(coalesce(${sql.ref(column)}, '')), ${needle})`, ">", 0))),
    );
  }
  return page(operators, q, seq, after, limit);
}

export const getOperator = (db: Db, seq: number, id: string) => one(db, operators, seq, id);

/**
 * The ids an `operator` filter matches: the id itself and, for a merged near-duplicate, its survivor
 * (the old id still finds the networks and ranges it had; an older version pinned by a cursor still
 * holds them under the old id).
 */
const operatorIdsFor = (id: string): string[] => operatorFilterIds([id]);

export interface NetworkFilter {
  country?: string;
  operator?: string;
  mcc?: string;
  mnc?: string;
  tadig?: string;
}

export function listNetworks(db: Db, seq: number, filter: NetworkFilter, after: string | null, limit: number): Promise<Page<Network>> {
  let q = raw(db).selectFrom("catalog_networks").selectAll();
  if (filter.country) q = q.where("country_iso2", "=", filter.country);
  if (filter.operator) q = q.where("operator_id", "in", operatorIdsFor(filter.operator));
  if (filter.mcc) q = q.where("mcc", "=", filter.mcc);
  if (filter.mnc) q = q.where("mnc", "=", filter.mnc);
  if (filter.tadig) q = q.where("tadig", "=", filter.tadig);
  return page(networks, q, seq, after, limit);
}

export const getNetwork = (db: Db, seq: number, id: string) => one(db, networks, seq, id);

export interface NumberRangeFilter {
  country?: string;
  operator?: string;
  kind?: NumberRange["kind"];
  plan?: NumberRange["plan"];
  /** Ranges whose digits start with these (country code included), e.g. 86139. */
  prefix?: string;
}

export function listNumberRanges(db: Db, seq: number, filter: NumberRangeFilter, after: string | null, limit: number): Promise<Page<NumberRange>> {
  let q = raw(db).selectFrom("catalog_number_ranges").selectAll();
  if (filter.country) q = q.where("country_iso2", "=", filter.country);
  if (filter.operator) q = q.where("operator_id", "in", operatorIdsFor(filter.operator));
  if (filter.kind) q = q.where("kind", "=", filter.kind);
  if (filter.plan) q = q.where("plan", "=", filter.plan);
  if (filter.prefix) {
    // Ids are "e164-<digits>…", so a digit prefix is an id range on the primary key (":" sorts after "9").
    const plan = filter.plan ?? "e164";
    q = q.where("id", ">=", `${plan}-${filter.prefix}`).where("id", "<", `${plan}-${filter.prefix}:`);
  }
  return page(numberRanges, q, seq, after, limit);
}

export const getNumberRange = (db: Db, seq: number, id: string) => one(db, numberRanges, seq, id);

export interface CapabilityFilter {
  country?: string;
  operator?: string;
  network?: string;
  name?: string;
}

export function listCapabilities(db: Db, seq: number, filter: CapabilityFilter, after: string | null, limit: number): Promise<Page<Capability>> {
  let q = raw(db).selectFrom("catalog_capabilities").selectAll();
  if (filter.country) q = q.where("country_iso2", "=", filter.country);
  if (filter.operator) q = q.where("operator_id", "in", operatorIdsFor(filter.operator));
  if (filter.network) q = q.where("network_id", "=", filter.network);
  if (filter.name) q = q.where("name", "=", filter.name);
  return page(capabilities, q, seq, after, limit);
}

/** An operator with what hangs off it: networks, capabilities and range counts. */
export async function operatorDetail(db: Db, seq: number, requested: string) {
  // The id of a duplicate merged into another operator (operator-lineage.ts OPERATOR_MERGES) still
  // resolves: to the survivor's record, whose id tells the caller the new one.
  const operator = (await getOperator(db, seq, requested)) ?? (survivingOperatorId(requested) !== requested ? await getOperator(db, seq, survivingOperatorId(requested)) : null);
  if (!operator) return null;
  const id = operator.id;
  const nets = await atVersion(raw(db).selectFrom("catalog_networks").selectAll().where("operator_id", "=", id), seq).orderBy("id").execute();
  const caps = await atVersion(raw(db).selectFrom("catalog_capabilities").selectAll().where("operator_id", "=", id), seq).orderBy("id").execute();
  const counts = await atVersion(
    raw(db)
      .selectFrom("catalog_number_ranges")
      .select(["plan", "kind", (eb) => eb.fn.countAll<number>().as("n")])
      .where("operator_id", "=", id),
    seq,
  )
    .groupBy(["plan", "kind"])
    .execute();
  const rangeCounts = { total: 0, e164: 0, e212: 0, mobile: 0, fixed: 0, other: 0, by_kind: {} as Record<string, number> };
  for (const c of counts) {
    const n = Number(c.n);
    rangeCounts.total += n;
    rangeCounts[c.plan as "e164" | "e212"] += n;
    rangeCounts[c.kind === "mobile" || c.kind === "fixed" ? (c.kind as "mobile" | "fixed") : "other"] += n;
    rangeCounts.by_kind[c.kind] = (rangeCounts.by_kind[c.kind] ?? 0) + n;
  }
  return {
    ...operator,
    networks: nets.map((row) => networks.fromRow(row as never)),
    capabilities: caps.map((row) => capabilities.fromRow(row as never)),
    number_range_counts: rangeCounts,
  };
}

/**
 * Every current record of one kind in id order, in batches: what exports and the lookup index read.
 * Memory stays flat: one batch at a time.
 */
export async function* streamRecords<R>(db: Db, kind: EntityKind<R>, seq: number, batch = 2_000): AsyncGenerator<R & { dataset_version: string }> {
  let after: string | null = null;
  for (;;) {
    let q = atVersion(raw(db).selectFrom(kind.table).selectAll(), seq);
    if (after !== null) q = q.where("id", ">", after);
    const rows = await q.orderBy("id").limit(batch).execute();
    for (const row of rows) yield kind.fromRow(row as never);
    if (rows.length < batch) return;
    after = rows.at(-1)!.id as string;
  }
}
