import { hash } from "node:crypto";
import { z } from "zod";
import { Capability, Country, Network, NumberRange, Operator } from "../../contract/catalog.ts";
import type { EventType } from "../../contract/events.ts";
import { toIsoOrNull } from "../../contract/common.ts";
import type { CatalogTables } from "./tables.ts";

/** valid_to of a current row: larger than any version seq will ever be. */
export const OPEN_VERSION = Number.MAX_SAFE_INTEGER;

export type RecordTable = "catalog_countries" | "catalog_operators" | "catalog_networks" | "catalog_number_ranges" | "catalog_capabilities";
export type EntityName = "countries" | "operators" | "networks" | "number_ranges" | "capabilities";

type RowOf<T extends RecordTable> = CatalogTables[T];
type Versioning = "source" | "dataset_version" | "content_hash" | "valid_from" | "valid_to";

/**
 * How one kind of catalogue record is stored, compared and announced. The diff and the queries are
 * written once over these descriptors.
 */
export interface EntityKind<R = any, T extends RecordTable = RecordTable> {
  name: EntityName;
  /** The record's stable id (natural key): what the diff matches on. */
  key(record: R): string;
  /** The SourceDescriptor id the record came from. */
  sourceOf(record: R): string;
  table: T;
  /** Validates a candidate record (importers are trusted for shape, but in-memory candidates come from anywhere). */
  schema: z.ZodType<R>;
  /** Field order of the canonical form: the content hash and changed_fields follow it. */
  fields: readonly (keyof R & string)[];
  /**
   * Fields added after records were first stored, with the value every record had implicitly before:
   * left out of the content hash while they hold it, so an upgrade does not announce every record as
   * updated (the hash of a record without lineage stays what it was before the fields existed).
   */
  addedFields?: Partial<Record<keyof R & string, unknown>>;
  /** Event type prefix, e.g. ir21.operator; capabilities announce every change as ir21.capability.changed; countries are not evented. */
  events: { added: EventType; removed: EventType; updated: EventType } | null;
  toRow(record: R): Omit<RowOf<T>, Versioning>;
  fromRow(row: RowOf<T>): R & { dataset_version: string };
  /** Country and operator an event about this record is filed under (webhook and /v1/changes filters). */
  scope(record: R): { country_iso2: string | null; operator_id: string | null };
}

const json = (value: unknown) => JSON.stringify(value ?? null);
const parseJson = <T>(text: string): T => JSON.parse(text) as T;

/** JSON with object keys sorted, so equal values always hash alike. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
}

/** Content hash of a record: sha1 over its fields' canonical JSON in field order, base64url (27 chars). */
export function contentHash<R>(kind: EntityKind<R>, record: R): string {
  // One string, one one-shot digest: this runs a million times on a large import.
  const added = kind.addedFields as Record<string, unknown> | undefined;
  const fields = added
    ? kind.fields.filter((f) => !(f in added) || canonicalJson((record as Record<string, unknown>)[f] ?? null) !== canonicalJson(added[f]))
    : kind.fields;
  const values = fields.map((field) => (record as Record<string, unknown>)[field] ?? null);
  const flat = values.every((v) => v === null || typeof v !== "object" || (Array.isArray(v) && v.every((x) => x === null || typeof x !== "object")));
  return hash("sha1", flat ? JSON.stringify(values) : canonicalJson(values), "base64url");
}

/** The fields whose canonical values differ between two versions of a record. */
export function changedFields<R>(kind: EntityKind<R>, before: R, after: R): string[] {
  return kind.fields.filter(
    (f) => canonicalJson((before as Record<string, unknown>)[f]) !== canonicalJson((after as Record<string, unknown>)[f]),
  );
}

const recordSchema = <S extends z.ZodObject>(schema: S) => schema.omit({ dataset_version: true } as never).strict();

/** The source id of country records. */
export const COUNTRY_SOURCE = "i18n-iso-countries";

export const countries: EntityKind<z.infer<typeof Country>, "catalog_countries"> = {
  name: "countries",
  key: (r) => r.iso2,
  // Country names and codes come from i18n-iso-countries and libphonenumber-js in every source mode.
  sourceOf: () => COUNTRY_SOURCE,
  table: "catalog_countries",
  schema: Country.strict(),
  fields: ["iso2", "iso3", "name", "name_zh", "calling_codes", "mccs"],
  events: null,
  toRow: (r) => ({ id: r.iso2, iso3: r.iso3, name: r.name, name_zh: r.name_zh, calling_codes: json(r.calling_codes), mccs: json(r.mccs) }),
  fromRow: (row) => ({
    iso2: row.id,
    iso3: row.iso3,
    name: row.name,
    name_zh: row.name_zh,
    calling_codes: parseJson(row.calling_codes),
    mccs: parseJson(row.mccs),
    dataset_version: row.dataset_version,
  }),
  scope: (r) => ({ country_iso2: r.iso2, operator_id: null }),
};

export const operators: EntityKind<Omit<Operator, "dataset_version">, "catalog_operators"> = {
  name: "operators",
  key: (r) => r.id,
  sourceOf: (r) => r.source,
  table: "catalog_operators",
  schema: recordSchema(Operator) as never,
  fields: ["id", "country_iso2", "name", "name_local", "brand", "tadig", "status", "successor_id", "lineage", "listed", "territories", "register_ids", "source"],
  addedFields: { successor_id: null, lineage: null, listed: true, register_ids: [] },
  events: { added: "ir21.operator.added", removed: "ir21.operator.removed", updated: "ir21.operator.updated" },
  toRow: (r) => ({
    id: r.id,
    country_iso2: r.country_iso2,
    name: r.name,
    name_local: r.name_local,
    brand: r.brand,
    tadig: r.tadig,
    status: r.status,
    successor_id: r.successor_id,
    lineage: r.lineage ? json(r.lineage) : null,
    listed: r.listed ? 1 : 0,
    territories: json(r.territories),
    register_ids: r.register_ids.length ? json(r.register_ids) : null,
  }),
  fromRow: (row) => ({
    id: row.id,
    country_iso2: row.country_iso2,
    name: row.name,
    name_local: row.name_local,
    brand: row.brand,
    tadig: row.tadig,
    status: row.status as Operator["status"],
    successor_id: row.successor_id ?? null,
    lineage: row.lineage ? parseJson<Operator["lineage"]>(row.lineage) : null,
    // MariaDB returns the integer column as a number, SQLite too; a string "0" never reaches here.
    listed: Number(row.listed ?? 1) !== 0,
    territories: parseJson(row.territories),
    register_ids: row.register_ids ? parseJson(row.register_ids) : [],
    source: row.source,
    dataset_version: row.dataset_version,
  }),
  scope: (r) => ({ country_iso2: r.country_iso2, operator_id: r.id }),
};

export const networks: EntityKind<Omit<Network, "dataset_version">, "catalog_networks"> = {
  name: "networks",
  key: (r) => r.id,
  sourceOf: (r) => r.source,
  table: "catalog_networks",
  schema: recordSchema(Network) as never,
  fields: ["id", "mcc", "mnc", "country_iso2", "operator_id", "name", "tadig", "network_type", "status", "technologies", "bands", "source"],
  events: { added: "ir21.network.added", removed: "ir21.network.removed", updated: "ir21.network.updated" },
  toRow: (r) => ({
    id: r.id,
    mcc: r.mcc,
    mnc: r.mnc,
    country_iso2: r.country_iso2,
    operator_id: r.operator_id,
    name: r.name,
    tadig: r.tadig,
    network_type: r.network_type,
    status: r.status,
    technologies: json(r.technologies),
    bands: json(r.bands),
  }),
  fromRow: (row) => ({
    id: row.id,
    mcc: row.mcc,
    mnc: row.mnc,
    country_iso2: row.country_iso2,
    operator_id: row.operator_id,
    name: row.name,
    tadig: row.tadig,
    network_type: row.network_type,
    status: row.status,
    technologies: parseJson(row.technologies),
    bands: parseJson(row.bands),
    source: row.source,
    dataset_version: row.dataset_version,
  }),
  scope: (r) => ({ country_iso2: r.country_iso2, operator_id: r.operator_id }),
};

export const numberRanges: EntityKind<Omit<NumberRange, "dataset_version">, "catalog_number_ranges"> = {
  name: "number_ranges",
  key: (r) => r.id,
  sourceOf: (r) => r.source,
  table: "catalog_number_ranges",
  schema: recordSchema(NumberRange) as never,
  fields: [
    "id",
    "plan",
    "kind",
    "country_iso2",
    "prefix",
    "start",
    "end",
    "mcc",
    "mnc",
    "operator_id",
    "network_id",
    "range_holder",
    "range_holder_local",
    "source",
    "source_date",
    "status",
    "range_holder_id",
  ],
  addedFields: { source_date: null, status: null, range_holder_id: null },
  events: { added: "ir21.number_range.added", removed: "ir21.number_range.removed", updated: "ir21.number_range.updated" },
  toRow: (r) => ({
    id: r.id,
    plan: r.plan,
    kind: r.kind,
    country_iso2: r.country_iso2,
    prefix: r.prefix,
    range_start: r.start,
    range_end: r.end,
    mcc: r.mcc,
    mnc: r.mnc,
    operator_id: r.operator_id,
    network_id: r.network_id,
    range_holder: r.range_holder,
    range_holder_local: r.range_holder_local,
    source_date: r.source_date,
    block_status: r.status,
    range_holder_id: r.range_holder_id,
  }),
  fromRow: (row) => ({
    id: row.id,
    plan: row.plan as NumberRange["plan"],
    kind: row.kind as NumberRange["kind"],
    country_iso2: row.country_iso2,
    prefix: row.prefix,
    start: row.range_start,
    end: row.range_end,
    mcc: row.mcc,
    mnc: row.mnc,
    operator_id: row.operator_id,
    network_id: row.network_id,
    range_holder: row.range_holder,
    range_holder_local: row.range_holder_local,
    source: row.source,
    dataset_version: row.dataset_version,
    source_date: row.source_date ?? null,
    status: (row.block_status ?? null) as NumberRange["status"],
    range_holder_id: row.range_holder_id ?? null,
  }),
  scope: (r) => ({ country_iso2: r.country_iso2, operator_id: r.operator_id }),
};

export const capabilities: EntityKind<Omit<Capability, "dataset_version">, "catalog_capabilities"> = {
  name: "capabilities",
  key: (r) => r.id,
  sourceOf: (r) => r.source,
  table: "catalog_capabilities",
  schema: recordSchema(Capability) as never,
  fields: ["id", "subject_type", "subject_id", "country_iso2", "operator_id", "network_id", "name", "value", "effective_at", "source"],
  events: { added: "ir21.capability.changed", removed: "ir21.capability.changed", updated: "ir21.capability.changed" },
  toRow: (r) => ({
    id: r.id,
    subject_type: r.subject_type,
    subject_id: r.subject_id,
    country_iso2: r.country_iso2,
    operator_id: r.operator_id,
    network_id: r.network_id,
    name: r.name,
    value: canonicalJson(r.value),
    effective_at: r.effective_at === null ? null : Date.parse(r.effective_at),
  }),
  fromRow: (row) => ({
    id: row.id,
    subject_type: row.subject_type as Capability["subject_type"],
    subject_id: row.subject_id,
    country_iso2: row.country_iso2,
    operator_id: row.operator_id,
    network_id: row.network_id,
    name: row.name,
    value: parseJson(row.value),
    effective_at: toIsoOrNull(row.effective_at),
    source: row.source,
    dataset_version: row.dataset_version,
  }),
  scope: (r) => ({ country_iso2: r.country_iso2, operator_id: r.operator_id }),
};

/** In dependency order: operators before the networks and ranges that name them. */
export const ENTITY_KINDS = [countries, operators, networks, numberRanges, capabilities] as const;
