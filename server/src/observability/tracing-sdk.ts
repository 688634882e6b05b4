import { context, defaultTextMapGetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type Sampler, type SpanExporter } from "@opentelemetry/sdk-trace";
import type { SpanAttributes, SpanHandle, Tracing, TracingSettings } from "./tracing.ts";

/**
 * The OpenTelemetry Node SDK behind {@link Tracing}: a tracer provider of this server's own (not the
 * global one, so that several servers of one process, as in the tests, each export to their own
 * endpoint), a batch processor and the OTLP/HTTP exporter of the configured protocol. The context
 * manager (AsyncLocalStorage) is the process's, registered once: it is what makes a request's span the
 * parent of the statements it runs. Imported only when tracing is on (tracing.ts).
 *
 * No auto-instrumentation: the server has one door for each kind of work, and a span there covers it
 * on both databases and in-process test servers alike, where the http, mysql2 and ioredis
 * instrumentations patch modules at load (before the server is imported, and not at all for
 * better-sqlite3): the request wrapper (http.ts), the database driver (database.ts), the Redis circuit
 * (storage/redis-connection.ts), the delivery worker and the import.
 */
let contextManagerRegistered = false;

export async function startOpenTelemetry(settings: TracingSettings, serviceVersion: string): Promise<Tracing> {
  // Once per process: another server of this process (tests) uses the same one.
  if (!contextManagerRegistered) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    contextManagerRegistered = true;
  }
  const exporter: SpanExporter =
    settings.protocol === "http/json"
      ? new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter({ url: settings.url, headers: settings.headers })
      : new (await import("@opentelemetry/exporter-trace-otlp-proto")).OTLPTraceExporter({ url: settings.url, headers: settings.headers });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ ...settings.resourceAttributes, "service.name": settings.serviceName, "service.version": serviceVersion }),
    sampler: samplerOf(settings.sampler),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer("ir21-server", serviceVersion);
  const propagator = new W3CTraceContextPropagator();
  const kindOf = (kind: "internal" | "client" | undefined) => (kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL);
  const handle = (span: Span): SpanHandle => ({
    setAttribute: (key, value) => void span.setAttribute(key, value),
    fail: (error) => failSpan(span, error),
    end: () => span.end(),
  });

  return {
    async inSpan(name, attributes: SpanAttributes, run, kind) {
      return tracer.startActiveSpan(name, { kind: kindOf(kind), attributes }, async (span) => {
        try {
          return await run(handle(span));
        } catch (error) {
          failSpan(span, error);
          throw error;
        } finally {
          span.end();
        }
      });
    },
    leafSpan(name, attributes, kind) {
      return handle(tracer.startSpan(name, { kind: kindOf(kind), attributes }));
    },
    serverSpan(name, headers, attributes, run) {
      const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
      context.with(trace.setSpan(parent, span), run);
      return { ...handle(span), rename: (newName) => void span.updateName(newName) };
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

function failSpan(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

function samplerOf({ name, ratio }: TracingSettings["sampler"]): Sampler {
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(ratio);
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
