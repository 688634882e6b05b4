/**
 * Webhook delivery: fan-out throughput (deliveries signed and sent per second to a local receiver)
 * and enqueue-to-delivery latency, each against a baseline in the same run: the same POSTs sent by a
 * bare node:http loop with no queue, no signing and no URL checks, at the same concurrency.
 * `pnpm bench webhooks` (IR21_TEST_DB=mysql for MariaDB).
 */
import { request } from "node:http";
import { DEFAULT_ENDPOINT_CONCURRENCY, DeliveryWorker, fanOutAll, signIn, startTestReceiver, startTestServer, webhookEnv, type ChangeFeed } from "@ir21/server/testing";

const SUBSCRIPTIONS = 10;
const EVENTS = 200;
const CONCURRENCY = 16;
const LATENCY_SAMPLES = 200;

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

function barePost(url: string, body: string): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: target.hostname, port: target.port, path: target.pathname, method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function bareLoop(url: string, bodies: string[], concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < bodies.length) await barePost(url, bodies[next++]!);
  }));
  return performance.now() - started;
}

export async function run() {
  const server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1", LOG_LEVEL: "warn" } });
  const receiver = await startTestReceiver();
  try {
    const env = webhookEnv(server.deps);
    const user = await signIn(server);
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const { status } = await server.json("/console/webhooks", { method: "POST", headers: user.headers, body: { url: `${receiver.url}/hook/${i}`, events: ["ir21.operator.updated"] } });
      if (status !== 200) throw new Error(`subscribe failed: ${status}`);
    }
    const deliveries = SUBSCRIPTIONS * EVENTS;
    const bodies = Array.from({ length: deliveries }, (_, i) => JSON.stringify(makeEvent(i % EVENTS)));

    // Baseline throughput: the same number of POSTs, same bodies, same concurrency, no queue.
    await bareLoop(`${receiver.url}/warmup`, bodies.slice(0, 200), CONCURRENCY);
    const bareMs = await bareLoop(`${receiver.url}/bare`, bodies, CONCURRENCY);
    receiver.requests.length = 0;

    // Fan-out: events -> one delivery per subscription, in the cursor transaction.
    const feed = memoryFeed("bench");
    for (let i = 0; i < EVENTS; i++) feed.push(makeEvent(i));
    let t = performance.now();
    const fanned = await fanOutAll(env, feed);
    const fanOutMs = performance.now() - t;
    if (fanned.deliveries !== deliveries) throw new Error(`fan-out wrote ${fanned.deliveries}, expected ${deliveries}`);

    // Queue throughput: claim, sign, vet, POST, record — every delivery.
    const worker = new DeliveryWorker(env, { batchSize: 50, concurrency: CONCURRENCY, random: () => 0 });
    t = performance.now();
    await worker.drain();
    const queueMs = performance.now() - t;
    if (receiver.requests.length !== deliveries) throw new Error(`receiver got ${receiver.requests.length}, expected ${deliveries}`);
    receiver.requests.length = 0;

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

    const queueRate = deliveries / (queueMs / 1000);
    const bareRate = deliveries / (bareMs / 1000);
    return {
      database: server.target,
      deliveries,
      concurrency: CONCURRENCY,
      // Deliveries in flight per subscription (the worker's default): 10 subscriptions x 2 = 20 slots for 16 lanes.
      endpoint_concurrency: DEFAULT_ENDPOINT_CONCURRENCY,
      fan_out: { events: EVENTS, subscriptions: SUBSCRIPTIONS, ms: Math.round(fanOutMs), deliveries_written_per_s: Math.round(deliveries / (fanOutMs / 1000)) },
      throughput: {
        queue_deliveries_per_s: Math.round(queueRate),
        bare_posts_per_s: Math.round(bareRate),
        ratio_queue_to_bare: Number((queueRate / bareRate).toFixed(3)),
      },
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
