/**
 * The real server for tests: an ephemeral loopback port, a fresh database, an injected clock.
 * (index.ts re-exports it with the other helpers; the helpers import it from here.)
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { ManualClock } from "../src/clock.ts";
import { loadConfig } from "../src/config.ts";
import { createDeps, type AppDeps } from "../src/app/deps.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { startServer } from "../src/app/serve.ts";
import type { DrainLimits } from "../src/http/connections.ts";
import type { Metering } from "../src/metering/metering.ts";
import { createTestDatabase, testTarget, TEST_REDIS_URL, type TestDatabase, type TestTarget } from "./databases.ts";
import { captureLogs, type LogCapture } from "./log-capture.ts";
import { loadInitialDataset, type InitialDataset } from "../src/catalog/import/initial-dataset.ts";
import type { HostResolver } from "../src/webhooks/subscriptions/url-policy.ts";

export interface TestServer {
  /** Base URL of the real HTTP server, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Prometheus's listener (env METRICS_PORT, "0" for any free port), e.g. http://127.0.0.1:41235/metrics; null when off. */
  metricsUrl: string | null;
  target: TestTarget;
  deps: AppDeps;
  clock: ManualClock;
  logs: LogCapture;
  /** Scratch directory of this server (DATA_DIR, SMS outbox). */
  dir: string;
  /** fetch() against the server: `path` is relative to its URL. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** fetch() and parse the JSON body. */
  json<T = any>(path: string, init?: Omit<RequestInit, "body"> & { body?: unknown }): Promise<{ status: number; headers: Headers; body: T }>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Extra environment variables, on top of the test defaults. */
  env?: Record<string, string>;
  clock?: ManualClock;
  /**
   * Start with a catalogue version: "demo" (the small hand-made dataset, fast), "reference" (the real
   * npm reference data, ~2 s) or any candidate. Default: no dataset, as a fresh install before its
   * first import.
   */
  dataset?: InitialDataset;
  /** DNS for webhook targets (see webhooks/subscriptions/url-policy.ts); the system resolver when unset. */
  hostResolver?: HostResolver;
  /**
   * Start another instance of `instanceOf`'s deployment instead of a new one: the same database,
   * Redis key prefix, secrets, environment (plus `env`) and clock, its own process-local state (caches,
   * buffered usage). Closing it leaves the shared database and Redis keys to the first server.
   */
  instanceOf?: TestServer;
  /**
   * Listen on this loopback port instead of an ephemeral one: for a browser, whose writes must come
   * from an origin in PUBLIC_ORIGIN, which has to be known before the server starts.
   */
  port?: number;
  /** How much of an unread body the HTTP edge discards before it closes the connection (http/connections.ts). */
  drainLimits?: DrainLimits;
  /** Wraps the metering the data API uses, e.g. to record what the routes report (testing/metering.ts). */
  metering?: (real: Metering) => Metering;
}

/**
 * Starts the real server on an ephemeral loopback port with a fresh database (SQLite file or a new
 * MySQL schema, per IR21_TEST_DB) and, on the mysql target, Redis under a private key prefix.
 * @example
 * const server = await startTestServer();
 * const { status, body } = await server.json("/healthz");
 * await server.close();
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const target = testTarget();
  const first = options.instanceOf;
  const database: Pick<TestDatabase, "url" | "dir" | "drop"> = first
    ? { url: first.deps.config.databaseUrl, dir: first.dir, drop: async () => undefined }
    : await createTestDatabase(target);
  const clock = options.clock ?? first?.clock ?? new ManualClock();
  const logs = captureLogs();
  const keyPrefix = first?.deps.store.keyPrefix ?? `ir21test:${randomBytes(6).toString("hex")}:`;
  const config = loadConfig(first ? { ...first.deps.config.env, ...options.env } : {
    NODE_ENV: "test",
    DATABASE_URL: database.url,
    REDIS_URL: target === "mysql" ? TEST_REDIS_URL() : undefined,
    DATA_DIR: database.dir,
    IR21_SMS_OUTBOX: join(database.dir, "sms-outbox.jsonl"),
    SESSION_SECRET: randomBytes(32).toString("hex"),
    OTP_PEPPER: randomBytes(32).toString("hex"),
    SHUTDOWN_TIMEOUT_MS: "2000",
    // Every test client is 127.0.0.1: per-address SMS caps would make sign-ins of unrelated tests
    // collide. Tests of those caps set their own values.
    SMS_IP_HOURLY_LIMIT: "100000",
    SMS_IP_DAILY_LIMIT: "100000",
    // Likewise the per-address and per-plan request limits; tests of limits set their own.
    ANONYMOUS_RATE_LIMIT_PER_MINUTE: "100000",
    PLAN_FREE_RATE_LIMIT_PER_MINUTE: "100000",
    CONTACT_IP_HOURLY_LIMIT: "100000",
    LOGIN_IP_LIMIT: "100000",
    ...options.env,
  });
  const deps = await createDeps(config, { clock, log: logs.log, keyPrefix, hostResolver: options.hostResolver, metering: options.metering });
  if (!first) await migrateToLatest(deps.db);
  if (options.dataset) await loadInitialDataset(deps, options.dataset);
  const running = await startServer(deps, { port: options.port ?? 0, host: "127.0.0.1" }, {
    // Not in tests: each test server would build its index and read +86's data in the background.
    warmLookups: false,
    drainLimits: options.drainLimits,
    async beforeClose() {
      // Leave the shared Redis as we found it (the first instance does, for all of them).
      const redis = first ? null : deps.store.redis;
      // A test that took its Redis away leaves its keys there (a private Redis goes with the test).
      if (redis && redis.status === "ready") {
        const keys = await redis.keys(`${keyPrefix}*`).catch(() => []);
        if (keys.length) await redis.del(...keys).catch(() => undefined);
      }
    },
  });

  const doFetch = (path: string, init?: RequestInit) => fetch(new URL(path, running.url), init);
  return {
    url: running.url,
    metricsUrl: running.metricsUrl,
    target,
    deps,
    clock,
    logs,
    dir: database.dir,
    fetch: doFetch,
    async json(path, init = {}) {
      const { body, headers, ...rest } = init;
      const hasBody = body !== undefined;
      const response = await doFetch(path, {
        ...rest,
        headers: { ...(hasBody ? { "content-type": "application/json" } : {}), ...(headers as Record<string, string> | undefined) },
        body: hasBody ? (typeof body === "string" ? body : JSON.stringify(body)) : undefined,
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await running.close();
      await database.drop();
    },
  };
}
