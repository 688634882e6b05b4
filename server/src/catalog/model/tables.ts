import type { OperatorTerritoryTable } from "../operators/territories.ts";

export interface DatasetVersionTable {
  version: string;
  seq: number;
  previous_version: string | null;
  source_mode: string;
  source_published_at: number | null;
  ingested_at: number;
  /** JSON array of source descriptors. */
  sources: string;
  /** JSON object of record counts per resource. */
  counts: string;
  /** Events this version wrote to the change log (0100_catalog). */
  events: number;
  /** Why the version emitted ir21.catalog.updated (initial_import, source_mode_changed, …), or null. */
  reset_reason: string | null;
  /** When change-log retention deleted this version's events (0101_catalog_change_retention); null while kept. */
  changes_pruned_at: number | null;
}

/**
 * Every catalogue record table keeps its history: a row is one incarnation of a record, valid for the
 * dataset versions with `valid_from <= seq < valid_to` (`valid_to` is OPEN_VERSION while current).
 * Readers pin the version they started with, so a version switch is atomic for them even across pages
 * or a streamed export, and an import only writes what changed.
 */
interface Versioned {
  source: string;
  /** The dataset version that last changed this record. */
  dataset_version: string;
  /** Hash of the record's canonical JSON: the diff compares these. */
  content_hash: string;
  valid_from: number;
  valid_to: number;
}

export interface CountryTable extends Versioned {
  id: string;
  iso3: string | null;
  name: string;
  name_zh: string | null;
  /** JSON arrays. */
  calling_codes: string;
  mccs: string;
}

export interface OperatorTable extends Versioned {
  id: string;
  country_iso2: string;
  name: string;
  name_local: string | null;
  brand: string | null;
  tadig: string | null;
  status: string;
  successor_id: string | null;
  /** JSON OperatorLineage, or null. */
  lineage: string | null;
  /** 1 when the operator appears in listings, 0 for test, unassigned and composite rows. */
  listed: number;
  /** JSON array of ISO codes (0107_operator_territories). */
  territories: string;
  /** JSON array of {register, id} (0112_catalog_lineage); null in rows from before it: none. */
  register_ids: string | null;
}

export interface NetworkTable extends Versioned {
  id: string;
  mcc: string;
  mnc: string;
  country_iso2: string;
  operator_id: string | null;
  name: string | null;
  tadig: string | null;
  network_type: string;
  status: string;
  /** JSON arrays. */
  technologies: string;
  bands: string;
}

export interface NumberRangeTable extends Versioned {
  id: string;
  plan: string;
  kind: string;
  country_iso2: string;
  prefix: string | null;
  range_start: string | null;
  range_end: string | null;
  mcc: string | null;
  mnc: string | null;
  operator_id: string | null;
  network_id: string | null;
  range_holder: string | null;
  range_holder_local: string | null;
  /** 0112: the source file's date (YYYY-MM-DD), the register's block status, the holder's register id. */
  source_date: string | null;
  block_status: string | null;
  range_holder_id: string | null;
}

export interface CapabilityTable extends Versioned {
  id: string;
  subject_type: string;
  subject_id: string;
  country_iso2: string;
  operator_id: string | null;
  network_id: string | null;
  name: string;
  /** JSON. */
  value: string;
  effective_at: number | null;
}

/** The change log: one row per event, in commit order; the webhook fan-out reads it as an outbox. */
export interface ChangeTable {
  /** Strictly increasing, assigned inside the (serialised) import transaction. */
  seq: number;
  event_id: string;
  type: string;
  dataset_version: string;
  previous_version: string;
  /** dataset_versions.seq of dataset_version, for "changes since version X". */
  version_seq: number;
  occurred_at: number;
  effective_at: number | null;
  country_iso2: string | null;
  operator_id: string | null;
  entity_id: string | null;
  /** JSON: {after} | {before} | {before, after, changed_fields} | {reason, snapshot_url, …}. */
  data: string;
}

/** One row (id 1): imports update it first, so they run one at a time on every database. */
export interface ImportLockTable {
  id: number;
  holder: string | null;
  locked_at: number | null;
}

export interface CatalogTables {
  dataset_versions: DatasetVersionTable;
  catalog_countries: CountryTable;
  catalog_operators: OperatorTable;
  catalog_operator_territories: OperatorTerritoryTable;
  catalog_networks: NetworkTable;
  catalog_number_ranges: NumberRangeTable;
  catalog_capabilities: CapabilityTable;
  catalog_changes: ChangeTable;
  catalog_import_lock: ImportLockTable;
  catalog_source_sets: SourceSetTable;
  catalog_source_files: SourceFileTable;
  catalog_source_current: SourceCurrentTable;
}

/** A validated set of operator-loaded source files (0111_catalog_source_sets, source-sets.ts). */
export interface SourceSetTable {
  kind: string;
  digest: string;
  version: string | null;
  release_name: string | null;
  files: number;
  /** The files' size uncompressed. */
  bytes: number;
  stored_at: number;
}

/** One part (at most 512 KiB) of one gzip-compressed file of a set. */
export interface SourceFileTable {
  kind: string;
  digest: string;
  path: string;
  part: number;
  content: Buffer;
}

/** The set in use per kind; digest null: the packaged data. */
export interface SourceCurrentTable {
  kind: string;
  digest: string | null;
  changed_at: number;
}
