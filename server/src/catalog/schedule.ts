import { hostname } from "node:os";
import cron, { type RunCoordinator, type ScheduledTask } from "node-cron";
import type { AppDeps } from "../deps.ts";
import { importDataset } from "./import.ts";
import type { CatalogSettings } from "./settings.ts";
import { buildCandidate } from "./sources.ts";

/**
 * Runs a slot on one instance only: the first to insert the slot's key into cron_runs wins.
 * (Imports are serialised by the import lock anyway; this spares the other instances the work.)
 */
function databaseCoordinator(deps: Pick<AppDeps, "db" | "clock">): RunCoordinator {
  const owner = `${hostname()}:${process.pid}`;
  return {
    async shouldRun(key, ttlMs) {
      const now = deps.clock.now().getTime();
      try {
        await deps.db.insertInto("cron_runs").values({ run_key: key.slice(0, 191), owner, expires_at: now + ttlMs }).execute();
        return true;
      } catch {
        return false;
      }
    },
  };
}

/**
 * The scheduled re-import (CATALOG_IMPORT_SCHEDULE, off by default): builds the configured source and
 * imports it; an unchanged source creates nothing. Failures are logged, never thrown into the server.
 */
export function scheduleImports(deps: AppDeps, settings: CatalogSettings): ScheduledTask | null {
  if (!settings.schedule) return null;
  const task = cron.schedule(
    settings.schedule,
    async () => {
      try {
        const { candidate } = await buildCandidate(settings.mode, settings.folder ? [settings.folder] : []);
        const result = await importDataset(deps, candidate, { holder: "schedule", snapshotUrl: `${deps.config.publicOrigins[0]}/v1/snapshot` });
        deps.log.info({ mode: settings.mode, created: result.created, version: result.version, events: result.events }, "scheduled catalogue import");
      } catch (error) {
        deps.log.error({ err: error, mode: settings.mode }, "scheduled catalogue import failed");
      }
    },
    { name: "catalog-import", noOverlap: true, distributed: true, runCoordinator: databaseCoordinator(deps), timezone: "UTC" },
  );
  deps.log.info({ schedule: settings.schedule, mode: settings.mode, folder: settings.folder }, "catalogue imports scheduled");
  return task;
}
