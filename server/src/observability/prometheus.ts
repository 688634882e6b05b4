import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { DeliveryOutcome, ImportOutcome, Metrics, ScrapeReadings } from "./metrics.ts";

/** Request latencies: from a cached lookup (~1 ms) to a slow export. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** A delivery's POST, bounded by the sender's total timeout. */
const DELIVERY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** An import: a no-op comparison of the demo data to a first reference import of minutes. */
const IMPORT_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/**
 * A labelled counter or histogram for the per-request series (requests, metered queries), kept as plain
 * numbers per label set and read by the registry at scrape time through prom-client's metric contract
 * (`get()`, as its own metrics are read). prom-client's own `labels(…).inc()` and `.observe()` hash the
 * labels on every call: about 1 µs a request for the two, which was most of what metrics cost a lookup
 * (tests/bench/metrics.bench.ts); this costs a map read and a few adds.
 */
class FastSeries {
  readonly aggregator = "sum" as const;
  readonly #series = new Map<string, { labels: Record<string, string>; count: number; sum: number; buckets: Float64Array | null }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: "counter" | "histogram",
    readonly labelNames: readonly string[],
    readonly buckets: readonly number[] = [],
  ) {}

  /**
   * The series of one label set, made on first use: `key` identifies the values, given in labelNames'
   * order as separate arguments (no array made per call on the request path).
   */
  series(key: string, a: string, b: string, c?: string | number) {
    let series = this.#series.get(key);
    if (series === undefined) {
      const values = [a, b, String(c)];
      const labels = Object.fromEntries(this.labelNames.map((name, i) => [name, values[i]!]));
      series = { labels, count: 0, sum: 0, buckets: this.type === "histogram" ? new Float64Array(this.buckets.length) : null };
      this.#series.set(key, series);
    }
    return series;
  }

  inc(key: string, a: string, b: string, c?: string | number): void {
    this.series(key, a, b, c).count++;
  }

  observe(value: number, key: string, a: string, b: string, c?: string | number): void {
    const series = this.series(key, a, b, c);
    series.count++;
    series.sum += value;
    const bounds = this.buckets;
    // Each observation in the first bucket it fits; cumulated when read.
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        series.buckets![i]!++;
        break;
      }
    }
  }

  get() {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName?: string }> = [];
    for (const series of this.#series.values()) {
      if (this.type === "counter") {
        values.push({ labels: series.labels, value: series.count });
        continue;
      }
      let cumulated = 0;
      this.buckets.forEach((bound, i) => {
        cumulated += series.buckets![i]!;
        values.push({ labels: { le: bound, ...series.labels }, value: cumulated, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: "+Inf", ...series.labels }, value: series.count, metricName: `${this.name}_bucket` });
      values.push({ labels: series.labels, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: series.labels, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.#series.clear();
  }
}

/**
 * The Prometheus registry of one server (prom-client), with every family of docs/operations.md
 * "Metrics and traces" and Node's own process metrics (`ir21_process_*`, `ir21_nodejs_*`). Loaded only
 * when METRICS_PORT is set (telemetry.ts).
 * @example
 * const metrics = createPrometheusMetrics();
 * metrics.request("/v1/lookup", "GET", 200, 0.002);
 */
export function createPrometheusMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "ir21_" });
  const registers = [registry];

  const fast = <T extends FastSeries>(metric: T): T => {
    // prom-client's registry reads any metric by its get() (lib/registry.js getMetricsAsString).
    registry.registerMetric(metric as unknown as Parameters<Registry["registerMetric"]>[0]);
    return metric;
  };
  const requests = fast(new FastSeries("ir21_http_requests_total", "HTTP requests answered, by route pattern, method and status", "counter", ["route", "method", "status"]));
  const requestSeconds = fast(
    new FastSeries("ir21_http_request_duration_seconds", "Time from a request's arrival to the end of its answer, by route pattern, method and status", "histogram", ["route", "method", "status"], REQUEST_BUCKETS),
  );
  const queries = fast(new FastSeries("ir21_metered_queries_total", "/v1 queries admitted by metering, by endpoint and outcome (charged: 2xx; failed: an error answer after admission)", "counter", ["endpoint", "outcome"]));
  const refusals = fast(new FastSeries("ir21_metering_refusals_total", "/v1 queries refused before they ran, by endpoint and contract code (UNAUTHORIZED, RATE_LIMITED, QUOTA_EXCEEDED, …)", "counter", ["endpoint", "code"]));
  const deliveries = new Counter({ name: "ir21_webhook_deliveries_total", help: "Webhook delivery attempts by outcome", labelNames: ["outcome"], registers });
  const deliverySeconds = new Histogram({ name: "ir21_webhook_delivery_duration_seconds", help: "Time a delivery's POST took, by outcome", labelNames: ["outcome"], buckets: DELIVERY_BUCKETS, registers });
  const queueDepth = new Gauge({ name: "ir21_webhook_queue_depth", help: "Pending webhook deliveries: due now, or scheduled for a later retry", labelNames: ["state"], registers });
  const oldestPending = new Gauge({ name: "ir21_webhook_queue_oldest_pending_age_seconds", help: "Age of the oldest pending webhook delivery (0 when none is pending)", registers });
  const listenSessions = new Gauge({ name: "ir21_listen_sessions_open", help: "Open listen sessions (ir21 listen) of the whole deployment", registers });
  const listenStreams = new Gauge({ name: "ir21_listen_streams", help: "Listen sessions whose event stream this process holds", registers });
  const imports = new Counter({ name: "ir21_catalog_imports_total", help: "Catalogue imports run by this process, by outcome (created, unchanged, failed)", labelNames: ["outcome"], registers });
  const importSeconds = new Histogram({ name: "ir21_catalog_import_duration_seconds", help: "Time a catalogue import took, by outcome", labelNames: ["outcome"], buckets: IMPORT_BUCKETS, registers });
  const lastImport = new Gauge({ name: "ir21_catalog_import_last_success_timestamp_seconds", help: "When the last successful import ended (this process's, or the newest version's ingestion by any process)", registers });
  const datasetInfo = new Gauge({ name: "ir21_catalog_dataset_info", help: "The current dataset version (value 1; the version is the label)", labelNames: ["version"], registers });
  const datasetSeq = new Gauge({ name: "ir21_catalog_dataset_seq", help: "The current dataset version's sequence number", registers });
  const databaseUp = new Gauge({ name: "ir21_database_up", help: "1 when the database answered a SELECT 1 at this scrape, else 0", registers });
  const databaseSeconds = new Gauge({ name: "ir21_database_ping_seconds", help: "How long that SELECT 1 took", registers });
  // Redis families exist only with Redis: without it their absence says so, where a 0 would page someone.
  let redis: { up: Gauge; commands: Counter; opened: Counter; seen: { admitted: number; refused: number; failed: number; opened: number } } | null = null;

  let lastSuccessMs = 0;

  function readRedis(reading: NonNullable<ScrapeReadings["redis"]>): void {
    redis ??= {
      up: new Gauge({ name: "ir21_redis_up", help: "1 while the Redis circuit is closed (commands go to Redis), 0 while it is open or probing", registers }),
      commands: new Counter({ name: "ir21_redis_commands_total", help: "Redis commands by what the circuit did: admitted (sent), refused (turned away while open), failed (sent, Redis not there)", labelNames: ["outcome"], registers }),
      opened: new Counter({ name: "ir21_redis_circuit_opened_total", help: "Times the Redis circuit opened", registers }),
      seen: { admitted: 0, refused: 0, failed: 0, opened: 0 },
    };
    redis.up.set(reading.up ? 1 : 0);
    // The circuit keeps running totals; the counters move by what changed since the last scrape.
    for (const outcome of ["admitted", "refused", "failed"] as const) {
      redis.commands.labels(outcome).inc(Math.max(0, reading[outcome] - redis.seen[outcome]));
      redis.seen[outcome] = reading[outcome];
    }
    redis.opened.inc(Math.max(0, reading.opened - redis.seen.opened));
    redis.seen.opened = reading.opened;
  }

  return {
    enabled: true,
    request(route, method, status, seconds) {
      const key = `${route} ${method} ${status}`;
      requests.inc(key, route, method, status);
      requestSeconds.observe(seconds, key, route, method, status);
    },
    meteredQuery(endpoint, outcome) {
      queries.inc(`${endpoint} ${outcome}`, endpoint, outcome);
    },
    meteringRefusal(endpoint, code) {
      refusals.inc(`${endpoint} ${code}`, endpoint, code);
    },
    delivery(outcome: DeliveryOutcome, seconds: number) {
      deliveries.labels(outcome).inc();
      deliverySeconds.labels(outcome).observe(seconds);
    },
    importFinished(outcome: ImportOutcome, seconds: number, at: number) {
      imports.labels(outcome).inc();
      importSeconds.labels(outcome).observe(seconds);
      if (outcome !== "failed") lastSuccessMs = Math.max(lastSuccessMs, at);
    },
    async scrape(read) {
      const readings = await read();
      databaseUp.set(readings.database.up ? 1 : 0);
      databaseSeconds.set(readings.database.seconds);
      if (readings.redis) readRedis(readings.redis);
      if (readings.queue) {
        queueDepth.labels("due").set(readings.queue.due);
        queueDepth.labels("scheduled").set(readings.queue.scheduled);
        oldestPending.set(readings.queue.oldestPendingAgeSeconds);
      }
      if (readings.listen.openSessions !== null) listenSessions.set(readings.listen.openSessions);
      listenStreams.set(readings.listen.streams);
      if (readings.dataset) {
        datasetInfo.reset();
        datasetInfo.labels(readings.dataset.version).set(1);
        datasetSeq.set(readings.dataset.seq);
      }
      const lastMs = Math.max(lastSuccessMs, readings.dataset?.ingestedAt ?? 0);
      if (lastMs > 0) lastImport.set(lastMs / 1000);
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
