import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Clock } from "../../clock.ts";
import type { DatasetCounts, SourceDescriptor } from "../../contract/catalog.ts";
import { CATALOG_UPDATED, type EventType } from "../../contract/events.ts";
import type { Db } from "../../db/db.ts";
import { writeTransaction } from "../../db/transaction.ts";
import { AppError } from "../../errors.ts";
import type { DatasetMetaSource } from "../model/dataset-meta.ts";
import { COUNTRY_SOURCE, ENTITY_KINDS, OPEN_VERSION, changedFields, contentHash, operators, type EntityKind, type EntityName } from "../model/entities.ts";
import { insertTerritoryRows } from "../operators/territories.ts";
import type { CandidateDataset, RecordSource } from "../model/records.ts";
import type { ChangeTable } from "../model/tables.ts";
import { currentVersion, formatVersion, type StoredVersion } from "../model/versions.ts";
import { isRegisterSource } from "./national-registers.ts";
import type { ImportMetrics } from "../../observability/metrics.ts";
import type { SpanHandle, Tracing } from "../../observability/tracing.ts";

/**
 * Importing a dataset (docs/catalog.md "Imports"): diff a complete candidate against the current
 * version, and when anything differs write the changed record incarnations, the change log and the
 * new version row in ONE transaction, so readers see the old version or the new one, never a mix,
 * and the change log can never miss a change.
 *
 * Imports are serialised by the lock row (catalog_import_lock): the transaction updates it first,
 * which on MySQL/MariaDB holds the row lock until commit and on SQLite takes the single write lock.
 * Change-log sequence numbers are assigned under that lock, so sequence order is commit order and
 * the webhook fan-out can use the change log as an outbox (cursor = last seq processed).
 */

/** What an import reports to the server's metrics and traces (observability/); absent in one-shot tools. */
export interface ImportTelemetry {
  metrics: ImportMetrics;
  tracing: Tracing | null;
}

export interface ImportTarget {
  db: Db;
  clock: Clock;
  /** Invalidated after a new version commits, so this instance's envelopes switch at once. */
  datasetMeta?: DatasetMetaSource;
  /** Counted, timed and traced when given (the server's env has it). */
  telemetry?: ImportTelemetry;
}

export interface ImportProgress {
  phase: "compare" | "write";
  entity: EntityName | "changes";
  /** Records compared or rows written so far in this phase and entity. */
  done: number;
}

export interface ImportOptions {
  /** Written into the lock row while the import holds it (who is importing). */
  holder?: string;
  /** Where catalog.updated events tell subscribers to fetch the full snapshot. */
  snapshotUrl?: string;
  /** Announce this version as a global reset (ir21.catalog.updated) even when the diff is small. */
  fullReset?: boolean;
  onProgress?: (progress: ImportProgress) => void;
}

export type EntityChangeCounts = Record<EntityName, { added: number; removed: number; updated: number }>;

export interface ImportResult {
  /** False when the candidate equals the current version: nothing was written. */
  created: boolean;
  /** The new version, or the unchanged current one. */
  version: string;
  previousVersion: string | null;
  /** Rows written to the change log. */
  events: number;
  /** Set when the version was announced as a global reset (only ir21.catalog.updated is logged then). */
  resetReason: ResetReason | null;
  changes: EntityChangeCounts;
  counts: DatasetCounts;
}

export type ResetReason = "initial_import" | "source_mode_changed" | "sources_changed" | "large_change" | "manual_reset" | "reference_data_changed" | "source_metadata";

/**
 * A diff this large is announced as one ir21.catalog.updated ("reload the snapshot") instead of one
 * event per record: above both this share of the records and RESET_MIN_EVENTS.
 */
export const RESET_SHARE = 0.25;
export const RESET_MIN_EVENTS = 1_000;

const WRITE_BATCH = 500;
const FETCH_BATCH = 500;

/** What the compare pass knows of a changed record. `record` is kept only when the source cannot be read twice. */
interface Change {
  hash: string;
  record?: unknown;
  /** The stored incarnation (with its dataset_version), for updates. */
  before?: Record<string, unknown>;
}

interface EntityPlan {
  kind: EntityKind;
  source: RecordSource<unknown>;
  /**
   * Arrays and other re-iterable sources are read twice (compare, then write), so a large import never
   * holds its records in memory; a one-shot generator's changed records are kept from the first pass.
   */
  reiterable: boolean;
  added: Map<string, Change>;
  updated: Map<string, Change>;
  removed: Record<string, unknown>[];
  total: number;
  linked: number;
}

interface Plan {
  base: StoredVersion | null;
  entities: EntityPlan[];
}

async function* iterate<T>(source: RecordSource<T>): AsyncGenerator<T> {
  for await (const item of source as AsyncIterable<T>) yield item;
}

/** Generators are their own iterator and can be read once; arrays and iterable objects start over. */
const isReiterable = (source: RecordSource<unknown>) => typeof (source as { next?: unknown }).next !== "function";

function validationError(kind: EntityKind, key: string, issues: { path: PropertyKey[]; message: string }[]): AppError {
  const detail = issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join(".") || "(record)"}: ${i.message}`)
    .join("; ");
  return new AppError("INVALID_DATASET", `${kind.name} ${key}: ${detail}`);
}

function parseRecord(kind: EntityKind, raw: unknown): { key: string; record: unknown } {
  const parsed = kind.schema.safeParse(raw);
  const key = String(kind.key(raw) ?? "(no id)");
  if (!parsed.success) throw validationError(kind, key, parsed.error.issues as never);
  return { key, record: parsed.data };
}

/** Compares one entity's candidate records with the current rows. */
async function planEntity(db: Kysely<any>, kind: EntityKind, source: RecordSource<unknown>, sources: Set<string>, onProgress?: ImportOptions["onProgress"]): Promise<EntityPlan> {
  const current = new Map<string, string>();
  for await (const row of db.selectFrom(kind.table).select(["id", "content_hash"]).where("valid_to", "=", OPEN_VERSION).stream(5_000)) {
    current.set(row.id as string, row.content_hash as string);
  }
  const reiterable = isReiterable(source);
  const plan: EntityPlan = { kind, source, reiterable, added: new Map(), updated: new Map(), removed: [], total: 0, linked: 0 };
  const seen = new Set<string>();
  for await (const raw of iterate(source)) {
    const { key, record } = parseRecord(kind, raw);
    if (seen.has(key)) throw new AppError("INVALID_DATASET", `${kind.name} ${key}: the id appears twice`);
    seen.add(key);
    if (!sources.has(kind.sourceOf(record))) throw new AppError("INVALID_DATASET", `${kind.name} ${key}: source "${kind.sourceOf(record)}" is not among the dataset's sources`);
    plan.total++;
    if ((record as { operator_id?: unknown }).operator_id) plan.linked++;
    const hash = contentHash(kind, record);
    const stored = current.get(key);
    if (stored === undefined) plan.added.set(key, reiterable ? { hash } : { hash, record });
    else {
      current.delete(key);
      if (stored !== hash) plan.updated.set(key, reiterable ? { hash } : { hash, record });
    }
    if (onProgress && plan.total % 100_000 === 0) onProgress({ phase: "compare", entity: kind.name, done: plan.total });
  }
  // What is left of the current rows is not in the candidate: removed.
  const removedKeys = [...current.keys()];
  current.clear();
  const before = await fetchCurrent(db, kind, [...plan.updated.keys(), ...removedKeys]);
  for (const [key, change] of plan.updated) change.before = before.get(key)!;
  plan.removed = removedKeys.map((k) => before.get(k)!);
  onProgress?.({ phase: "compare", entity: kind.name, done: plan.total });
  return plan;
}

async function fetchCurrent(db: Kysely<any>, kind: EntityKind, keys: string[]): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < keys.length; i += FETCH_BATCH) {
    const rows = await db
      .selectFrom(kind.table)
      .selectAll()
      .where("valid_to", "=", OPEN_VERSION)
      .where("id", "in", keys.slice(i, i + FETCH_BATCH))
      .execute();
    for (const row of rows) found.set(row.id as string, kind.fromRow(row as never) as Record<string, unknown>);
  }
  return found;
}

async function makePlan(db: Kysely<any>, candidate: CandidateDataset, onProgress?: ImportOptions["onProgress"]): Promise<Plan> {
  const base = await currentVersion(db as Db);
  const sources = new Set(candidate.sources.map((s) => s.id));
  if (sources.size !== candidate.sources.length) throw new AppError("INVALID_DATASET", "Two sources share an id");
  const inputs: Record<EntityName, RecordSource<unknown>> = {
    countries: candidate.countries,
    operators: candidate.operators,
    networks: candidate.networks,
    number_ranges: candidate.numberRanges,
    capabilities: candidate.capabilities,
  };
  // Country records name no source; their source is the fixed country reference.
  const countrySources = new Set([...sources, COUNTRY_SOURCE]);
  const entities: EntityPlan[] = [];
  for (const kind of ENTITY_KINDS) {
    entities.push(await planEntity(db, kind, inputs[kind.name], kind.name === "countries" ? countrySources : sources, onProgress));
  }
  return { base, entities };
}

/**
 * The changed records with their planned hashes, in source order: from memory for a one-shot source,
 * else by reading the source again (and refusing it if it no longer yields what was compared).
 */
async function* changedRecords(plan: EntityPlan): AsyncGenerator<{ key: string; record: unknown; hash: string; before?: Record<string, unknown> }> {
  const { kind } = plan;
  if (!plan.reiterable) {
    for (const [key, change] of plan.added) yield { key, record: change.record, hash: change.hash };
    for (const [key, change] of plan.updated) yield { key, record: change.record, hash: change.hash, before: change.before };
    return;
  }
  if (plan.added.size === 0 && plan.updated.size === 0) return;
  let found = 0;
  for await (const raw of iterate(plan.source)) {
    // Only changed records are parsed again; the rest were validated by the compare pass.
    const change = plan.added.get(String(kind.key(raw))) ?? plan.updated.get(String(kind.key(raw)));
    if (!change) continue;
    const { key, record } = parseRecord(kind, raw);
    if (contentHash(kind, record) !== change.hash) throw new AppError("INVALID_DATASET", `${kind.name} ${key}: the candidate changed while it was being imported`);
    found++;
    yield { key, record, hash: change.hash, before: change.before };
  }
  if (found !== plan.added.size + plan.updated.size) throw new AppError("INVALID_DATASET", `${kind.name}: the candidate changed while it was being imported`);
}

/** What a source looks like apart from its content: a change here is a change of source metadata. */
function sourceIdentity(sources: SourceDescriptor[]): string {
  return JSON.stringify(
    // A register's next file is the same source, newer: its date (the version) is not its identity, so
    // loading it is diffed and announced record by record (a block that moved from one company to
    // another is an updated range with before and after). A package's new release still resets.
    sources.map((s) => [s.id, s.package, isRegisterSource(s.id) ? null : s.version, s.license, s.sample]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  );
}

/**
 * What a source says about itself beyond its identity: publication and effective times, files and their
 * checksums, file version. A change here alone (an IR.21 document re-sent with a new creation time)
 * still makes a new version, so `source_published_at` and the checksums are right.
 */
function sourceMetadata(sources: SourceDescriptor[]): string {
  return JSON.stringify(
    sources.map((s) => [s.id, s.published_at, s.effective_at, s.file_version ?? null, s.data_version ?? null, s.files.map((f) => [f.path, f.sha256])]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  );
}

function eventCount(plan: Plan): number {
  return plan.entities.filter((e) => e.kind.events).reduce((n, e) => n + e.added.size + e.updated.size + e.removed.length, 0);
}

function resetReasonOf(plan: Plan, candidate: CandidateDataset, options: ImportOptions): ResetReason | null {
  if (!plan.base) return "initial_import";
  if (options.fullReset) return "manual_reset";
  if (plan.base.sourceMode !== candidate.sourceMode) return "source_mode_changed";
  if (sourceIdentity(plan.base.sources) !== sourceIdentity(candidate.sources)) return "sources_changed";
  const events = eventCount(plan);
  const records = Math.max(
    plan.entities.reduce((n, e) => n + e.total, 0),
    Object.values(plan.base.counts).reduce((n, c) => n + (typeof c === "number" ? c : 0), 0) - (plan.base.counts.number_ranges_linked ?? 0),
  );
  if (events > RESET_MIN_EVENTS && events > RESET_SHARE * records) return "large_change";
  if (events === 0) {
    // Only country reference data changed (countries are not evented): still announced, so nobody misses it.
    const countries = plan.entities.find((e) => e.kind.name === "countries")!;
    if (countries.added.size + countries.updated.size + countries.removed.length > 0) return "reference_data_changed";
    // Nothing but the sources' own metadata changed (creation time, file version, checksums).
    return sourceMetadata(plan.base.sources) !== sourceMetadata(candidate.sources) ? "source_metadata" : "reference_data_changed";
  }
  return null;
}

/** Event ids are derived, so the same change always has the same id: `evt_` + 32 hex of sha256. */
export function eventIdFor(version: string, type: EventType, entityId: string): string {
  return `evt_${createHash("sha256").update(`${version}\u0000${type}\u0000${entityId}`).digest("hex").slice(0, 32)}`;
}

interface PendingEvent {
  type: EventType;
  entityId: string | null;
  scope: { country_iso2: string | null; operator_id: string | null };
  effectiveAt: number | null;
  data: Record<string, unknown>;
}

function effectiveOf(record: Record<string, unknown>, sourceEffective: Map<string, number>): number | null {
  const own = record.effective_at;
  if (typeof own === "string") return Date.parse(own);
  return sourceEffective.get(String(record.source)) ?? null;
}

/** The event of an added (no before) or updated record. */
function upsertEvent(kind: EntityKind, record: unknown, before: Record<string, unknown> | undefined, version: string, sourceEffective: Map<string, number>): PendingEvent {
  const events = kind.events!;
  const capability = kind.name === "capabilities";
  const after = { ...(record as Record<string, unknown>), dataset_version: version };
  const base = { entityId: kind.key(record), scope: kind.scope(record), effectiveAt: effectiveOf(after, sourceEffective) };
  if (!before) {
    return { ...base, type: events.added, data: capability ? { change: "added", before: null, after, changed_fields: kind.fields } : { after } };
  }
  return {
    ...base,
    type: events.updated,
    data: { ...(capability ? { change: "updated" } : {}), before, after, changed_fields: changedFields(kind, before, record) },
  };
}

function removeEvent(kind: EntityKind, before: Record<string, unknown>): PendingEvent {
  const capability = kind.name === "capabilities";
  return {
    type: kind.events!.removed,
    entityId: kind.key(before),
    scope: kind.scope(before),
    effectiveAt: null,
    data: capability ? { change: "removed", before, after: null, changed_fields: kind.fields } : { before },
  };
}

function changeCounts(plan: Plan): EntityChangeCounts {
  return Object.fromEntries(
    plan.entities.map((e) => [e.kind.name, { added: e.added.size, removed: e.removed.length, updated: e.updated.size }]),
  ) as EntityChangeCounts;
}

function datasetCounts(plan: Plan): DatasetCounts {
  const total = (name: EntityName) => plan.entities.find((e) => e.kind.name === name)!.total;
  return {
    countries: total("countries"),
    operators: total("operators"),
    networks: total("networks"),
    number_ranges: total("number_ranges"),
    capabilities: total("capabilities"),
    number_ranges_linked: plan.entities.find((e) => e.kind.name === "number_ranges")!.linked,
  };
}

class BaseMoved extends Error {}

/**
 * Imports a complete candidate dataset: diff, then (when anything changed) one transaction that writes
 * the new version. An identical candidate writes nothing and returns `created: false`.
 * @example
 * const result = await importDataset({ db, clock }, demoDataset());
 * // { created: true, version: "2026-11-23.000001", events: 1, resetReason: "initial_import", … }
 */
export async function importDataset(target: ImportTarget, candidate: CandidateDataset, options: ImportOptions = {}): Promise<ImportResult> {
  const telemetry = target.telemetry;
  if (!telemetry) return importOnce(target, candidate, options);
  const started = performance.now();
  const run = (span?: SpanHandle) =>
    importOnce(target, candidate, options).then(
      (result) => {
        span?.setAttribute("ir21.dataset.version", result.version);
        span?.setAttribute("ir21.import.created", result.created);
        span?.setAttribute("ir21.import.events", result.events);
        telemetry.metrics.importFinished(result.created ? "created" : "unchanged", (performance.now() - started) / 1000, target.clock.now().getTime());
        return result;
      },
      (error: unknown) => {
        telemetry.metrics.importFinished("failed", (performance.now() - started) / 1000, target.clock.now().getTime());
        throw error;
      },
    );
  return telemetry.tracing
    ? telemetry.tracing.inSpan("catalog.import", { "ir21.import.source_mode": candidate.sourceMode, "ir21.import.holder": options.holder ?? "import" }, run)
    : run();
}

async function importOnce(target: ImportTarget, candidate: CandidateDataset, options: ImportOptions): Promise<ImportResult> {
  const db = target.db as unknown as Kysely<any>;
  for (let attempt = 1; ; attempt++) {
    // Plan outside the transaction (reads only), then write under the lock if nobody else committed a
    // version meanwhile; otherwise plan again against the newer version.
    const plan = await makePlan(db, candidate, options.onProgress);
    try {
      const result = await applyPlan(target, db, plan, candidate, options);
      if (result.created) target.datasetMeta?.invalidate();
      return result;
    } catch (error) {
      if (error instanceof BaseMoved && attempt < 3) continue;
      if (error instanceof BaseMoved) throw new AppError("CONFLICT", "Other imports keep committing; try again");
      throw error;
    }
  }
}

async function applyPlan(target: ImportTarget, db: Kysely<any>, plan: Plan, candidate: CandidateDataset, options: ImportOptions): Promise<ImportResult> {
  const changes = changeCounts(plan);
  const counts = datasetCounts(plan);
  const recordChanges = plan.entities.reduce((n, e) => n + e.added.size + e.updated.size + e.removed.length, 0);
  const sourceChanged =
    plan.base !== null &&
    (plan.base.sourceMode !== candidate.sourceMode || sourceIdentity(plan.base.sources) !== sourceIdentity(candidate.sources) || sourceMetadata(plan.base.sources) !== sourceMetadata(candidate.sources));
  if (plan.base && recordChanges === 0 && !sourceChanged && !options.fullReset) {
    return { created: false, version: plan.base.version, previousVersion: plan.base.previousVersion, events: 0, resetReason: null, changes, counts };
  }

  const now = target.clock.now().getTime();
  const seq = (plan.base?.seq ?? 0) + 1;
  const version = formatVersion(seq, now, plan.base?.version ?? null);
  const previousVersion = plan.base?.version ?? "none";
  const sourceEffective = new Map(candidate.sources.filter((s) => s.effective_at).map((s) => [s.id, Date.parse(s.effective_at!)]));
  const resetReason = resetReasonOf(plan, candidate, options);
  // A global reset is one event: subscribers reload the snapshot instead of replaying every record.
  const pending: PendingEvent[] = resetReason
    ? [
        {
          type: CATALOG_UPDATED,
          entityId: null,
          scope: { country_iso2: null, operator_id: null },
          effectiveAt: null,
          data: { reason: resetReason, snapshot_url: options.snapshotUrl ?? "/v1/snapshot", source_mode: candidate.sourceMode, changes },
        },
      ]
    : [];
  const publishedTimes = candidate.sources.map((s) => (s.published_at ? Date.parse(s.published_at) : null)).filter((t): t is number => t !== null);

  // Retried whole on a write conflict (db/transaction.ts), so the events are collected afresh each time.
  const eventCount = await writeTransaction(target.db, async (typed) => {
    const trx = typed as unknown as Kysely<any>;
    const events = [...pending];
    await trx.updateTable("catalog_import_lock").set({ holder: options.holder ?? "import", locked_at: now }).where("id", "=", 1).execute();
    const head = await trx.selectFrom("dataset_versions").select((eb) => eb.fn.max("seq").as("seq")).executeTakeFirst();
    if (Number(head?.seq ?? 0) !== (plan.base?.seq ?? 0)) throw new BaseMoved();

    for (const entity of plan.entities) {
      const { kind } = entity;
      const evented = !resetReason && kind.events !== null;
      const closing = [...entity.updated.keys(), ...entity.removed.map((r) => kind.key(r))];
      for (let i = 0; i < closing.length; i += WRITE_BATCH) {
        await trx
          .updateTable(kind.table)
          .set({ valid_to: seq })
          .where("valid_to", "=", OPEN_VERSION)
          .where("id", "in", closing.slice(i, i + WRITE_BATCH))
          .execute();
      }
      let batch: Record<string, unknown>[] = [];
      let written = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        await trx.insertInto(kind.table).values(batch).execute();
        // Operators are also indexed by the countries they serve (operator-territories.ts).
        if (kind === operators) await insertTerritoryRows(trx, batch as never);
        const before = written;
        written += batch.length;
        batch = [];
        // Every 100,000 rows on long imports; the entity's total is reported once at its end.
        if (options.onProgress && Math.floor(written / 100_000) > Math.floor(before / 100_000)) options.onProgress({ phase: "write", entity: kind.name, done: written });
      };
      for await (const { record, hash, before } of changedRecords(entity)) {
        batch.push({ ...kind.toRow(record), source: kind.sourceOf(record), dataset_version: version, content_hash: hash, valid_from: seq, valid_to: OPEN_VERSION });
        if (evented) events.push(upsertEvent(kind, record, before, version, sourceEffective));
        if (batch.length === WRITE_BATCH) await flush();
      }
      await flush();
      if (evented) for (const before of entity.removed) events.push(removeEvent(kind, before));
      options.onProgress?.({ phase: "write", entity: kind.name, done: written + closing.length });
    }

    const last = await trx.selectFrom("catalog_changes").select((eb) => eb.fn.max("seq").as("seq")).executeTakeFirst();
    let changeSeq = Number(last?.seq ?? 0);
    for (let i = 0; i < events.length; i += WRITE_BATCH) {
      const rows: ChangeTable[] = events.slice(i, i + WRITE_BATCH).map((e) => ({
        seq: ++changeSeq,
        event_id: eventIdFor(version, e.type, e.entityId ?? ""),
        type: e.type,
        dataset_version: version,
        previous_version: previousVersion,
        version_seq: seq,
        occurred_at: now,
        effective_at: e.effectiveAt,
        country_iso2: e.scope.country_iso2,
        operator_id: e.scope.operator_id,
        entity_id: e.entityId,
        data: JSON.stringify(e.data),
      }));
      await trx.insertInto("catalog_changes").values(rows).execute();
    }
    options.onProgress?.({ phase: "write", entity: "changes", done: events.length });

    await trx
      .insertInto("dataset_versions")
      .values({
        version,
        seq,
        previous_version: plan.base?.version ?? null,
        source_mode: candidate.sourceMode,
        source_published_at: publishedTimes.length ? Math.max(...publishedTimes) : null,
        ingested_at: now,
        sources: JSON.stringify(candidate.sources),
        counts: JSON.stringify(counts),
        events: events.length,
        reset_reason: resetReason,
      })
      .execute();
    await trx.updateTable("catalog_import_lock").set({ holder: null, locked_at: null }).where("id", "=", 1).execute();
    return events.length;
  });

  return { created: true, version, previousVersion: plan.base?.version ?? null, events: eventCount, resetReason, changes, counts };
}
