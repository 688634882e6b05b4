/**
 * `ir21-server serve` as a child process, for the socket-level fuzzer (tests/edge/README.md): a crash
 * is then something the test observes (an exit event, a pid gone), not the end of the test runner.
 *
 * It gets its own database (a SQLite file in a temp dir, or a fresh MariaDB schema plus a Redis
 * logical database on the mysql project), the demo dataset, an ephemeral loopback port, and every line
 * it writes kept for the checks: stdout must stay one JSON object per line.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { get } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { createTestDatabase, testTarget, type TestTarget } from "@ir21/server/testing";

const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = join(root, "server/bin/ir21-server.js");
const run = promisify(execFile);

/** The suite's Redis (server/testing/databases.ts reads the same variable with the same default). */
const testRedisUrl = () => process.env.IR21_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
/** The key prefix of `ir21-server serve`, which has no variable for it (storage/shared-store.ts). */
const SERVE_KEY_PREFIX = "ir21:";

export interface ExitRecord {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  target: TestTarget;
  /** e.g. http://127.0.0.1:41234 (the port changes when the process is started again). */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Set once the current process exited. */
  readonly exit: ExitRecord | null;
  /** The pid is running and no exit event came. */
  alive(): boolean;
  /** Every stdout line of every process started so far, in order (the last one may be partial). */
  stdoutLines(): string[];
  stderr(): string;
  /** The data directory, whose dev SMS outbox signs a test user in. */
  dir: string;
  /** Resolves with the exit once the current process exited (null if it is still running after `ms`). */
  exited(ms: number): Promise<ExitRecord | null>;
  /** Starts the server again on the same database (after it died). */
  restart(): Promise<void>;
  /** SIGTERM, SIGKILL after a grace period; then drops the database (and the Redis keys it wrote). */
  dispose(): Promise<void>;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped) still answers signal 0.
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

/**
 * Migrates a fresh database, imports the demo dataset and starts `serve` on it.
 * @example
 * const server = await startServerProcess();
 * // ... raw sockets to server.port ...
 * await server.dispose();
 */
export async function startServerProcess(extraEnv: Record<string, string> = {}): Promise<ServerProcess> {
  const target = testTarget();
  const database = await createTestDatabase(target);
  // Redis: `serve` writes its keys under a fixed prefix, so it gets a logical database of its own
  // (1-15; the suite's in-process servers use 0 under random prefixes) and only its keys are removed.
  const redisUrl = target === "mysql" ? `${testRedisUrl().replace(/\/\d*$/, "")}/${randomInt(1, 16)}` : "";
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "test",
    HOST: "127.0.0.1",
    PORT: "0",
    DATABASE_URL: database.url,
    REDIS_URL: redisUrl,
    REDIS_CLUSTER_NODES: "",
    DATA_DIR: database.dir,
    IR21_SMS_OUTBOX: join(database.dir, "sms-outbox.jsonl"),
    SESSION_SECRET: randomBytes(32).toString("hex"),
    OTP_PEPPER: randomBytes(32).toString("hex"),
    CATALOG_IMPORT_ON_START: "false",
    CATALOG_IMPORT_SCHEDULE: "",
    SMS_PROVIDER: "dev",
    // Production's policy for webhook targets: the fuzzer never reaches a local receiver.
    WEBHOOK_ALLOW_HOSTS: "",
    // A request line per answer, each of which must be JSON too; debug for "lookups warmed" (below).
    LOG_LEVEL: "debug",
    SHUTDOWN_TIMEOUT_MS: "2000",
    // Every fuzzed request comes from 127.0.0.1: per-address and per-plan caps would turn most of the
    // run into 429s, which prove nothing about the edge.
    ANONYMOUS_RATE_LIMIT_PER_MINUTE: "1000000",
    PLAN_FREE_RATE_LIMIT_PER_MINUTE: "1000000",
    PLAN_FREE_MONTHLY_QUOTA: "100000000",
    SMS_IP_HOURLY_LIMIT: "1000000",
    SMS_IP_DAILY_LIMIT: "1000000",
    SMS_GLOBAL_DAILY_LIMIT: "1000000",
    CONTACT_IP_HOURLY_LIMIT: "1000000",
    LOGIN_IP_LIMIT: "1000000",
    ...extraEnv,
  };
  // SQLite migrates itself when a command opens it; a shared MySQL is migrated by the operator.
  if (target === "mysql") await run(process.execPath, [bin, "migrate"], { cwd: root, env });
  await run(process.execPath, [bin, "import", "demo"], { cwd: root, env });

  const lines: string[] = [""];
  let stderr = "";
  let child!: ChildProcess;
  let exit: ExitRecord | null = null;
  let url = "";

  const start = async () => {
    exit = null;
    const started = spawn(process.execPath, [bin, "serve"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    child = started;
    // A new process starts on a new line even if the last one died mid-line.
    if (lines.at(-1) !== "") lines.push("");
    started.stdout!.setEncoding("utf8").on("data", (text: string) => {
      const parts = text.split("\n");
      lines[lines.length - 1] += parts[0]!;
      lines.push(...parts.slice(1));
    });
    started.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    started.once("exit", (code, signal) => {
      if (child === started) exit = { code, signal };
    });
    const from = lines.length - 1;
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`ir21-server serve wrote no "listening" line within 60 s:\n${lines.slice(from).join("\n")}\n${stderr}`)), 60_000);
      const check = () => {
        const line = lines.slice(from).find((l) => l.includes('"ir21 server listening"'));
        if (!line) return;
        clearTimeout(timer);
        started.stdout!.off("data", check);
        resolve((JSON.parse(line) as { url: string }).url);
      };
      started.stdout!.on("data", check);
      started.once("exit", () => reject(new Error(`ir21-server serve exited before listening:\n${lines.slice(from).join("\n")}\n${stderr}`)));
    });
    // Listening comes before the first answer is possible everywhere: wait for /healthz. Then for the
    // lookups' warm-up (serve.ts), whose slices of CPU work would otherwise delay the first cases'
    // answers by seconds on a loaded 2-core machine.
    await waitForHealth(url);
    const warmed = Date.now() + 120_000;
    while (!lines.slice(from).some((l) => /"msg":"(lookups warmed|warming the lookups failed[^"]*)"/.test(l))) {
      if (exit) throw new Error(`ir21-server serve exited while warming up:\n${lines.slice(from).join("\n")}\n${stderr}`);
      if (Date.now() > warmed) throw new Error(`ir21-server serve did not finish warming its lookups within 120 s:\n${lines.slice(from).join("\n")}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await start();

  const stop = async () => {
    if (exit || !child.pid) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(killer);
  };

  return {
    target,
    get url() {
      return url;
    },
    get port() {
      return Number(new URL(url).port);
    },
    get pid() {
      return child.pid!;
    },
    get exit() {
      return exit;
    },
    alive: () => exit === null && child.pid !== undefined && isRunning(child.pid),
    async exited(ms: number) {
      const deadline = Date.now() + ms;
      while (exit === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return exit;
    },
    stdoutLines: () => lines,
    stderr: () => stderr,
    dir: database.dir,
    async restart() {
      await stop();
      await start();
    },
    async dispose() {
      await stop();
      if (redisUrl) await deleteKeys(redisUrl, `${SERVE_KEY_PREFIX}*`);
      await database.drop();
    },
  };
}

async function waitForHealth(url: string): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const status = await new Promise<number>((resolve) => {
      const request = get(`${url}/healthz`, { agent: false, timeout: 2_000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      request.on("timeout", () => request.destroy());
      request.on("error", () => resolve(0));
    });
    if (status === 200) return;
    if (Date.now() > until) throw new Error(`${url}/healthz did not answer 200 within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Removes the keys `serve` wrote in its logical database (SCAN, never FLUSHDB: the database may be shared). */
async function deleteKeys(redisUrl: string, pattern: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  try {
    await redis.connect();
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
