import type { Config } from "../config.ts";
import { NO_METRICS, type Metrics } from "./metrics.ts";
import type { Tracing } from "./tracing.ts";

/**
 * The server's metrics and traces, made once at start (app/deps.ts) from the configuration: Prometheus
 * metrics when METRICS_PORT is set (prom-client is loaded only then), traces when the OTEL_* variables
 * name an endpoint (the OpenTelemetry SDK is loaded only then). Domains get only the part they record
 * through their env (webhooks: deliveries; the catalogue: imports; the data API: metering).
 */
export interface Telemetry {
  metrics: Metrics;
  tracing: Tracing | null;
  /** Exports the spans still buffered and stops the exporter. */
  close(): Promise<void>;
}

/** How long a stop waits for the last spans to be exported. */
const CLOSE_WAIT_MS = 2_000;

/** Neither metrics nor traces. */
export const NO_TELEMETRY: Telemetry = { metrics: NO_METRICS, tracing: null, close: async () => undefined };

/**
 * @example
 * const telemetry = await openTelemetry(loadConfig(), VERSION);
 */
export async function openTelemetry(config: Pick<Config, "metrics" | "tracing">, serviceVersion: string): Promise<Telemetry> {
  const metrics = config.metrics.port === null ? NO_METRICS : (await import("./prometheus.ts")).createPrometheusMetrics();
  const tracing = config.tracing ? await (await import("./tracing-sdk.ts")).startOpenTelemetry(config.tracing, serviceVersion) : null;
  return {
    metrics,
    tracing,
    async close() {
      if (!tracing) return;
      // The last spans go out if the collector answers; one that is down (the exporter retries with
      // backoff) must not hold the stop for longer than this.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([tracing.shutdown().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS).unref()))]);
      clearTimeout(timer);
    },
  };
}
