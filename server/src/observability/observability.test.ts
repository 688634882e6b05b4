import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createApiKey,
  DeliveryWorker,
  demoDataset,
  importDataset,
  parsePrometheusText,
  sampleValue,
  signIn,
  startTestReceiver,
  startTestServer,
  type PromFamily,
  type TestReceiver,
  type TestServer,
} from "@ir21/server/testing";

/**
 * Metrics and traces through the real server (docs/operations.md "Metrics and traces"): a scrape of
 * the metrics listener read as Prometheus text, counters compared before and after requests, a
 * delivery and an import made here; spans received by an OTLP/HTTP receiver on loopback.
 */

/** Every family docs/operations.md lists, written here from the docs (not read from the code). */
const FAMILIES: Record<string, string> = {
  ir21_http_requests_total: "counter",
  ir21_http_request_duration_seconds: "histogram",
  ir21_metered_queries_total: "counter",
  ir21_metering_refusals_total: "counter",
  ir21_webhook_deliveries_total: "counter",
  ir21_webhook_delivery_duration_seconds: "histogram",
  ir21_webhook_queue_depth: "gauge",
  ir21_webhook_queue_oldest_pending_age_seconds: "gauge",
  ir21_listen_sessions_open: "gauge",
  ir21_listen_streams: "gauge",
  ir21_catalog_imports_total: "counter",
  ir21_catalog_import_duration_seconds: "histogram",
  ir21_catalog_import_last_success_timestamp_seconds: "gauge",
  ir21_catalog_dataset_info: "gauge",
  ir21_catalog_dataset_seq: "gauge",
  ir21_database_up: "gauge",
  ir21_database_ping_seconds: "gauge",
};
/** Only with Redis (the mysql project's servers have it). */
const REDIS_FAMILIES: Record<string, string> = {
  ir21_redis_up: "gauge",
  ir21_redis_commands_total: "counter",
  ir21_redis_circuit_opened_total: "counter",
};

const LOOKUP = "/v1/lookup";
const NUMBER = "+8613800138000";

describe("metrics", () => {
  let server: TestServer;
  let receiver: TestReceiver;

  beforeAll(async () => {
    // A low anonymous limit, to see refusals counted; the API key's plan keeps the test default.
    server = await startTestServer({ dataset: "demo", env: { METRICS_PORT: "0", WEBHOOK_ALLOW_HOSTS: "127.0.0.1", ANONYMOUS_RATE_LIMIT_PER_MINUTE: "3" } });
    receiver = await startTestReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await server.close();
  });

  const scrape = async (): Promise<Map<string, PromFamily>> => {
    const response = await fetch(server.metricsUrl!);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheusText(await response.text());
  };

  it("listen on their own port, not the public one, whose /metrics is the usual 404", async () => {
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(server.metricsUrl!).port).not.toBe(new URL(server.url).port);
    const publicMetrics = await server.json("/metrics");
    expect(publicMetrics.status).toBe(404);
    expect(publicMetrics.body).toEqual({ code: "NOT_FOUND", message: expect.any(String), request_id: publicMetrics.headers.get("x-request-id") });
    // The metrics listener answers nothing else.
    expect((await fetch(new URL("/", server.metricsUrl!))).status).toBe(404);
  });

  it("show every family, and the counters move with requests, refusals, a delivery and an import", async () => {
    const alice = await signIn(server);
    const { headers: withKey } = await createApiKey(server, alice);
    const before = await scrape();

    // Lookups on the lane (an API key, none) and on the app (a session cookie is the app's: data-api/lane.ts),
    // all counted under the one route pattern.
    const keyed = 5;
    for (let i = 0; i < keyed; i++) expect((await server.fetch(`${LOOKUP}?number=${encodeURIComponent(NUMBER)}`, { headers: withKey })).status).toBe(200);
    expect((await server.fetch(`${LOOKUP}?number=${encodeURIComponent(NUMBER)}`, { headers: { cookie: alice.cookie } })).status).toBe(200);
    // Anonymous: 3 a minute here, so the 4th and 5th are refused (429 RATE_LIMITED).
    const anonymous = [];
    for (let i = 0; i < 5; i++) anonymous.push((await server.fetch(`${LOOKUP}?number=${encodeURIComponent(NUMBER)}`)).status);
    expect(anonymous).toEqual([200, 200, 200, 429, 429]);
    // A wrong key: refused before it ran (401 UNAUTHORIZED).
    expect((await server.fetch(`${LOOKUP}?number=1`, { headers: { "x-api-key": "ir21_wrong" } })).status).toBe(401);
    // Raw paths with ids all count under their pattern.
    for (const id of ["a", "b", "c"]) expect((await server.fetch(`/console/webhooks/whk_${id}/deliveries`, { headers: { cookie: alice.cookie } })).status).toBe(404);
    expect((await server.fetch("/no/such/path")).status).toBe(404);

    // A delivery: a subscription's test event, sent by a worker to the local receiver.
    const created = await server.json("/console/webhooks", { method: "POST", headers: { cookie: alice.cookie }, body: { url: `${receiver.url}/hook`, events: ["ir21.operator.updated"] } });
    expect(created.status).toBe(200);
    expect((await server.json(`/console/webhooks/${created.body.data.item.id}/test`, { method: "POST", headers: { cookie: alice.cookie } })).status).toBe(200);
    const worker = new DeliveryWorker(server.deps.webhooks, { random: () => 0 });
    expect(await worker.drain()).toBe(1);
    expect(receiver.requests).toHaveLength(1);

    // An import: a changed demo dataset becomes a new version.
    const changed = demoDataset();
    changed.operators[0]!.name = `${changed.operators[0]!.name} (renamed)`;
    server.clock.advance(60_000);
    const imported = await importDataset(server.deps, changed);
    expect(imported.created).toBe(true);

    const after = await scrape();
    for (const [name, type] of Object.entries({ ...FAMILIES, ...(server.deps.store.redis ? REDIS_FAMILIES : {}) })) {
      expect(after.get(name)?.type, name).toBe(type);
    }
    const delta = (family: string, labels: Record<string, string>, name = family) => sampleValue(after, family, labels, name) - sampleValue(before, family, labels, name);

    expect(delta("ir21_http_requests_total", { route: LOOKUP, method: "GET", status: "200" })).toBe(keyed + 1 + 3);
    expect(delta("ir21_http_requests_total", { route: LOOKUP, method: "GET", status: "429" })).toBe(2);
    expect(delta("ir21_http_requests_total", { route: LOOKUP, method: "GET", status: "401" })).toBe(1);
    expect(delta("ir21_http_requests_total", { route: "/console/webhooks/:id/deliveries", method: "GET", status: "404" })).toBe(3);
    expect(delta("ir21_http_requests_total", { route: "unmatched", method: "GET", status: "404" })).toBe(1);
    // No raw path became a label.
    const routes = new Set(after.get("ir21_http_requests_total")!.samples.map((s) => s.labels.route));
    expect([...routes].filter((route) => /whk_|no\/such/.test(route!))).toEqual([]);
    // The latency histogram counts the same requests.
    expect(delta("ir21_http_request_duration_seconds", { route: LOOKUP, method: "GET", status: "200" }, "ir21_http_request_duration_seconds_count")).toBe(keyed + 1 + 3);
    expect(delta("ir21_http_request_duration_seconds", { route: LOOKUP, method: "GET", status: "200", le: "+Inf" }, "ir21_http_request_duration_seconds_bucket")).toBe(keyed + 1 + 3);

    expect(delta("ir21_metered_queries_total", { endpoint: "GET /v1/lookup", outcome: "charged" })).toBe(keyed + 1 + 3);
    expect(delta("ir21_metering_refusals_total", { endpoint: "GET /v1/lookup", code: "RATE_LIMITED" })).toBe(2);
    expect(delta("ir21_metering_refusals_total", { endpoint: "GET /v1/lookup", code: "UNAUTHORIZED" })).toBe(1);

    expect(delta("ir21_webhook_deliveries_total", { outcome: "delivered" })).toBe(1);
    expect(delta("ir21_webhook_delivery_duration_seconds", { outcome: "delivered" }, "ir21_webhook_delivery_duration_seconds_count")).toBe(1);
    expect(sampleValue(after, "ir21_webhook_queue_depth", { state: "due" })).toBe(0);

    expect(delta("ir21_catalog_imports_total", { outcome: "created" })).toBe(1);
    expect(delta("ir21_catalog_import_duration_seconds", { outcome: "created" }, "ir21_catalog_import_duration_seconds_count")).toBe(1);
    expect(sampleValue(after, "ir21_catalog_dataset_info", { version: imported.version })).toBe(1);
    expect(after.get("ir21_catalog_dataset_info")!.samples).toHaveLength(1);
    // By the server's clock, which the test moved.
    expect(sampleValue(after, "ir21_catalog_import_last_success_timestamp_seconds")).toBe(server.clock.now().getTime() / 1000);

    expect(sampleValue(after, "ir21_database_up")).toBe(1);
    if (server.deps.store.redis) {
      expect(sampleValue(after, "ir21_redis_up")).toBe(1);
      expect(sampleValue(after, "ir21_redis_commands_total", { outcome: "admitted" })).toBeGreaterThan(0);
    }
  });

  it("report the delivery queue: due, scheduled for later and the oldest one's age", async () => {
    const alice = await signIn(server);
    const created = await server.json("/console/webhooks", { method: "POST", headers: { cookie: alice.cookie }, body: { url: `${receiver.url}/hook`, events: ["ir21.operator.updated"] } });
    expect((await server.json(`/console/webhooks/${created.body.data.item.id}/test`, { method: "POST", headers: { cookie: alice.cookie } })).status).toBe(200);
    server.clock.advance(90_000);
    const families = await scrape();
    expect(sampleValue(families, "ir21_webhook_queue_depth", { state: "due" })).toBe(1);
    expect(sampleValue(families, "ir21_webhook_queue_oldest_pending_age_seconds")).toBe(90);
    await new DeliveryWorker(server.deps.webhooks, { random: () => 0 }).drain();
    expect(sampleValue(await scrape(), "ir21_webhook_queue_depth", { state: "due" })).toBe(0);
  });
});

describe("metrics off (the default)", () => {
  it("has no listener, and /metrics on the public port is the usual 404", async () => {
    const server = await startTestServer();
    try {
      expect(server.metricsUrl).toBeNull();
      expect(server.deps.telemetry.metrics.enabled).toBe(false);
      expect(server.deps.telemetry.tracing).toBeNull();
      const { status, body } = await server.json("/metrics");
      expect(status).toBe(404);
      expect(body.code).toBe("NOT_FOUND");
    } finally {
      await server.close();
    }
  });
});

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number };
  service: unknown;
}

/** An OTLP/HTTP receiver on loopback: JSON exports decoded into spans, protobuf ones kept as bytes. */
async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const raw: Array<{ path: string; contentType: string | undefined; body: Buffer }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      raw.push({ path: req.url ?? "", contentType: req.headers["content-type"], body });
      if (req.headers["content-type"]?.startsWith("application/json")) {
        const exported = JSON.parse(body.toString("utf8")) as { resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: Record<string, unknown> }> }; scopeSpans: Array<{ spans: any[] }> }> };
        for (const resourceSpans of exported.resourceSpans) {
          const service = attributesOf(resourceSpans.resource.attributes)["service.name"];
          for (const scope of resourceSpans.scopeSpans) for (const span of scope.spans) spans.push({ ...span, attributes: attributesOf(span.attributes ?? []), service });
        }
      }
      res.writeHead(200, { "content-type": req.headers["content-type"] ?? "application/json" }).end(req.headers["content-type"]?.startsWith("application/json") ? "{}" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    raw,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function attributesOf(list: Array<{ key: string; value: Record<string, unknown> }>): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, value.stringValue ?? (value.intValue === undefined ? (value.boolValue ?? value.doubleValue) : Number(value.intValue))]));
}

describe("traces", () => {
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let receiver: TestReceiver;
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    receiver = await startTestReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await otlp.close();
  });

  it("go to the OTLP endpoint (http/json): a request's span with its request id, its statements, a delivery, an import", async () => {
    const server = await startTestServer({
      dataset: "demo",
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_SERVICE_NAME: "ir21-test", WEBHOOK_ALLOW_HOSTS: "127.0.0.1" },
    });
    try {
      expect(server.deps.telemetry.tracing).not.toBeNull();
      const alice = await signIn(server);
      const { headers: withKey } = await createApiKey(server, alice);
      // The lane's lookup, and an app route reading the database, each under the id the caller gave.
      expect((await server.fetch(`${LOOKUP}?number=${encodeURIComponent(NUMBER)}`, { headers: { ...withKey, "x-request-id": "trace-lookup-1" } })).status).toBe(200);
      expect((await server.fetch("/console/webhooks", { headers: { cookie: alice.cookie, "x-request-id": "trace-app-1" } })).status).toBe(200);
      // A parent from the caller's traceparent is kept.
      const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
      expect((await server.fetch("/healthz", { headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` } })).status).toBe(200);

      const created = await server.json("/console/webhooks", { method: "POST", headers: { cookie: alice.cookie }, body: { url: `${receiver.url}/hook`, events: ["ir21.operator.updated"] } });
      expect((await server.json(`/console/webhooks/${created.body.data.item.id}/test`, { method: "POST", headers: { cookie: alice.cookie } })).status).toBe(200);
      expect(await new DeliveryWorker(server.deps.webhooks, { random: () => 0 }).drain()).toBe(1);
      const changed = demoDataset();
      changed.operators[0]!.name = `${changed.operators[0]!.name} (traced)`;
      const imported = await importDataset(server.deps, changed);

      await server.deps.telemetry.tracing!.flush();
      expect(otlp.raw.every((r) => r.path === "/v1/traces")).toBe(true);
      const spans = otlp.spans;
      expect(spans.length).toBeGreaterThan(0);
      expect(new Set(spans.map((s) => s.service))).toEqual(new Set(["ir21-test"]));

      const byRequestId = (id: string) => spans.filter((s) => s.attributes["ir21.request_id"] === id);
      const lookup = byRequestId("trace-lookup-1");
      expect(lookup).toHaveLength(1);
      expect(lookup[0]).toMatchObject({ name: `GET ${LOOKUP}`, kind: 2, attributes: { "http.route": LOOKUP, "http.response.status_code": 200, "http.request.method": "GET" } });

      const app = byRequestId("trace-app-1")[0]!;
      expect(app).toMatchObject({ name: "GET /console/webhooks", attributes: { "http.route": "/console/webhooks", "http.response.status_code": 200 } });
      // Its statements are its children: same trace, and the request's span is their ancestor.
      const system = server.deps.dialect === "mysql" ? "mysql" : "sqlite";
      const statements = spans.filter((s) => s.traceId === app.traceId && s.attributes["db.system.name"] === system);
      expect(statements.length).toBeGreaterThan(0);
      expect(statements.some((s) => s.parentSpanId === app.spanId)).toBe(true);
      expect(statements.every((s) => typeof s.attributes["db.query.text"] === "string" && s.kind === 3)).toBe(true);
      expect(statements.some((s) => s.name === "SELECT" && /webhook_subscriptions/.test(s.attributes["db.query.text"] as string))).toBe(true);

      const health = spans.find((s) => s.attributes["http.route"] === "/healthz")!;
      expect(health.traceId).toBe(callerTrace);
      expect(health.parentSpanId).toBe("00f067aa0ba902b7");

      const deliveries = spans.filter((s) => s.name === "webhook.deliver");
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]!.attributes).toMatchObject({ "ir21.delivery.outcome": "delivered", "http.response.status_code": 200, "ir21.subscription.id": created.body.data.item.id });

      // The test server's demo dataset was the first import; this one is the second.
      const imports = spans.filter((s) => s.name === "catalog.import" && s.attributes["ir21.dataset.version"] === imported.version);
      expect(imports).toHaveLength(1);
      expect(imports[0]!.attributes).toMatchObject({ "ir21.dataset.version": imported.version, "ir21.import.created": true });
      // The import's writes are its children.
      expect(spans.some((s) => s.traceId === imports[0]!.traceId && s.name === "INSERT")).toBe(true);

      if (server.deps.store.redis) expect(spans.some((s) => s.attributes["db.system.name"] === "redis")).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("default to OTLP/HTTP protobuf when only the endpoint is set", async () => {
    otlp.raw.length = 0;
    const server = await startTestServer({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: `${otlp.url}/` } });
    try {
      expect((await server.fetch("/healthz", { headers: { "x-request-id": "trace-proto-1" } })).status).toBe(200);
      await server.deps.telemetry.tracing!.flush();
      expect(otlp.raw.length).toBeGreaterThan(0);
      expect(otlp.raw.every((r) => r.path === "/v1/traces" && r.contentType === "application/x-protobuf")).toBe(true);
      // Protobuf carries strings as they are: the request id and the route are in the bytes.
      const bytes = Buffer.concat(otlp.raw.map((r) => r.body)).toString("latin1");
      expect(bytes).toContain("trace-proto-1");
      expect(bytes).toContain("GET /healthz");
    } finally {
      await server.close();
    }
  });
});
