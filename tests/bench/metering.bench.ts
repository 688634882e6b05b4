// Overhead of API-key authentication + rate limit + monthly quota on a data request, as a ratio to
// the same request without them (issue 6). Both routes (startDataProbe: /v1/probe/bare and /v1/probe)
// run in one app over the same dependencies and answer an envelope; the metered one goes through
// meteredQuery (key lookup by SHA-256, Redis or memory rate-limit counter, quota sum, usage upsert). The /v1 catalogue routes are not used, so the
// "query" itself is a constant answer: the ratio isolates the metering cost. IR21_TEST_DB=mysql runs
// it on MariaDB + Redis.
import { createApiKey, signIn, startDataProbe, startTestServer } from "@ir21/server/testing";

const ROUNDS = 5;
const PER_ROUND = 400;
const CONCURRENCY = 4;

async function load(url: string, headers: Record<string, string>, count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        next++;
        const response = await fetch(url, { headers });
        if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
        await response.arrayBuffer();
      }
    }),
  );
  return (performance.now() - started) / count;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function run() {
  const server = await startTestServer({ env: { PLAN_FREE_MONTHLY_QUOTA: "1000000000", LOG_LEVEL: "silent" } });
  const user = await signIn(server);
  const key = await createApiKey(server, user);
  const probe = await startDataProbe(server);
  const base = probe.url;
  try {
    await load(`${base}/v1/probe/bare`, {}, 200);
    await load(`${base}/v1/probe`, key.headers, 200);
    const bare: number[] = [];
    const keyed: number[] = [];
    const anonymous: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bare.push(await load(`${base}/v1/probe/bare`, {}, PER_ROUND));
      keyed.push(await load(`${base}/v1/probe`, key.headers, PER_ROUND));
      anonymous.push(await load(`${base}/v1/probe`, {}, PER_ROUND));
    }
    const ms = (v: number) => Math.round(v * 1000) / 1000;
    return {
      database: server.target,
      shared_store: server.deps.store.redis ? "redis" : "memory",
      requests_per_variant: ROUNDS * PER_ROUND,
      concurrency: CONCURRENCY,
      ms_per_request_median: { no_auth: ms(median(bare)), api_key_metered: ms(median(keyed)), anonymous_metered: ms(median(anonymous)) },
      ratio_api_key_metered_to_no_auth: Math.round((median(keyed) / median(bare)) * 100) / 100,
      ratio_anonymous_metered_to_no_auth: Math.round((median(anonymous) / median(bare)) * 100) / 100,
      note: "measured on a minimal route over the real app and dependencies (the /v1 catalogue routes were not on main)",
    };
  } finally {
    await probe.close();
    await server.close();
  }
}
