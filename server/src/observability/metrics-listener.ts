import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../log.ts";
import type { Metrics, ScrapeReadings } from "./metrics.ts";

export interface MetricsListener {
  /** e.g. http://127.0.0.1:9464/metrics */
  url: string;
  close(): Promise<void>;
}

/**
 * Prometheus's own listener (METRICS_PORT, METRICS_HOST): `GET /metrics` answers the text exposition,
 * anything else 404. Kept off the public port so that the API's callers never see it, and on loopback
 * by default so that only what runs beside the server (an agent, a sidecar) scrapes it.
 * @example
 * const listener = await startMetricsListener(metrics, readings, { port: 9464, host: "127.0.0.1" }, log);
 */
export async function startMetricsListener(metrics: Metrics, read: () => Promise<ScrapeReadings>, listen: { port: number; host: string }, log: Logger): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found: metrics are at GET /metrics\n");
      return;
    }
    metrics.scrape(read).then(
      ({ contentType, body }) => {
        res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : body);
      },
      (err: unknown) => {
        log.error({ err }, "metrics scrape failed");
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("scrape failed; see the server log\n");
      },
    );
  });
  // Scrapes are short; keep-alive sockets from the scraper must not hold the stop.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
