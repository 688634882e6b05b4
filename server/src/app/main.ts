import { defineCommand, renderUsage, runCommand, type CommandDef } from "citty";
import { ConfigError, loadConfig } from "../config.ts";
import { createDeps } from "./deps.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { startServer } from "./serve.ts";
import { inquiriesCommand } from "./commands/contact.ts";
import { accountsCommand } from "./commands/console.ts";
import { exitOnFault, logProcessWarnings, migrateEmbedded, stopOnSignal, UsageError } from "./command-support.ts";
import { startAuthJobs, startCatalogue, startWebhooks } from "./background.ts";
import { webhooksCommand } from "./commands/webhooks.ts";
import { catalogCommands } from "./commands/catalog.ts";
import { COMMIT, RUNTIME, VERSION } from "../version.ts";
import { colourFor, forStream, readyBanner } from "./banner.ts";
import { writeAfterLogLines } from "../log.ts";
import { metricsReadings } from "./metrics-readings.ts";
import { startMetricsListener } from "../observability/metrics-listener.ts";

const serve = defineCommand({
  meta: { name: "serve", description: "Start the HTTP server (the default command)" },
  args: {
    "webhook-worker": { type: "boolean", default: true, description: "Deliver webhooks in this process (--no-webhook-worker when separate `worker` processes do it)" },
  },
  async run({ args }) {
    const config = loadConfig();
    const deps = await createDeps(config);
    exitOnFault(deps.log);
    logProcessWarnings(deps.log);
    await migrateEmbedded(deps);
    const catalog = await startCatalogue(deps);
    const auth = startAuthJobs(deps);
    // Periodic jobs always run (the database elects one instance per slot); delivery can be moved out.
    const webhooks = startWebhooks(deps, { worker: args["webhook-worker"] });
    const running = await startServer(deps, { port: config.port, host: config.host }, {
      // Background work stops after the last request drains and before the database closes.
      beforeClose: async () => {
        await catalog.stop();
        await auth.stop();
        await webhooks.stop();
      },
    });
    // Handlers first: a supervisor may signal as soon as it reads the line below.
    stopOnSignal(deps.log, async () => {
      // Drain: /readyz answers 503 while requests are still served, then the listener closes.
      deps.lifecycle.shuttingDown = true;
      if (config.shutdownDrainMs > 0) {
        deps.log.info({ drain_ms: config.shutdownDrainMs }, "draining: /readyz answers 503");
        await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
      }
      await running.close();
    });
    deps.log.info(
      { url: running.url, metrics_url: running.metricsUrl, version: VERSION, commit: COMMIT, runtime: RUNTIME, database: deps.dialect, redis: Boolean(deps.store.redis), sms: config.smsProvider ?? "not configured" },
      "ir21 server listening",
    );
    // A person at a terminal gets where to go in a few lines, after the log lines written so far; a pipe
    // (a supervisor, a container's log) gets the JSON lines only.
    if (process.stdout.isTTY) {
      const datasetVersion = (await deps.datasetMeta.current().catch(() => null))?.dataset_version ?? "unknown";
      writeAfterLogLines(
        deps.log,
        readyBanner({ url: running.url, metricsUrl: running.metricsUrl, version: VERSION, database: deps.dialect === "mysql" ? "MySQL/MariaDB" : "SQLite", datasetVersion }, colourFor(process.stdout)),
      );
    }
  },
});

const worker = defineCommand({
  meta: { name: "worker", description: "Deliver webhooks and run periodic jobs, without serving HTTP (scale-out)" },
  async run() {
    const deps = await createDeps(loadConfig());
    exitOnFault(deps.log);
    logProcessWarnings(deps.log);
    await migrateEmbedded(deps);
    const webhooks = startWebhooks(deps);
    // A worker's deliveries are counted where they happen: METRICS_PORT serves its metrics too.
    const metrics =
      deps.config.metrics.port === null
        ? null
        : await startMetricsListener(deps.telemetry.metrics, metricsReadings(deps), { port: deps.config.metrics.port, host: deps.config.metrics.host }, deps.log);
    stopOnSignal(deps.log, async () => {
      await webhooks.stop();
      await metrics?.close();
      await deps.close();
    });
    deps.log.info({ database: deps.dialect, owner: webhooks.worker?.owner, metrics_url: metrics?.url ?? null }, "ir21 webhook worker running");
  },
});

const migrate = defineCommand({
  meta: { name: "migrate", description: "Apply database migrations to DATABASE_URL" },
  async run() {
    const deps = await createDeps(loadConfig());
    try {
      const result = await migrateToLatest(deps.db);
      for (const r of result.results ?? []) console.log(`${r.migrationName}: ${r.status}`);
      if (!result.results?.length) console.log("Already up to date.");
    } finally {
      await deps.close();
    }
  },
});

export const command: CommandDef = defineCommand({
  meta: { name: "ir21-server", description: "ir21 communications data service" },
  subCommands: { serve, worker, migrate, inquiries: inquiriesCommand, accounts: accountsCommand, webhooks: webhooksCommand, ...catalogCommands },
});

type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);
const resolveValue = async <T>(value: Resolvable<T>): Promise<T> => (typeof value === "function" ? (value as () => T | Promise<T>)() : value);

/** The (sub)command the positional words name, and its parent, for `--help` at any depth. */
async function commandFor(rawArgs: string[]): Promise<[CommandDef, CommandDef | undefined]> {
  let current: CommandDef = command;
  let parent: CommandDef | undefined;
  for (const word of rawArgs) {
    if (word.startsWith("-")) break;
    const subCommands = current.subCommands ? await resolveValue(current.subCommands) : undefined;
    const next = subCommands?.[word];
    if (!next) break;
    parent = current;
    current = await resolveValue(next);
  }
  return [current, parent];
}

/** `--help` for a command, in colour only on a terminal without NO_COLOR (banner.ts colourFor). */
async function showUsage(cmd: CommandDef, parent?: CommandDef): Promise<void> {
  process.stdout.write(`${forStream(await renderUsage(cmd, parent), process.stdout)}\n\n`);
}

/** Entry point of the `ir21-server` binary: `serve` when no command is given. */
export async function main(argv: string[]): Promise<void> {
  const rawArgs = argv.length === 0 ? ["serve"] : argv;
  if (rawArgs.length === 1 && (rawArgs[0] === "--version" || rawArgs[0] === "-V")) {
    console.log(`ir21-server ${VERSION}${COMMIT ? ` (commit ${COMMIT})` : ""}`);
    return;
  }
  try {
    if (rawArgs.includes("--help") || rawArgs.includes("-h")) {
      await showUsage(...(await commandFor(rawArgs)));
      return;
    }
    await runCommand(command, { rawArgs });
  } catch (error) {
    if (error instanceof Error && error.name === "CLIError") {
      await showUsage(...(await commandFor(rawArgs)));
      console.error(error.message);
      process.exit(64);
    }
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78); // EX_CONFIG
    }
    if (error instanceof UsageError) {
      console.error(error.message);
      process.exit(64); // EX_USAGE
    }
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
