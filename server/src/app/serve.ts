import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "srvx/node";
import { catalogApi, type AppDeps } from "./deps.ts";
import { createApp } from "./http-app.ts";
import { warmLookups } from "../catalog/lookup/warm-up.ts";
import { lookupRoute } from "../catalog/routes/lookup.ts";
import { serveOnNode } from "../data-api/lane.ts";
import { guardConnections, refuseWithoutHost, type DrainLimits } from "../http/connections.ts";
import { answerAtEndOfTurn } from "../http/end-of-turn.ts";
import { ReasonPhraseResponse } from "../http/status-line.ts";
import { startMetricsListener, type MetricsListener } from "../observability/metrics-listener.ts";
import { observeRequests } from "../observability/requests.ts";
import { metricsReadings } from "./metrics-readings.ts";

export interface RunningServer {
  /** e.g. http://127.0.0.1:8787 */
  url: string;
  port: number;
  server: Server;
  /** Prometheus's listener's URL (METRICS_PORT), e.g. http://127.0.0.1:9464/metrics; null when metrics are off. */
  metricsUrl: string | null;
  /**
   * Graceful stop: refuse new connections, let in-flight requests finish (up to the shutdown timeout,
   * then cut them), then close the database and shared store.
   */
  close(): Promise<void>;
}

/**
 * Starts the HTTP server for an assembled app.
 * @example
 * const running = await startServer(deps, { port: 0, host: "127.0.0.1" });
 * await fetch(`${running.url}/healthz`);
 * await running.close();
 */
export async function startServer(
  deps: AppDeps,
  listen: { port: number; host: string },
  hooks: { beforeClose?: () => Promise<void>; warmLookups?: boolean; lookupOnNode?: boolean; drainLimits?: DrainLimits } = {},
): Promise<RunningServer> {
  const app = createApp(deps);
  // h3's own node adapter (srvx), given the app's fetch with its answers batched per event-loop turn;
  // srvx types its handler for HTTP/1 and HTTP/2 at once, h3's wrapper narrows it to HTTP/1 likewise.
  const toApp = toNodeHandler(answerAtEndOfTurn(app.fetch)) as RequestListener;
  // GET /v1/lookup on its own lane ahead of srvx and h3, for what it answers exactly as the app does
  // (data-api/lane.ts); `lookupOnNode: false` serves it through the app like every route.
  const lookupLane = hooks.lookupOnNode === false ? null : serveOnNode(lookupRoute, catalogApi(deps));
  // Answers' status lines carry their reason phrase, whichever way they went (http/status-line.ts).
  // A request without Host is refused by the edge with the error body, not by node with an empty one.
  const routed: RequestListener = lookupLane ? (req, res) => lookupLane(req, res) || toApp(req, res) : toApp;
  // Every request counted and timed by route and status, and traced, whichever way it went (the
  // listener as it is when metrics and traces are off: observability/requests.ts).
  const handler = observeRequests(routed, deps.telemetry);
  const server = createServer({ ServerResponse: ReasonPhraseResponse, requireHostHeader: false }, refuseWithoutHost(handler));
  // Slowloris bounds: a client must send its headers, and its whole request, within these.
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  // Idle keep-alive sockets outlive the usual proxy and load-balancer idle timeouts (60 s): when the
  // server closes first, a client reusing the socket at that moment gets a reset (the familiar 502s
  // behind a load balancer). Node's 5 s default invites exactly that.
  server.keepAliveTimeout = 65_000;
  // Unread bodies discarded after their answer, node's own refusals (431, 400, 408) as contract errors,
  // an unknown Expect ignored rather than answered with node's empty 417.
  guardConnections(server, { bodyLimitBytes: deps.config.bodyLimitBytes, drain: hooks.drainLimits });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // What the first lookup would otherwise pay (the current version's index, ~0.8 s for the reference
  // dataset; +86's 8 MB of geocoding data, 0.6-1 s): made right after listening, in slices that yield
  // to the event loop, so requests meanwhile are answered and readiness does not wait for it
  // (docs/performance.md "Warm-up").
  if (hooks.warmLookups !== false) {
    setImmediate(() => {
      const started = performance.now();
      warmLookups({ versions: deps.datasetMeta, lookupIndexes: deps.catalog.lookupIndexes }).then(
        () => deps.log.debug({ ms: Math.round(performance.now() - started) }, "lookups warmed"),
        (err: unknown) => deps.log.warn({ err }, "warming the lookups failed; the first lookup will do it"),
      );
    });
  }
  // Prometheus on its own listener (METRICS_PORT), never on the public port.
  let metricsListener: MetricsListener | null = null;
  if (deps.config.metrics.port !== null) {
    try {
      metricsListener = await startMetricsListener(deps.telemetry.metrics, metricsReadings(deps), { port: deps.config.metrics.port, host: deps.config.metrics.host }, deps.log);
    } catch (error) {
      server.close();
      throw error;
    }
  }
  const { port } = server.address() as AddressInfo;
  const host = listen.host.includes(":") ? `[${listen.host}]` : listen.host;

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      deps.lifecycle.shuttingDown = true;
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive sockets go idle as their last request finishes; reap them as they do.
      const reaper = setInterval(() => server.closeIdleConnections(), 25);
      const deadline = setTimeout(() => server.closeAllConnections(), deps.config.shutdownTimeoutMs);
      server.closeIdleConnections();
      await drained;
      clearInterval(reaper);
      clearTimeout(deadline);
      await metricsListener?.close();
      await hooks.beforeClose?.();
      await deps.close();
    })());

  return { url: `http://${host}:${port}`, port, server, metricsUrl: metricsListener?.url ?? null, close };
}
