import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import cron, { type Logger as CronLogger, type RunCoordinator, type ScheduledTask } from "node-cron";
import type { Db } from "../db/db.ts";
import { dialectOf } from "../db/db.ts";
import { writeTransaction } from "../db/transaction.ts";
import type { Logger } from "../log.ts";

/**
 * node-cron's run coordinator on the database (table cron_runs): the first instance to insert a slot's
 * key (`<job>:<slot ISO time>`) runs it, every other instance skips it. Slot keys are real time (cron
 * fires on the wall clock); rows are pruned once they have expired.
 */
export function databaseRunCoordinator(db: Db, owner: string, now: () => number = Date.now): RunCoordinator {
  let lastPrune = 0;
  return {
    async shouldRun(key, ttlMs) {
      const at = now();
      if (at - lastPrune > 60_000) {
        lastPrune = at;
        await writeTransaction(db, (trx) => trx.deleteFrom("cron_runs").where("expires_at", "<", at).execute());
      }
      return writeTransaction(db, async (trx) => {
        try {
          await trx.insertInto("cron_runs").values({ run_key: key.slice(0, 191), owner: owner.slice(0, 100), expires_at: at + Math.max(ttlMs, 60_000) }).execute();
          return true;
        } catch (error) {
          if (isDuplicateKey(error, dialectOf(db))) return false;
          throw error;
        }
      });
    },
  };
}

function isDuplicateKey(error: unknown, dialect: "sqlite" | "mysql"): boolean {
  const code = (error as { code?: string } | null)?.code ?? "";
  return dialect === "mysql" ? code === "ER_DUP_ENTRY" : code.startsWith("SQLITE_CONSTRAINT");
}

/** Names this process in cron_runs.owner: host, pid and a random tag (pids repeat across containers). */
export function cronOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

/**
 * The one way the server runs periodic work (webhook pumps and sweeps, the scheduled catalogue
 * import, change-log retention): each domain lists its jobs and its caller starts and stops them here.
 */
export interface PeriodicJob {
  /** Unique across the deployment: it forms the coordination key. */
  name: string;
  /** A node-cron expression, in UTC; six fields allow seconds. */
  schedule: string;
  run(): Promise<unknown>;
}

export interface CronHandle {
  /** Stops scheduling and waits for running jobs to finish. */
  stop(): Promise<void>;
}

/**
 * node-cron's own messages through the server's JSON logger (its default prints coloured text to the
 * console). A slot skipped because the job's previous run is still going is what `noOverlap` asks
 * for, hence debug.
 */
function cronLogger(log: Logger, job: string): CronLogger {
  const entry = (message: string | Error, err?: Error) => (message instanceof Error ? { err: message, job } : { err, job });
  const text = (message: string | Error) => (message instanceof Error ? message.message : message);
  return {
    info: (message) => log.debug({ job }, `node-cron: ${message}`),
    warn: (message) => (message.includes("overlap") ? log.debug({ job }, `node-cron: ${message}`) : log.warn({ job }, `node-cron: ${message}`)),
    error: (message, err) => log.error(entry(message, err), `node-cron: ${text(message)}`),
    debug: (message, err) => log.debug(entry(message, err), `node-cron: ${text(message)}`),
  };
}

/**
 * Schedules jobs so that each slot runs on one instance only (database coordinator) and never
 * overlaps itself within an instance. A failing job is logged and tried again at its next slot.
 */
export function startCron(jobs: PeriodicJob[], options: { db: Db; owner: string; log: Logger }): CronHandle {
  const coordinator = databaseRunCoordinator(options.db, options.owner);
  const running = new Set<Promise<unknown>>();
  const tasks: ScheduledTask[] = jobs.map((job) =>
    cron.schedule(
      job.schedule,
      async () => {
        const run = job.run().catch((error: unknown) => options.log.error({ err: error, job: job.name }, "periodic job failed"));
        running.add(run);
        try {
          await run;
        } finally {
          running.delete(run);
        }
      },
      { name: job.name, noOverlap: true, distributed: true, runCoordinator: coordinator, suppressMissedWarning: true, timezone: "UTC", logger: cronLogger(options.log, job.name) },
    ),
  );
  return {
    async stop() {
      await Promise.all(tasks.map((t) => t.destroy()));
      await Promise.all(running);
    },
  };
}
