import { cronOwner, startCron } from "../jobs/cron.ts";
import type { CatalogEnv } from "./env.ts";
import { importDataset } from "./import/import.ts";
import { adoptLegacySources } from "./import/legacy-sources.ts";
import { buildCandidate } from "./import/sources.ts";
import { catalogJobs, type ChangeLogReader } from "./jobs.ts";
import { currentVersion } from "./model/versions.ts";

/**
 * What `serve` does for the catalogue once migrated: import the reference data when the database has
 * no dataset yet (the embedded default, so a new user gets real data; CATALOG_IMPORT_ON_START), and
 * start the catalogue's periodic jobs (the scheduled re-import when configured, change-log retention)
 * on jobs/cron.ts. Returns a stop function for shutdown that waits for a running job.
 * @example
 * const catalog = await startCatalog(env, () => feedPosition(db, "catalog"));
 */
export async function startCatalog(env: CatalogEnv, reader: ChangeLogReader): Promise<{ stop(): Promise<void> }> {
  const { settings } = env;
  try {
    await adoptLegacySources(env);
  } catch (error) {
    // Imports refuse the same files with this error until `import carriers` chooses anew; lookups answer meanwhile.
    env.log.warn({ err: error }, "loaded source files in DATA_DIR/catalog-sources could not be moved into the database");
  }
  const importOnStart = settings.importOnStart ?? env.dialect === "sqlite";
  if (importOnStart && !(await currentVersion(env.db))) {
    env.log.info("no dataset yet: importing the reference data (first start)");
    const { candidate, report } = await buildCandidate("reference", [], env);
    const result = await importDataset(env, candidate, {
      holder: "first-start",
      snapshotUrl: env.snapshotUrl,
      onProgress: (p) => env.log.info(p, "catalogue import progress"),
    });
    env.log.info({ version: result.version, counts: result.counts, linking_rate: report?.linkingRate }, "reference data imported");
  }
  if (settings.schedule) env.log.info({ schedule: settings.schedule, mode: settings.mode, folder: settings.folder }, "catalogue imports scheduled");
  const cron = startCron(catalogJobs(env, reader), { db: env.db, owner: cronOwner(), log: env.log });
  return { stop: () => cron.stop() };
}
