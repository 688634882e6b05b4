import { defineCommand, runCommand, showUsage, type CommandDef } from "citty";
import { ConfigError, loadConfig } from "./config.ts";
import { createDeps } from "./deps.ts";
import { migrateToLatest } from "./db/migrate.ts";
import { startServer } from "./serve.ts";
import { listInquiries } from "./contact/inquiries.ts";
import { accountsCommand } from "./console/commands.ts";
import { UsageError } from "./command-errors.ts";
import { startWebhookRuntime } from "./webhooks/runtime.ts";
import { catalogCommands, startCatalog } from "./catalog/commands.ts";

const serve = defineCommand({
  meta: { name: "serve", description: "Start the HTTP server (the default command)" },
  args: {
    "webhook-worker": { type: "boolean", default: true, description: "Deliver webhooks in this process (--no-webhook-worker when separate `worker` processes do it)" },
  },
  async run({ args }) {
    const config = loadConfig();
    const deps = await createDeps(config);
    // The embedded default migrates itself; a shared MySQL is migrated by the operator (`migrate`),
    // so that many instances starting at once do not race on DDL.
    if (deps.dialect === "sqlite") await migrateToLatest(deps.db);
    const catalog = await startCatalog(deps);
    // Periodic jobs always run (the database elects one instance per slot); delivery can be moved out.
    const webhooks = startWebhookRuntime(deps, { worker: args["webhook-worker"] });
    const running = await startServer(deps, { port: config.port, host: config.host }, { beforeClose: () => webhooks.stop() });
    deps.log.info({ url: running.url, database: deps.dialect, redis: Boolean(deps.store.redis), sms: config.smsProvider ?? "not configured" }, "ir21 server listening");
    const stop = (signal: string) => {
      deps.log.info({ signal }, "shutting down");
      catalog.stop();
      running.close().then(
        () => process.exit(0),
        (error: unknown) => {
          deps.log.error({ err: error }, "shutdown failed");
          process.exit(1);
        },
      );
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  },
});

const worker = defineCommand({
  meta: { name: "worker", description: "Deliver webhooks and run periodic jobs, without serving HTTP (scale-out)" },
  async run() {
    const config = loadConfig();
    const deps = await createDeps(config);
    if (deps.dialect === "sqlite") await migrateToLatest(deps.db);
    const webhooks = startWebhookRuntime(deps);
    deps.log.info({ database: deps.dialect, owner: webhooks.worker?.owner }, "ir21 webhook worker running");
    const stop = (signal: string) => {
      deps.log.info({ signal }, "worker shutting down");
      webhooks
        .stop()
        .then(() => deps.close())
        .then(
          () => process.exit(0),
          (error: unknown) => {
            deps.log.error({ err: error }, "worker shutdown failed");
            process.exit(1);
          },
        );
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
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

const inquiries = defineCommand({
  meta: { name: "inquiries", description: "Contact inquiries sent through POST /contact" },
  subCommands: {
    list: defineCommand({
      meta: { name: "list", description: "List the newest inquiries" },
      args: {
        limit: { type: "string", description: "How many (default 50)", default: "50" },
        json: { type: "boolean", description: "One JSON array instead of text" },
      },
      async run({ args }) {
        const limit = Number(args.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError("--limit must be an integer from 1 to 1000");
        const deps = await createDeps(loadConfig());
        try {
          const rows = await listInquiries(deps.db, { limit });
          if (args.json) console.log(JSON.stringify(rows, null, 2));
          else for (const r of rows) console.log(`${r.createdAt.toISOString()}  ${r.id}  ${r.name} <${r.email}> (${r.company})\n  ${r.message.replace(/\n/g, "\n  ")}`);
        } finally {
          await deps.close();
        }
      },
    }),
  },
});

export const command: CommandDef = defineCommand({
  meta: { name: "ir21-server", description: "ir21 communications data service" },
  subCommands: { serve, worker, migrate, inquiries, accounts: accountsCommand, ...catalogCommands },
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

/** Entry point of the `ir21-server` binary: `serve` when no command is given. */
export async function main(argv: string[]): Promise<void> {
  const rawArgs = argv.length === 0 ? ["serve"] : argv;
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
