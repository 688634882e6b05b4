/**
 * The real `ir21-server serve` in its own process, for benches that load it from this one: it gets the
 * in-process test server's database, Redis and secrets, so the data the bench set up (reference dataset,
 * an account, an API key) is what the child serves. BENCH_CPU_PROF=<dir> writes its V8 CPU profile.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import type { TestServer } from "@ir21/server/testing";

const serverBin = fileURLToPath(new URL("../../server/bin/ir21-server.js", import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts `ir21-server serve` on a free loopback port, logging at `warn` (no per-request lines); `bin`
 * names another checkout's binary (compare-builds.bench.ts). `env` may point it at another Redis
 * (REDIS_URL); `output: "pipe"` hands its stdout and stderr to the caller (redis-outage.bench.ts reads
 * every line it writes).
 */
export async function spawnServe(
  setup: TestServer,
  env: Record<string, string>,
  bin = serverBin,
  options: { output?: "ignore" | "pipe" } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const profileDir = process.env.BENCH_CPU_PROFILE ?? process.env.BENCH_CPU_PROF;
  const child = spawn(process.execPath, [...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []), bin, "serve"], {
    env: { ...process.env, ...serveEnv(setup, env), PORT: String(port) },
    stdio: options.output === "pipe" ? ["ignore", "pipe", "pipe"] : ["ignore", "ignore", "inherit"],
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** The process's CPU time (user + system) in µs, from /proc (Linux); null elsewhere. */
export function cpuOf(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * (1_000_000 / 100);
  } catch {
    return null;
  }
}

/** The median (the mean of the middle two for an even count). */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * The lookup benchmarks' 200 numbers: real prefixes of the reference data (China's first 200, then the
 * UK's), each padded to a full number (13 digits for China, 12 for the UK).
 */
export async function benchNumbers(setup: TestServer, headers: Record<string, string>): Promise<string[]> {
  const prefixes = async (query: string) => (await setup.json(`/v1/number-ranges?${query}`, { headers })).body.data.items as { prefix: string }[];
  const ranges = [...(await prefixes("country=CN&limit=200")), ...(await prefixes("prefix=44&limit=140"))];
  return ranges.slice(0, 200).map((r) => `+${(r.prefix + "12345678901234").slice(0, r.prefix.startsWith("86") ? 13 : 12)}`);
}

/**
 * What `ir21-server serve` needs to serve the test server's database, Redis and secrets, logging at
 * `warn`; `env` adds to it (REDIS_URL in `env` wins).
 */
export function serveEnv(setup: TestServer, env: Record<string, string> = {}): Record<string, string> {
  const config = setup.deps.config;
  return {
    ...env,
    NODE_ENV: "test",
    HOST: "127.0.0.1",
    DATABASE_URL: config.databaseUrl,
    REDIS_URL: env.REDIS_URL ?? config.redisUrl ?? "",
    DATA_DIR: config.dataDir,
    SESSION_SECRET: config.secrets.session!,
    OTP_PEPPER: config.secrets.otpPepper!,
    LOG_LEVEL: "warn",
  };
}
