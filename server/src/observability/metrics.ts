/**
 * What the server counts, as the code that does the work sees it (docs/operations.md "Metrics and
 * traces"). Each floor is handed only its part: the request wrapper {@link RequestMetrics}, the data
 * API {@link MeteringMetrics}, the webhook worker {@link DeliveryMetrics}, imports {@link ImportMetrics}.
 * Without METRICS_PORT every call lands in {@link NO_METRICS}: empty functions, and prom-client is
 * never loaded (prometheus.ts is imported only when the listener is configured).
 */

/** What became of one delivery attempt (webhooks/delivery/worker.ts). */
export type DeliveryOutcome = "delivered" | "retrying" | "failed" | "cancelled" | "dropped";

/** What became of one import (catalog/import/import.ts): a new version, an identical candidate, an error. */
export type ImportOutcome = "created" | "unchanged" | "failed";

export interface RequestMetrics {
  /** One answered request: its route pattern (never the raw path), method, status and time in seconds. */
  request(route: string, method: string, status: number, seconds: number): void;
}

export interface MeteringMetrics {
  /** A /v1 query admitted and settled: `charged` (2xx) or `failed` (an error answer after admission). */
  meteredQuery(endpoint: string, outcome: "charged" | "failed"): void;
  /** A /v1 query refused before it ran: the contract code (UNAUTHORIZED, RATE_LIMITED, QUOTA_EXCEEDED, …). */
  meteringRefusal(endpoint: string, code: string): void;
}

export interface DeliveryMetrics {
  /** One webhook delivery attempt and how long the POST took (0 when none was made). */
  delivery(outcome: DeliveryOutcome, seconds: number): void;
}

export interface ImportMetrics {
  /** One catalogue import, how it ended and how long it took; `at` is its end by the server's clock (ms). */
  importFinished(outcome: ImportOutcome, seconds: number, at: number): void;
}

/** What the wiring reads at each scrape (app/metrics-readings.ts); null where a reading failed. */
export interface ScrapeReadings {
  database: { up: boolean; seconds: number };
  /** Null without Redis. */
  redis: { up: boolean; admitted: number; refused: number; failed: number; opened: number } | null;
  queue: { due: number; scheduled: number; oldestPendingAgeSeconds: number } | null;
  listen: { openSessions: number | null; streams: number };
  dataset: { version: string; seq: number; ingestedAt: number } | null;
}

export interface Metrics extends RequestMetrics, MeteringMetrics, DeliveryMetrics, ImportMetrics {
  readonly enabled: boolean;
  /** The Prometheus text exposition, after taking the readings that are gauges of the moment. */
  scrape(read: () => Promise<ScrapeReadings>): Promise<{ contentType: string; body: string }>;
}

const nothing = () => undefined;

/** Metrics off (no METRICS_PORT): every recording is an empty call. */
export const NO_METRICS: Metrics = {
  enabled: false,
  request: nothing,
  meteredQuery: nothing,
  meteringRefusal: nothing,
  delivery: nothing,
  importFinished: nothing,
  scrape: () => Promise.reject(new Error("metrics are off (METRICS_PORT is unset)")),
};
