import { loadConfig } from "../config.ts";
import { createDeps, type AppDeps } from "./deps.ts";
import { migrateToLatest } from "../db/migrate.ts";
import type { Logger } from "../log.ts";

/** A mistake in how an `ir21-server` command was called: printed without a stack, exit status 64. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * The embedded SQLite default migrates itself whenever a command opens it; a shared MySQL is migrated
 * by the operator (`ir21-server migrate`), so that many instances starting at once never race on DDL.
 */
export async function migrateEmbedded(deps: AppDeps): Promise<void> {
  if (deps.dialect === "sqlite") await migrateToLatest(deps.db);
}

/**
 * Opens the server's dependencies from the environment for a one-shot command and closes them
 * afterwards, whatever happens.
 * @example
 * await withServerDeps(async (deps) => console.log(await listInquiries(deps.db, { limit: 10 })));
 */
export async function withServerDeps<T>(run: (deps: AppDeps) => Promise<T>): Promise<T> {
  const deps = await createDeps(loadConfig());
  try {
    await migrateEmbedded(deps);
    return await run(deps);
  } finally {
    await deps.close();
  }
}

/**
 * Keeps a long-running command (serve, worker) until SIGTERM or SIGINT, then runs its graceful stop
 * and exits: 0 when it stopped cleanly, 1 when stopping failed. A second signal during the stop exits
 * at once with 128 + the signal's number (130 SIGINT, 143 SIGTERM), as a shell reports it.
 */
export function stopOnSignal(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, "second signal: exiting now");
      process.exit(128 + (signal === "SIGINT" ? 2 : 15));
    }
    stopping = true;
    log.info({ signal }, "shutting down");
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}

/**
 * A fault no request, connection or job caught (a bug): logged as one JSON line, then exit 1 for the
 * supervisor to restart a clean process. Node's own advice: after an uncaught exception the process's
 * state is unknown, so carrying on risks serving from it. Requests and connections never get here:
 * a request's error becomes its error answer, a connection's callbacks end that connection
 * (http/connections.ts), and jobs log their own failures (docs/operations.md "What ends the process").
 */
export function exitOnFault(log: Logger): void {
  const fatal = (err: unknown, origin: string) => {
    log.fatal({ err, origin }, "unexpected fault: exiting");
    process.exit(1);
  };
  process.on("uncaughtException", (err, origin) => fatal(err, origin));
  process.on("unhandledRejection", (reason) => fatal(reason, "unhandledRejection"));
}

/**
 * Node's process warnings (a deprecation, an emitter past its listener limit) as JSON lines through
 * the logger instead of Node's text on stderr, so every line the server writes is one JSON object.
 * ioredis's Cluster client, reconnecting through the outage of a whole Redis Cluster, adds listeners
 * to a closed socket each time it picks a new subscriber node, past Node's limit of 10.
 */
export function logProcessWarnings(log: Logger): void {
  process.removeAllListeners("warning");
  process.on("warning", (warning) => log.warn({ err: warning }, `node warning: ${warning.name}`));
}
