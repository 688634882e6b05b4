/**
 * Issue 33 item 1: what metrics and traces cost a lookup. Three `ir21-server serve` processes on one
 * database (the test target's: SQLite, or MariaDB + Redis with IR21_TEST_DB=mysql) differ only in
 * their environment: `off` (no METRICS_PORT, no OTEL_*), `metrics` (METRICS_PORT on a free loopback
 * port, scraped once a round as Prometheus would) and `traces` (metrics off, OTEL_EXPORTER_OTLP_ENDPOINT
 * to a receiver in this process that accepts and drops every export). Load: GET /v1/lookup with an API
 * key, as fast as 16 connections go, BENCH_SECONDS (3) per variant, in BENCH_ROUNDS (5) interleaved
 * rounds whose order rotates, so a shared machine's drift moves every variant alike; each round starts
 * its three servers afresh (and warms them), so no process's luck follows its variant.
 *
 * Reported per variant: requests/s and server CPU µs per request (user + system, /proc), medians over
 * the rounds, and the ratio of each to `off` (median of the per-round ratios). Run: `pnpm bench metrics`.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import autocannon from "autocannon";
import { createApiKey, signIn, startTestServer } from "@ir21/server/testing";
import { cpuOf, freePort, median, spawnServe } from "./serve-process.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 16;
const NUMBER = "+8613800138000";

type Variant = "off" | "metrics" | "traces";

async function waitForHealth(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not start`);
}

function load(url: string, pid: number, apiKey: string): Promise<{ rps: number; cpuUsPerRequest: number; non2xx: number }> {
  return new Promise((resolve, reject) => {
    const before = cpuOf(pid);
    autocannon(
      { url: `${url}/v1/lookup?number=${encodeURIComponent(NUMBER)}`, connections: CONNECTIONS, duration: SECONDS, headers: { "x-api-key": apiKey } },
      (error, result) => {
        if (error) return reject(error);
        const after = cpuOf(pid);
        if (before === null || after === null) return reject(new Error("the metrics bench reads the server's CPU time from /proc (Linux only)"));
        const requests = result.requests.total;
        resolve({ rps: requests / SECONDS, cpuUsPerRequest: (after - before) / Math.max(1, requests), non2xx: result.non2xx });
      },
    );
  });
}

export async function run() {
  const setup = await startTestServer({ dataset: "demo", env: { PLAN_FREE_RATE_LIMIT_PER_MINUTE: "100000000", PLAN_FREE_MONTHLY_QUOTA: "1000000000" } });
  const otlp = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": req.headers["content-type"] ?? "application/x-protobuf" }).end());
  });
  await new Promise<void>((resolve) => otlp.listen(0, "127.0.0.1", resolve));
  const otlpUrl = `http://127.0.0.1:${(otlp.address() as AddressInfo).port}`;
  const children: Array<{ kill(): void }> = [];
  try {
    const { key } = await createApiKey(setup, await signIn(setup));
    const metricsPort = await freePort();
    const limits = { PLAN_FREE_RATE_LIMIT_PER_MINUTE: "100000000", PLAN_FREE_MONTHLY_QUOTA: "1000000000", CATALOG_IMPORT_ON_START: "false" };
    const envs: Record<Variant, Record<string, string>> = {
      off: limits,
      metrics: { ...limits, METRICS_PORT: String(metricsPort) },
      traces: { ...limits, OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl },
    };
    const rounds: Array<Record<Variant, { rps: number; cpuUsPerRequest: number; non2xx: number }>> = [];
    const variants: Variant[] = ["off", "metrics", "traces"];
    for (let round = 0; round < ROUNDS; round++) {
      // Fresh processes every round: one process's JIT and placement on the cores would otherwise
      // follow its variant through every round (seen: ±25% between two identical processes).
      const servers = {} as Record<Variant, { url: string; pid: number; kill(): void }>;
      for (const variant of variants) {
        const { child, url } = await spawnServe(setup, envs[variant]);
        children.push(child);
        await waitForHealth(url);
        servers[variant] = { url, pid: child.pid!, kill: () => child.kill() };
        // Warm: the lookup index, the credential cache, the JIT.
        await load(url, child.pid!, key);
      }
      const order = [...variants.slice(round % 3), ...variants.slice(0, round % 3)];
      const results = {} as Record<Variant, { rps: number; cpuUsPerRequest: number; non2xx: number }>;
      for (const variant of order) results[variant] = await load(servers[variant].url, servers[variant].pid, key);
      // A scrape, as Prometheus would make every 15 s.
      const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      if (!scrape.ok) throw new Error(`scrape answered ${scrape.status}`);
      rounds.push(results);
      for (const variant of variants) servers[variant].kill();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const summary = Object.fromEntries(
      variants.map((variant) => [
        variant,
        {
          requests_per_s: Math.round(median(rounds.map((r) => r[variant].rps))),
          cpu_us_per_request: Math.round(median(rounds.map((r) => r[variant].cpuUsPerRequest))),
          non_2xx: rounds.reduce((n, r) => n + r[variant].non2xx, 0),
          ...(variant === "off"
            ? {}
            : {
                rps_ratio_to_off: Math.round(median(rounds.map((r) => r[variant].rps / r.off.rps)) * 1000) / 1000,
                cpu_ratio_to_off: Math.round(median(rounds.map((r) => r[variant].cpuUsPerRequest / r.off.cpuUsPerRequest)) * 1000) / 1000,
              }),
        },
      ]),
    );
    return { database: setup.deps.dialect, seconds_per_variant: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, ...summary };
  } finally {
    for (const child of children) child.kill();
    await new Promise<void>((resolve) => otlp.close(() => resolve()));
    await setup.close();
  }
}
