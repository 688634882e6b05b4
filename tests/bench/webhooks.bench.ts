/**
 * Webhook delivery: throughput (deliveries signed, sent to a local receiver and recorded, per second)
 * and enqueue-to-delivery latency, each against baselines in the same run: the same POSTs sent by a
 * bare node:http loop with no queue, no signing and no URL checks, at the same concurrency — once with
 * a new connection per POST (`agent: false`, the baseline of issue 20's figures) and once over
 * keep-alive connections (what a client that reuses connections can reach).
 *
 * Rounds (BENCH_ROUNDS, default 3) interleave the variants — bare, bare keep-alive, one worker with
 * 16 lanes, two workers with 8 lanes each — so the load of the moment on a shared machine moves them
 * alike; ratios are taken within a round and reported as median and range. Each variant also reports
 * this process's CPU time per delivery (user + system; the receiver runs in this process, so the bare
 * loop's CPU includes it too; on SQLite the database is in this process, on MariaDB it is not).
 * `pnpm bench webhooks` (IR21_TEST_DB=mysql for MariaDB). BENCH_CPU_PROFILE=<dir> also writes a V8 CPU
 * profile of each queue run (only the workers' time, not the fan-out or the baselines) to that folder,
 * to see where a delivery's time goes (docs/performance.md).
 */
import { writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { Session } from "node:inspector/promises";
import { loadavg } from "node:os";
import { DEFAULT_ENDPOINT_CONCURRENCY, DeliveryWorker, fanOutAll, signIn, startTestReceiver, startTestServer, type ChangeFeed } from "@ir21/server/testing";

const SUBSCRIPTIONS = 10;
const EVENTS = 200;
const CONCURRENCY = 16;
const LATENCY_SAMPLES = 200;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PROFILE_DIR = process.env.BENCH_CPU_PROFILE;

/** Runs `work` under the V8 profiler when BENCH_CPU_PROFILE is set, writing `<dir>/<name>.cpuprofile`. */
async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!PROFILE_DIR) return work();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  try {
    return await work();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(`${PROFILE_DIR}/${name}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  }
}

/**
 * Statements sent to the database, by kind, counted on the driver's connection class (every statement
 * goes through it: begin and commit too, inside transactions or not). A plugin (`withPlugin`) would
 * miss begin/commit and, on MariaDB, change what a transaction sends (db.ts), so the connection is
 * wrapped instead. A claim is counted by its UPDATE (the one that bumps `lease_token`).
 */
const statements = { total: 0, claims: 0, byKind: new Map<string, number>() };
async function countStatements(db: { getExecutor(): { provideConnection<T>(consumer: (connection: any) => Promise<T>): Promise<T> } }) {
  const proto = await db.getExecutor().provideConnection(async (connection) => Object.getPrototypeOf(connection));
  if (proto.__benchCounted) return;
  proto.__benchCounted = true;
  const original = proto.executeQuery;
  proto.executeQuery = function (this: unknown, compiled: { sql: string }) {
    statements.total++;
    const kind = compiled.sql.trimStart().split(/\s/, 1)[0]!.toLowerCase();
    statements.byKind.set(kind, (statements.byKind.get(kind) ?? 0) + 1);
    if (kind === "update" && compiled.sql.includes("lease_token + 1")) statements.claims++;
    return original.call(this, compiled);
  };
}
const statementsNow = () => ({ total: statements.total, claims: statements.claims, byKind: new Map(statements.byKind) });

type Payload = Record<string, unknown>;

function makeEvent(i: number): Payload {
  return {
    id: `evt_bench${String(i).padStart(20, "0")}`,
    type: "ir21.operator.updated",
    occurred_at: new Date(Date.UTC(2026, 10, 23, 4, 0, 0) + i).toISOString(),
    effective_at: null,
    dataset_version: "bench-2",
    previous_version: "bench-1",
    country_iso2: "CN",
    operator_id: "op_cn_46000",
    data: { before: { name: "China Mobile" }, after: { name: `China Mobile ${i}` }, changed_fields: ["name"] },
    test: false,
  };
}

function memoryFeed(name: string) {
  const log: Array<{ seq: number; event: any }> = [];
  const feed: ChangeFeed & { push(event: Payload): void } = {
    name,
    async readAfter(_db, afterSeq, limit) {
      return log.filter((r) => r.seq > afterSeq).slice(0, limit);
    },
    push(event) {
      log.push({ seq: log.length + 1, event });
    },
  };
  return feed;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function barePost(url: string, body: string, agent: Agent | false = false): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: target.hostname, port: target.port, path: target.pathname, method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

interface Timed {
  ms: number;
  /** This process's CPU time (user + system), µs. */
  cpuUs: number;
  /** Database statements sent meanwhile (begin and commit included), claims, and statements by kind. */
  queries: number;
  claims: number;
  byKind: Record<string, number>;
}

async function timed(work: () => Promise<unknown>): Promise<Timed> {
  const cpu = process.cpuUsage();
  const before = statementsNow();
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const byKind = Object.fromEntries([...statements.byKind].map(([k, n]) => [k, n - (before.byKind.get(k) ?? 0)]).filter(([, n]) => (n as number) > 0));
  return { ms, cpuUs: used.user + used.system, queries: statements.total - before.total, claims: statements.claims - before.claims, byKind };
}

async function bareLoop(url: string, bodies: string[], concurrency: number, agent: Agent | false = false): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < bodies.length) await barePost(url, bodies[next++]!, agent);
  }));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const round3 = (x: number) => Number(x.toFixed(3));
const summary = (values: number[]) => ({ median: round3(median(values)), min: round3(Math.min(...values)), max: round3(Math.max(...values)) });

export async function run() {
  const server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1", LOG_LEVEL: "warn" } });
  const receiver = await startTestReceiver();
  try {
    const env = server.deps.webhooks;
    await countStatements(env.db);
    const user = await signIn(server);
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const { status } = await server.json("/console/webhooks", { method: "POST", headers: user.headers, body: { url: `${receiver.url}/hook/${i}`, events: ["ir21.operator.updated"] } });
      if (status !== 200) throw new Error(`subscribe failed: ${status}`);
    }
    const deliveries = SUBSCRIPTIONS * EVENTS;
    const bodies = Array.from({ length: deliveries }, (_, i) => JSON.stringify(makeEvent(i % EVENTS)));
    const keepAlive = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    await bareLoop(`${receiver.url}/warmup`, bodies.slice(0, 200), CONCURRENCY);
    await bareLoop(`${receiver.url}/warmup`, bodies.slice(0, 200), CONCURRENCY, keepAlive);
    receiver.requests.length = 0;

    let batch = 0;
    const fanOuts: Timed[] = [];
    /** Fans out EVENTS fresh events (one delivery per subscription each), then times `workers` background workers until every delivery is sent and recorded. */
    const queueRun = async (workers: number, lanes: number): Promise<Timed> => {
      const feed = memoryFeed(`bench-${batch}`);
      for (let i = 0; i < EVENTS; i++) feed.push(makeEvent(++batch * 1_000_000 + i));
      let fanned = { deliveries: 0 };
      fanOuts.push(await timed(async () => (fanned = await fanOutAll(env, feed))));
      if (fanned.deliveries !== deliveries) throw new Error(`fan-out wrote ${fanned.deliveries}, expected ${deliveries}`);
      receiver.requests.length = 0;
      const running = Array.from({ length: workers }, () => new DeliveryWorker(env, { batchSize: 50, concurrency: lanes, random: () => 0 }));
      const result = await profiled(`queue_${workers}x${lanes}-${batch}`, () =>
        timed(async () => {
          for (const worker of running) worker.start();
          while (receiver.requests.length < deliveries) await new Promise((r) => setTimeout(r, 1));
          // Stopping waits for the in-flight deliveries to be recorded: the time includes every write.
          await Promise.all(running.map((worker) => worker.stop()));
        }),
      );
      if (receiver.requests.length !== deliveries) throw new Error(`receiver got ${receiver.requests.length}, expected ${deliveries}`);
      const pending = await env.db.selectFrom("webhook_deliveries").select((eb) => eb.fn.countAll<number>().as("n")).where("status", "=", "pending").executeTakeFirstOrThrow();
      if (Number(pending.n) !== 0) throw new Error(`${pending.n} deliveries still pending after the run`);
      receiver.requests.length = 0;
      return result;
    };

    const variants = {
      bare: () => timed(() => bareLoop(`${receiver.url}/bare`, bodies, CONCURRENCY)),
      bare_keep_alive: () => timed(() => bareLoop(`${receiver.url}/bare-ka`, bodies, CONCURRENCY, keepAlive)),
      queue_1x16: () => queueRun(1, CONCURRENCY),
      queue_2x8: () => queueRun(2, CONCURRENCY / 2),
    };
    type Variant = keyof typeof variants;
    const rounds: Array<Record<Variant, Timed>> = [];
    const load: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const round = {} as Record<Variant, Timed>;
      for (const name of Object.keys(variants) as Variant[]) round[name] = await variants[name]();
      rounds.push(round);
      load.push(loadavg()[0]!);
    }
    keepAlive.destroy();
    const rate = (t: Timed) => deliveries / (t.ms / 1000);
    const cpuPer = (t: Timed) => t.cpuUs / deliveries;
    const figures = Object.fromEntries(
      (Object.keys(variants) as Variant[]).map((name) => [
        name,
        {
          per_s: Math.round(median(rounds.map((r) => rate(r[name])))),
          cpu_us_per_delivery: Math.round(median(rounds.map((r) => cpuPer(r[name])))),
          ...(name.startsWith("queue")
            ? {
                queries_per_delivery: round3(median(rounds.map((r) => r[name].queries / deliveries))),
                claims_per_delivery: round3(median(rounds.map((r) => r[name].claims / deliveries))),
                statements_by_kind_last_round: rounds.at(-1)![name].byKind,
                ratio_to_bare: summary(rounds.map((r) => rate(r[name]) / rate(r.bare))),
                ratio_to_bare_keep_alive: summary(rounds.map((r) => rate(r[name]) / rate(r.bare_keep_alive))),
                cpu_ratio_to_bare: summary(rounds.map((r) => cpuPer(r[name]) / cpuPer(r.bare))),
              }
            : {}),
        },
      ]),
    );

    // Latency: one event at a time into the running background worker (woken by the enqueue signal).
    const latencyFeed = memoryFeed("bench-latency");
    const background = new DeliveryWorker(env, { batchSize: 50, concurrency: CONCURRENCY, pollIntervalMs: 1_000 });
    background.start();
    const enqueueToDelivery: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const event = makeEvent(100_000 + i);
      latencyFeed.push(event);
      const before = receiver.requests.length;
      const enqueuedAt = Date.now();
      await fanOutAll(env, latencyFeed); // one event -> SUBSCRIPTIONS deliveries
      while (receiver.requests.length < before + SUBSCRIPTIONS) await new Promise((r) => setImmediate(r));
      const arrivals = receiver.requests.slice(before).map((r) => r.receivedAt - enqueuedAt);
      enqueueToDelivery.push(...arrivals);
    }
    await background.stop();

    // Baseline latency: a bare POST of the same body, sequentially.
    const bareLatency: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const sentAt = Date.now();
      const before = receiver.requests.length;
      await barePost(`${receiver.url}/bare-latency`, bodies[i]!);
      bareLatency.push(receiver.requests[before]!.receivedAt - sentAt);
    }

    return {
      database: server.target,
      deliveries,
      concurrency: CONCURRENCY,
      rounds: ROUNDS,
      load_average_1m: load.map((x) => Number(x.toFixed(2))),
      // Deliveries in flight per subscription (the worker's default): 10 subscriptions x 2 = 20 slots for 16 lanes.
      endpoint_concurrency: DEFAULT_ENDPOINT_CONCURRENCY,
      fan_out: { events: EVENTS, subscriptions: SUBSCRIPTIONS, deliveries_written_per_s: Math.round(median(fanOuts.map((t) => deliveries / (t.ms / 1000)))) },
      throughput: figures,
      latency_ms: {
        enqueue_to_delivery: { p50: percentile(enqueueToDelivery, 50), p99: percentile(enqueueToDelivery, 99), samples: enqueueToDelivery.length },
        bare_post: { p50: percentile(bareLatency, 50), p99: percentile(bareLatency, 99), samples: bareLatency.length },
        p99_ratio_queue_to_bare: Number((percentile(enqueueToDelivery, 99) / Math.max(1, percentile(bareLatency, 99))).toFixed(2)),
      },
    };
  } finally {
    await receiver.close();
    await server.close();
  }
}
