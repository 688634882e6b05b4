/**
 * Issue 31: what a Redis outage costs the requests. The real `ir21-server serve` (its own process, on
 * the test database: MariaDB with IR21_TEST_DB=mysql, the figures docs/performance.md reports) uses a
 * private `redis-server` this bench starts on a free loopback port, kills with `kill -9` and starts
 * again on the same port. Load: anonymous and API-key GET /v1/lookup (200 real prefixes, every tenth
 * request GET /v1/countries) at a steady rate (BENCH_RATE requests/s over 16 connections, default
 * 300: a load the server carries without queueing, so latency shows each request's own path and not
 * a backlog), each variant BENCH_SECONDS (5) per phase.
 *
 * Every round has a Redis-up phase and a Redis-down phase, their order alternating between rounds
 * (BENCH_ROUNDS, default 3), so drift of a shared machine moves both alike. Redis is killed 0.5 s into
 * the first variant of the down phase (the requests in flight at the kill are measured), and started
 * again after the phase; the round then waits until the server counts rate limits in Redis again
 * (the private Redis's DBSIZE > 0 after a request: nothing persists, so a key there was written after
 * the restart), which is reported as the recovery time.
 *
 * Reported per variant: p50, p95 and p99 latency and server CPU µs per request (user + system, from
 * /proc) up and down, medians over the rounds; the added p95 with Redis down (down − up within a round;
 * median and range), against issue 31's target of ≤ 50 ms; non-2xx answers and timeouts (10 s). And
 * the server's output: every line it wrote to stdout and stderr, how many were not JSON (target 0).
 *
 * Run: `IR21_TEST_DB=mysql pnpm bench redis-outage`; BENCH_SERVER_ROOT=<another checkout's root> runs
 * that checkout's server instead (the "before" figures of docs/performance.md were taken that way).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import autocannon from "autocannon";
import { createApiKey, signIn, startPrivateRedis, startTestServer, testTarget } from "@ir21/server/testing";
import { benchNumbers, cpuOf, median, spawnServe } from "./serve-process.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RATE = Number(process.env.BENCH_RATE ?? 300);
const CONNECTIONS = 16;
/** autocannon's per-request timeout, in seconds; a timed-out request counts as this latency. */
const TIMEOUT_S = 10;
/** Issue 31's target: p95 with Redis down at most this many ms above p95 with Redis up. */
const TARGET_ADDED_P95_MS = 50;

const r1 = (x: number) => Math.round(x * 10) / 10;

interface Phase {
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  requests: number;
  non_2xx: number;
  timeouts: number;
  errors: number;
  cpu_us_per_request: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** One variant's load for `seconds`; `during` runs 0.5 s in (the kill). */
function load(url: string, pid: number, requests: autocannon.Request[], seconds: number, during?: () => Promise<void>): Promise<Phase> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    let non2xx = 0;
    const before = cpuOf(pid);
    const timer = during ? setTimeout(() => void during().catch(reject), 500) : null;
    const instance = autocannon(
      { url, connections: CONNECTIONS, overallRate: RATE, duration: seconds, requests, timeout: TIMEOUT_S },
      (error, result) => {
        if (timer) clearTimeout(timer);
        if (error) return reject(error);
        const after = cpuOf(pid);
        if (before === null || after === null) return reject(new Error("redis-outage reads the server's CPU time from /proc (Linux only)"));
        for (let i = 0; i < result.timeouts; i++) latencies.push(TIMEOUT_S * 1000);
        latencies.sort((a, b) => a - b);
        resolve({
          p50_ms: r1(percentile(latencies, 50)),
          p95_ms: r1(percentile(latencies, 95)),
          p99_ms: r1(percentile(latencies, 99)),
          requests: latencies.length,
          non_2xx: non2xx,
          timeouts: result.timeouts,
          errors: result.errors - result.timeouts,
          cpu_us_per_request: r1((after - before) / Math.max(1, latencies.length)),
        });
      },
    );
    instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
      latencies.push(ms);
      if (status < 200 || status >= 300) non2xx++;
    });
  });
}

function spread(values: number[]) {
  return { median: r1(median(values)), min: r1(Math.min(...values)), max: r1(Math.max(...values)) };
}

/** Field by field median of one variant's phases. */
function medianOf(phases: Phase[]): Phase {
  const m = (pick: (p: Phase) => number) => r1(median(phases.map(pick)));
  const sum = (pick: (p: Phase) => number) => phases.reduce((total, p) => total + pick(p), 0);
  return {
    p50_ms: m((p) => p.p50_ms),
    p95_ms: m((p) => p.p95_ms),
    p99_ms: m((p) => p.p99_ms),
    requests: sum((p) => p.requests),
    non_2xx: sum((p) => p.non_2xx),
    timeouts: sum((p) => p.timeouts),
    errors: sum((p) => p.errors),
    cpu_us_per_request: m((p) => p.cpu_us_per_request),
  };
}

export async function run() {
  const redis = await startPrivateRedis();
  const limits = { PLAN_FREE_MONTHLY_QUOTA: "1000000000", PLAN_FREE_RATE_LIMIT_PER_MINUTE: "1000000000", ANONYMOUS_RATE_LIMIT_PER_MINUTE: "1000000000" };
  // The in-process server only sets up the database (dataset, account, key): it keeps the suite's
  // Redis (or none on SQLite); the measured server gets the private one.
  const setup = await startTestServer({ dataset: "reference", env: limits });
  const key = await createApiKey(setup, await signIn(setup));
  const root = process.env.BENCH_SERVER_ROOT;
  const { child, url } = await spawnServe(setup, { ...limits, REDIS_URL: redis.url }, root ? join(root, "server/bin/ir21-server.js") : undefined, { output: "pipe" });
  const lines: string[] = [];
  let partial = "";
  const collect = (chunk: Buffer) => {
    const text = partial + chunk.toString("utf8");
    const parts = text.split("\n");
    partial = parts.pop()!;
    lines.push(...parts.filter((line) => line.length > 0));
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  try {
    for (let i = 0; !(await fetch(`${url}/readyz`).then((r) => r.ok, () => false)); i++) {
      if (child.exitCode !== null || i > 600) throw new Error(`the server did not come up (${url})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const numbers = await benchNumbers(setup, key.headers);
    const requestsOf = (headers: Record<string, string>): autocannon.Request[] =>
      numbers.map((n, i) => ({ method: "GET", path: i % 10 === 9 ? "/v1/countries" : `/v1/lookup?number=${encodeURIComponent(n)}`, headers }));
    const variants = { anonymous: requestsOf({}), api_key: requestsOf(key.headers) };
    type Name = keyof typeof variants;

    const dbsize = () => Number(execFileSync("redis-cli", ["-p", String(redis.port), "DBSIZE"], { encoding: "utf8" }).trim());
    /** From a restart until the server writes a rate-limit key to the (empty) restarted Redis. */
    const recovery = async (): Promise<number> => {
      const started = performance.now();
      for (let i = 0; i < 600; i++) {
        await fetch(`${url}/v1/countries`).then((r) => r.arrayBuffer());
        if (dbsize() > 0) return performance.now() - started;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error("the server did not use Redis again within 30 s of its restart");
    };

    // Warm the server (JIT, the ranges' fragments) with Redis up.
    for (const name of Object.keys(variants) as Name[]) await load(url, child.pid!, variants[name], 2);

    const phases: Record<Name, { up: Phase[]; down: Phase[] }> = { anonymous: { up: [], down: [] }, api_key: { up: [], down: [] } };
    const recoveries: number[] = [];
    const linesBefore = lines.length;
    for (let round = 0; round < ROUNDS; round++) {
      const states = round % 2 ? (["down", "up"] as const) : (["up", "down"] as const);
      const names: Name[] = round % 2 ? ["api_key", "anonymous"] : ["anonymous", "api_key"];
      for (const state of states) {
        for (const [i, name] of names.entries()) {
          const kill = state === "down" && i === 0 ? () => redis.kill() : undefined;
          phases[name][state].push(await load(url, child.pid!, variants[name], SECONDS, kill));
        }
        if (state === "down") {
          await redis.start();
          recoveries.push(await recovery());
        }
      }
    }

    const report: Record<string, unknown> = {
      database: testTarget(),
      server: root ?? "this checkout",
      rounds: ROUNDS,
      seconds_each: SECONDS,
      rate_per_s: RATE,
      connections: CONNECTIONS,
    };
    for (const name of Object.keys(variants) as Name[]) {
      const { up, down } = phases[name];
      const added = down.map((d, i) => d.p95_ms - up[i]!.p95_ms);
      report[name] = {
        redis_up: medianOf(up),
        redis_down: medianOf(down),
        added_p95_ms: spread(added),
        added_p95_target_ms: TARGET_ADDED_P95_MS,
        met: median(added) <= TARGET_ADDED_P95_MS,
      };
    }
    report.recovery_ms = spread(recoveries);
    const measured = lines.slice(linesBefore);
    const notJson: string[] = [];
    const messages: Record<string, number> = {};
    for (const line of measured) {
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        entry = null;
      }
      if (entry === null || typeof entry !== "object") notJson.push(line);
      else {
        const msg = String((entry as { msg?: unknown }).msg).slice(0, 100);
        messages[msg] = (messages[msg] ?? 0) + 1;
      }
    }
    report.server_output = { lines: measured.length, non_json_lines: notJson.length, first_non_json: notJson.slice(0, 3).map((line) => line.slice(0, 160)), messages };
    return report;
  } finally {
    child.kill();
    await redis.stop();
    await setup.close();
  }
}
