/**
 * Two builds of the server side by side: `pnpm bench compare-builds` with BENCH_AB_BEFORE=<another
 * checkout's root, built> serves the same database from that checkout's `ir21-server serve` and from
 * this one's, and loads them in turn, in short rounds (BENCH_AB_ROUNDS, default 8, of
 * BENCH_AB_SECONDS, default 3, per variant and build; the order alternates each round). On a shared
 * or virtual machine whose speed drifts over minutes, interleaving at this grain keeps the drift out
 * of the comparison, which separate `pnpm bench lookup` runs minutes apart cannot. Reported per
 * variant: each build's server CPU µs per request (or per number for the batch) and req/s, medians
 * over the rounds, and the median of the per-round after ÷ before ratios.
 *
 * Variants: API-key and anonymous GET /v1/lookup (50 connections, the lookup benchmark's 200
 * numbers), the API-key lookup with issue 34's `fields=` (`lookup_api_key_fields`), and POST /v1/lookup/batch with 100 of them (8 connections); BENCH_AB_VARIANTS=<names,
 * comma-separated> runs some of them. With `lookup_api_key_fields` the careful-user peer of issue 34
 * (careful-user-server.ts) is loaded in the same rounds, on the same numbers, and each build's rate is
 * also given as a ratio to the peer's of its round (median and range): issue 34's target, ≥ 1.0.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { createApiKey, signIn, startTestServer } from "@ir21/server/testing";
import { benchNumbers, cpuOf, freePort, median, spawnServe } from "./serve-process.ts";

const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 8);
const SECONDS = Number(process.env.BENCH_AB_SECONDS ?? 3);

/** Issue 34's small answer, as lookup.bench.ts asks it. */
const SMALL_FIELDS = "number,country_iso2,valid,number_type,range_holder";

const r2 = (x: number) => Math.round(x * 100) / 100;

interface Variant {
  name: string;
  connections: number;
  /** Units of work a request carries (numbers of a batch). */
  units: number;
  requests: autocannon.Request[];
}

async function load(url: string, pid: number, variant: Variant, seconds: number) {
  const before = cpuOf(pid);
  const result = await autocannon({ url, connections: variant.connections, duration: seconds, requests: variant.requests });
  const after = cpuOf(pid);
  if (before === null || after === null) throw new Error("compare-builds reads the servers' CPU time from /proc (Linux only)");
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${variant.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const units = result.requests.total * variant.units;
  return { cpu_us: (after - before) / units, per_s: units / seconds };
}

export async function run() {
  const beforeRoot = process.env.BENCH_AB_BEFORE;
  if (!beforeRoot) return { skipped: "set BENCH_AB_BEFORE=<root of another checkout, built (server/dist)> to compare its server with this one's" };
  const limits = { PLAN_FREE_MONTHLY_QUOTA: "1000000000", PLAN_FREE_RATE_LIMIT_PER_MINUTE: "1000000000", ANONYMOUS_RATE_LIMIT_PER_MINUTE: "1000000000" };
  const setup = await startTestServer({ dataset: "reference", env: limits });
  const key = await createApiKey(setup, await signIn(setup));
  const builds = {
    before: await spawnServe(setup, limits, join(beforeRoot, "server/bin/ir21-server.js")),
    after: await spawnServe(setup, limits, fileURLToPath(new URL("../../server/bin/ir21-server.js", import.meta.url))),
  };
  // Issue 34's peer, for the fields variant (lookup.bench.ts loads it the same way).
  const peerPort = await freePort();
  const peerChild = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./careful-user-server.ts", import.meta.url))], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    env: { ...process.env, PORT: String(peerPort) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const peer = { child: peerChild, url: `http://127.0.0.1:${peerPort}` };
  try {
    for (const { child, url } of [...Object.values(builds), peer]) {
      const ready = child === peer.child ? `${url}/lookup?number=%2B8613912345678` : `${url}/readyz`;
      for (let i = 0; !(await fetch(ready).then((r) => r.ok, () => false)); i++) {
        if (child.exitCode !== null || i > 600) throw new Error(`a server did not come up (${url})`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const numbers = await benchNumbers(setup, key.headers);
    const gets = (headers: Record<string, string>, extra = "") => numbers.map((n) => ({ method: "GET" as const, path: `/v1/lookup?number=${encodeURIComponent(n)}${extra}`, headers }));
    const batch = (i: number) => JSON.stringify({ numbers: numbers.slice(i * 100, (i + 1) * 100) });
    const variants: Variant[] = [
      { name: "lookup_api_key", connections: 50, units: 1, requests: gets(key.headers) },
      { name: "lookup_anonymous", connections: 50, units: 1, requests: gets({}) },
      // Issue 34's small answer (lookup.bench.ts's `lookup_api_key_fields`): mostly the lane's own cost.
      { name: "lookup_api_key_fields", connections: 50, units: 1, requests: gets(key.headers, `&fields=${SMALL_FIELDS}`) },
      { name: "batch_api_key", connections: 8, units: 100, requests: [0, 1].map((i) => ({ method: "POST" as const, path: "/v1/lookup/batch", headers: { ...key.headers, "content-type": "application/json" }, body: batch(i) })) },
    ];
    const only = process.env.BENCH_AB_VARIANTS?.split(",");
    if (only) variants.splice(0, variants.length, ...variants.filter((v) => only.includes(v.name)));
    // Both builds answer alike (the same bytes but the request id and version header).
    for (const variant of variants) {
      const bodies = await Promise.all(
        Object.values(builds).map(async ({ url }) => {
          const request = variant.requests[0]!;
          const response = await fetch(url + request.path, { method: request.method, headers: request.headers as Record<string, string>, body: request.body as string | undefined });
          return (await response.text()).replace(/"request_id":"[^"]+"/, "");
        }),
      );
      if (bodies[0] !== bodies[1]) throw new Error(`${variant.name}: the two builds answer differently`);
    }
    const peerVariant: Variant = { name: "careful_user_peer", connections: 50, units: 1, requests: numbers.map((n) => ({ method: "GET" as const, path: `/lookup?number=${encodeURIComponent(n)}` })) };
    await load(peer.url, peer.child.pid!, peerVariant, 1);
    // Warm both (JIT, fragments of every range the numbers reach).
    for (const variant of variants) for (const { url, child } of Object.values(builds)) await load(url, child.pid!, variant, 1);

    const report: Record<string, unknown> = { rounds: ROUNDS, seconds_each: SECONDS, before: beforeRoot };
    for (const variant of variants) {
      const runs = { before: [] as { cpu_us: number; per_s: number }[], after: [] as { cpu_us: number; per_s: number }[] };
      const peerRuns: { cpu_us: number; per_s: number }[] = [];
      const withPeer = variant.name === "lookup_api_key_fields";
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 ? (["after", "before"] as const) : (["before", "after"] as const);
        // The peer first, between or last in turn, so no side always follows it.
        if (withPeer && round % 3 === 0) peerRuns.push(await load(peer.url, peer.child.pid!, peerVariant, SECONDS));
        for (const [i, build] of order.entries()) {
          runs[build].push(await load(builds[build].url, builds[build].child.pid!, variant, SECONDS));
          if (withPeer && round % 3 === i + 1) peerRuns.push(await load(peer.url, peer.child.pid!, peerVariant, SECONDS));
        }
      }
      const unit = variant.units > 1 ? "number" : "request";
      report[variant.name] = {
        [`cpu_us_per_${unit}`]: { before: r2(median(runs.before.map((r) => r.cpu_us))), after: r2(median(runs.after.map((r) => r.cpu_us))) },
        [`${unit}s_per_s`]: { before: Math.round(median(runs.before.map((r) => r.per_s))), after: Math.round(median(runs.after.map((r) => r.per_s))) },
        cpu_after_over_before: r2(median(runs.after.map((r, i) => r.cpu_us / runs.before[i]!.cpu_us))),
        rate_after_over_before: r2(median(runs.after.map((r, i) => r.per_s / runs.before[i]!.per_s))),
      };
      if (withPeer) {
        const toPeer = (side: { per_s: number }[]) => {
          const ratios = side.map((r, i) => r.per_s / peerRuns[i]!.per_s);
          return { median: r2(median(ratios)), min: r2(Math.min(...ratios)), max: r2(Math.max(...ratios)) };
        };
        report.careful_user_peer = {
          cpu_us_per_request: r2(median(peerRuns.map((r) => r.cpu_us))),
          requests_per_s: Math.round(median(peerRuns.map((r) => r.per_s))),
          lookup_api_key_fields_rate_to_peer: { before: toPeer(runs.before), after: toPeer(runs.after), target: 1 },
        };
      }
    }
    return report;
  } finally {
    for (const { child } of [...Object.values(builds), peer]) child.kill();
    await setup.close();
  }
}
