import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { RequestMetrics } from "./metrics.ts";
import type { ServerSpan, Tracing } from "./tracing.ts";

/**
 * What the layer that answered a request tells the wrapper about it: the route pattern it matched
 * (never the raw path, so the metrics' labels stay few) and the request id it used. The lookup's lane
 * fills it in itself; for the h3 app, the app's first hook leaves its event here and the route and id
 * are read from the event when the answer is done (app/http-app.ts).
 */
export interface RequestFacts {
  route?: string;
  requestId?: string;
  /** The h3 event's context, read at the end: the matched route and the request id are set on it. */
  context?: { matchedRoute?: { route?: string }; requestId?: string };
}

/** Where the facts hang on node's request while it is observed (absent otherwise). */
export const REQUEST_FACTS = Symbol.for("ir21.requestFacts");

type ObservedRequest = IncomingMessage & { [REQUEST_FACTS]?: RequestFacts };

/** The facts of a request being observed, or undefined when nothing observes requests. */
export function requestFacts(req: IncomingMessage): RequestFacts | undefined {
  return (req as ObservedRequest)[REQUEST_FACTS];
}

/** The route label of a request no route matched (a 404 of the app): one value, whatever the path. */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * Wraps the server's request listener so that every request, the lookup's lane and the h3 app alike,
 * is counted and timed by route pattern and status, and (with tracing) runs inside a server span that
 * carries the request id. With neither, the listener is returned untouched.
 * @example
 * const listener = observeRequests(handler, { metrics, tracing });
 */
export function observeRequests(listener: RequestListener, telemetry: { metrics: RequestMetrics & { enabled: boolean }; tracing: Tracing | null }): RequestListener {
  const { metrics, tracing } = telemetry;
  if (!metrics.enabled && !tracing) return listener;
  return (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const facts: RequestFacts = {};
    (req as ObservedRequest)[REQUEST_FACTS] = facts;
    const method = req.method ?? "GET";
    let span: ServerSpan | null = null;
    // 'close' comes once the answer is written, or when the client went away first.
    res.once("close", () => {
      const route = facts.route ?? facts.context?.matchedRoute?.route ?? UNMATCHED_ROUTE;
      const status = res.writableFinished ? res.statusCode : 499;
      metrics.request(route, method, status, (performance.now() - started) / 1000);
      if (span) {
        span.rename(`${method} ${route}`);
        span.setAttribute("http.route", route);
        span.setAttribute("http.response.status_code", status);
        const requestId = facts.requestId ?? facts.context?.requestId;
        if (requestId) span.setAttribute("ir21.request_id", requestId);
        if (status >= 500) span.fail(new Error(`answered ${status}`));
        span.end();
      }
    });
    if (!tracing) return listener(req, res);
    span = tracing.serverSpan(method, req.headers, { "http.request.method": method, "url.scheme": "http" }, () => listener(req, res));
  };
}
