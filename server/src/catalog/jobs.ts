import type { PeriodicJob } from "../jobs/cron.ts";
import { pruneChangeLog } from "./changes/retention.ts";
import type { CatalogEnv } from "./env.ts";
import { importDataset } from "./import/import.ts";
import { buildCandidate } from "./import/sources.ts";

/**
 * How far the change log has been read by whoever reads it as an outbox (the webhook fan-out): events
 * not read yet are never pruned. The wiring says who that is (app/deps.ts).
 */
export type ChangeLogReader = () => Promise<number>;

/**
 * The catalogue's periodic jobs, run by jobs/cron.ts like every other (one instance per slot, no
 * overlap, UTC):
 * - `catalog.import` (CATALOG_IMPORT_SCHEDULE, off by default): builds the configured source and
 *   imports it; an unchanged source creates nothing. Imports are serialised by the import lock anyway;
 *   the slot election spares the other instances the work.
 * - `catalog.change-retention` (hourly): prunes the change log's expired versions
 *   (CATALOG_CHANGES_RETENTION_DAYS), never past what the change log's reader has read.
 */
export function catalogJobs(env: CatalogEnv, reader: ChangeLogReader): PeriodicJob[] {
  const { settings } = env;
  const jobs: PeriodicJob[] = [];
  if (settings.schedule) {
    jobs.push({
      name: "catalog.import",
      schedule: settings.schedule,
      async run() {
        const { candidate } = await buildCandidate(settings.mode, settings.folder ? [settings.folder] : [], env);
        const result = await importDataset(env, candidate, { holder: "schedule", snapshotUrl: env.snapshotUrl });
        env.log.info({ mode: settings.mode, created: result.created, version: result.version, events: result.events }, "scheduled catalogue import");
      },
    });
  }
  jobs.push({
    name: "catalog.change-retention",
    schedule: "0 41 * * * *",
    run: () => pruneExpiredChanges(env, reader),
  });
  return jobs;
}

/** One retention pass with the injected clock (the hourly job; tests call it directly). */
export async function pruneExpiredChanges(env: Pick<CatalogEnv, "db" | "clock" | "log" | "settings">, reader: ChangeLogReader) {
  const result = await pruneChangeLog(env.db, {
    now: env.clock.now().getTime(),
    retentionMs: env.settings.changesRetentionDays * 24 * 3600_000,
    readerSeq: await reader(),
  });
  if (result.versions > 0 || result.events > 0) env.log.info(result, "change log: expired versions pruned");
  return result;
}
