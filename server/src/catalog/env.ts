import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Db, Dialect } from "../db/db.ts";
import type { Logger } from "../log.ts";
import type { LookupIndexes } from "./lookup/lookup-index.ts";
import type { DatasetMetaSource } from "./model/dataset-meta.ts";
import type { CatalogSettings } from "./settings.ts";
import type { ImportTelemetry } from "./import/import.ts";

/**
 * What the catalogue's start-up, jobs and routes are given, built once by the wiring (app/deps.ts).
 * The webhook fan-out's position (how far the change log has been read) is handed to the retention job
 * by the wiring too: the catalogue does not know who reads its change log.
 */
export interface CatalogEnv {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  log: Logger;
  /** DATA_DIR, for loaded source files kept there by older versions (import/legacy-sources.ts). */
  config: Pick<Config, "dataDir">;
  settings: CatalogSettings;
  /** The current version, cached briefly: what every envelope reports and every /v1 answer is pinned to. */
  datasetMeta: DatasetMetaSource;
  /** Each dataset version's in-memory lookup index, built on first use. */
  lookupIndexes: LookupIndexes;
  /** Where subscribers reload the whole catalogue: the URL `ir21.catalog.updated` carries. */
  snapshotUrl: string;
  /** Imports counted and timed (METRICS_PORT) and traced (OTEL_*); no-ops when off. */
  telemetry: ImportTelemetry;
}
