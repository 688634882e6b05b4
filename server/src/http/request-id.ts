import type { H3Event } from "h3";
import { newId } from "../ids.ts";

declare module "h3" {
  interface H3EventContext {
    requestId?: string;
    startedAt?: number;
  }
}

/** What an inbound X-Request-Id may look like to be adopted: short, and safe in logs and headers. */
const INBOUND_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** W3C Trace Context: version-traceid-parentid-flags; the trace id is 32 lower-case hex, not all zeros. */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The id a proxy or caller already gave this request: an `X-Request-Id` matching [A-Za-z0-9._-]{1,64},
 * else the trace id of a valid W3C `traceparent`, else null (docs/operations.md "Request ids"). Taking
 * it lets one id follow a request through the load balancer, this server and the caller's logs; the
 * pattern keeps anything else (spaces, quotes, newlines, long values) out of logs and headers.
 */
export function inboundRequestId(header: (name: "x-request-id" | "traceparent") => string | null | undefined): string | null {
  const given = header("x-request-id")?.trim();
  if (given && INBOUND_ID.test(given)) return given;
  // Most requests carry neither: no expression run on nothing.
  const traceparent = header("traceparent");
  if (traceparent == null) return null;
  const trace = TRACEPARENT.exec(traceparent.trim().toLowerCase())?.[1];
  if (trace && !/^0+$/.test(trace)) return trace;
  return null;
}

/**
 * The request's id, settled on first use: the inbound one when it is acceptable, otherwise a fresh
 * `req_…` made here. Echoed in X-Request-Id, meta.request_id and error bodies.
 */
export function requestIdOf(event: H3Event): string {
  event.context.requestId ??= inboundRequestId((name) => event.req.headers.get(name)) ?? newId("req");
  return event.context.requestId;
}
