import type { H3Event } from "h3";
import type { Access, AccessResolver, Credentials } from "../access/access.ts";
import { dataCredentialsOf } from "../access/credentials.ts";
import type { Config } from "../config.ts";
import { clientIp } from "../http/client-ip.ts";
import { toContractError } from "../http/errors.ts";
import type { Metering, MeteredRequest } from "../metering/metering.ts";
import type { MeteringMetrics } from "../observability/metrics.ts";

/**
 * What metering needs of a request and its answer, whichever server layer carries it: h3's event
 * (`meteredQuery`) or node's request on the lookup's own lane (lane.ts).
 */
export interface MeteredCall {
  /** What the request presents (access/credentials.ts): an API key wins over the session cookie. */
  credentials: Credentials;
  /** The client's address (client-ip.ts). */
  ip: string | null;
  /** Puts the RateLimit fields on the answer a successful query gets. */
  stage(headers: Record<string, string>): void;
  /** Puts them on the error answer, when the query or its settlement fails after admission. */
  stageForError(headers: Record<string, string>): void;
}

/**
 * Runs one /v1 data query under the caller's access, rate limit and quota: resolves the API key or
 * session (401 for bad credentials), admits the request (429 RATE_LIMITED / QUOTA_EXCEEDED), stages
 * the RateLimit headers (for the success and for an error answer alike), runs the query, and settles
 * its status (2xx charged, anything else a business failure). An export or snapshot is one query
 * (`cost` 1).
 *
 * A step that answers at once (a cached API key, a query made in memory, the settlement) is not
 * awaited: each `await` is a promise and a microtask, and they were a tenth of a small lookup's CPU
 * (docs/performance.md "Lookup, sixth pass"). The rate limit's count is the one step always awaited.
 */
export async function meter<T>(
  call: MeteredCall,
  deps: { access: AccessResolver; metering: Metering; metrics?: MeteringMetrics },
  endpoint: string,
  run: (access: Access) => T | Promise<T>,
  options: { cost?: number } = {},
): Promise<T> {
  let access: Access | Promise<Access>;
  let headers: Record<string, string>;
  let request: MeteredRequest;
  try {
    access = deps.access.resolve(call.credentials);
    if (access instanceof Promise) access = await access;
    request = { access, ip: call.ip, endpoint, cost: options.cost };
    ({ headers } = await deps.metering.admit(request));
  } catch (error) {
    // Refused before it ran: bad credentials, the rate limit, the quota (docs/operations.md "Metrics and traces").
    deps.metrics?.meteringRefusal(endpoint, toContractError(error).code);
    throw error;
  }
  // On the answer whatever it turns out to be: a query that fails after admission still counted.
  // A success carries them from here; an error answer only when the query fails, so error answers'
  // headers are not staged on every request.
  call.stage(headers);
  let result: T | Promise<T>;
  try {
    result = run(access);
    if (result instanceof Promise) result = await result;
  } catch (error) {
    call.stageForError(headers);
    deps.metrics?.meteredQuery(endpoint, "failed");
    await deps.metering.settle(request, toContractError(error).status);
    throw error;
  }
  const status = result instanceof Response ? result.status : 200;
  deps.metrics?.meteredQuery(endpoint, status < 300 ? "charged" : "failed");
  try {
    const settled = deps.metering.settle(request, status);
    if (settled instanceof Promise) await settled;
  } catch (error) {
    call.stageForError(headers);
    throw error;
  }
  return result;
}

/**
 * {@link meter} for a request h3 carries: the headers go on the event (a success) and on its
 * `errHeaders` (what errorResponse puts on an error answer).
 * @example
 * app.get("/v1/lookup", (event) => meteredQuery(event, deps, "GET /v1/lookup", (access) => lookup(access, event)));
 */
export function meteredQuery<T>(
  event: H3Event,
  deps: { access: AccessResolver; metering: Metering; metrics?: MeteringMetrics; config: Pick<Config, "secureCookies" | "trustProxy"> },
  endpoint: string,
  run: (access: Access) => T | Promise<T>,
  options: { cost?: number } = {},
): Promise<T> {
  const call: MeteredCall = {
    credentials: dataCredentialsOf(event, deps.config),
    ip: clientIp(event, deps.config),
    stage: (headers) => {
      for (const name in headers) event.res.headers.set(name, headers[name]!);
    },
    stageForError: (headers) => {
      for (const name in headers) event.res.errHeaders.set(name, headers[name]!);
    },
  };
  return meter(call, deps, endpoint, run, options);
}
