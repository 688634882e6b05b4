import type { IncomingHttpHeaders } from "node:http";

/**
 * Traces through the narrow interface the code uses (docs/operations.md "Metrics and traces"). The
 * OpenTelemetry SDK behind it (tracing-sdk.ts) is imported only when the OTEL_* variables turn tracing
 * on; otherwise every holder of a `Tracing | null` has null and takes its untraced path, so nothing of
 * OpenTelemetry is loaded and no request pays for it.
 */
export type SpanAttributes = Record<string, string | number | boolean>;

export interface SpanHandle {
  setAttribute(key: string, value: string | number | boolean): void;
  /** Marks the span as an error (status ERROR, the exception recorded). */
  fail(error: unknown): void;
  end(): void;
}

export interface ServerSpan extends SpanHandle {
  rename(name: string): void;
}

export interface Tracing {
  /**
   * Runs `run` inside a new span, a child of whatever span is active (a request's, a job's), and ends
   * it when `run` settles; a rejection marks it failed and is passed on.
   * @example
   * await tracing.inSpan("catalog.import", { "ir21.import.holder": "schedule" }, () => importDataset(env, candidate));
   */
  inSpan<T>(name: string, attributes: SpanAttributes, run: (span: SpanHandle) => Promise<T>, kind?: "internal" | "client"): Promise<T>;
  /** A span around work that starts none of its own (a database statement, a Redis command): not made active. */
  leafSpan(name: string, attributes: SpanAttributes, kind?: "internal" | "client"): SpanHandle;
  /**
   * A request's server span, its parent taken from the request's W3C `traceparent` when it has one;
   * `handle` runs with it active, so the spans of the request's statements and commands are its children.
   */
  serverSpan(name: string, headers: IncomingHttpHeaders, attributes: SpanAttributes, handle: () => void): ServerSpan;
  /** Exports every finished span now (tests; the stop of the process). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** What the OTEL_* variables say (config.ts reads them), or null: tracing is off. */
export interface TracingSettings {
  /** The full traces URL (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces). */
  url: string;
  protocol: "http/protobuf" | "http/json";
  headers: Record<string, string>;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, decoded. */
  resourceAttributes: Record<string, string>;
  sampler: { name: "always_on" | "always_off" | "traceidratio" | "parentbased_always_on" | "parentbased_always_off" | "parentbased_traceidratio"; ratio: number };
}

/**
 * A `key=value,key=value` list as OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES write it
 * (W3C Baggage: values percent-encoded); entries without `=` are skipped, as the SDK does.
 */
export function keyValueList(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of (text ?? "").split(",")) {
    const at = entry.indexOf("=");
    if (at <= 0) continue;
    const key = entry.slice(0, at).trim();
    const raw = entry.slice(at + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // Not percent-encoded after all: kept as written.
    }
    if (key) out[key] = value;
  }
  return out;
}
