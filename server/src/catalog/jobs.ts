import type { AppDeps } from "../app/deps.ts";
import type { PeriodicJob } from "../jobs/cron.ts";
import { catalogChangeFeed } from "./changes/feed.ts";
import { feedPosition } from "../webhooks/fanout/fanout.ts";
import { importDataset } from "./import/import.ts";
import { pruneChangeLog } from "./changes/retention.ts";
import type { CatalogSettings } from "./settings.ts";
import { buildCandidate } from "./import/sources.ts";

/**
 * The catalogue's periodic jobs, run by jobs/cron.ts like every other (one instance per slot, no
 * overlap, UTC):
 * - `catalog.import` (CATALOG_IMPORT_SCHEDULE, off by default): builds the configured source and
 *   imports it; an unchanged source creates nothing. Imports are serialised by the import lock anyway;
 *   the slot election spares the other instances the work.
 * - `catalog.change-retention` (hourly): prunes the change log's expired versions
 *   (CATALOG_CHANGES_RETENTION_DAYS), never past what the webhook fan-out has read.
 */
export function catalogJobs(deps: AppDeps, settings: CatalogSettings): PeriodicJob[] {
  const jobs: PeriodicJob[] = [];
  if (settings.schedule) {
    jobs.push({
      name: "catalog.import",
      schedule: settings.schedule,
      async run() {
        const { candidate } = await buildCandidate(settings.mode, settings.folder ? [settings.folder] : [], deps);
        const result = await importDataset(deps, candidate, { holder: "schedule", snapshotUrl: `${deps.config.publicOrigins[0]}/v1/snapshot` });
        deps.log.info({ mode: settings.mode, created: result.created, version: result.version, events: result.events }, "scheduled catalogue import");
      },
    });
  }
  jobs.push({
    name: "catalog.change-retention",
    schedule: "0 41 * * * *",
    run: () => pruneExpiredChanges(deps, settings),
  });
  return jobs;
}

/** One retention pass with the injected clock (the hourly job; tests call it directly). */
export async function pruneExpiredChanges(deps: Pick<AppDeps, "db" | "clock" | "log">, settings: Pick<CatalogSettings, "changesRetentionDays">) {
  const result = await pruneChangeLog(deps.db, {
    now: deps.clock.now().getTime(),
    retentionMs: settings.changesRetentionDays * 24 * 3600_000,
    readerSeq: await feedPosition(deps.db, catalogChangeFeed.name),
  });
  if (result.versions > 0 || result.events > 0) deps.log.info(result, "change log: expired versions pruned");
  return result;
}
