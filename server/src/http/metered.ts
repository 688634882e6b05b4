import { getCookie, type H3Event } from "h3";
import { clientIp } from "./client-ip.ts";
import type { AppDeps } from "../deps.ts";
import type { Access } from "../trpc/access.ts";
import { sessionCookieName } from "./cookies.ts";
import { toContractError } from "./errors.ts";

/**
 * Runs one /v1 data query under the caller's access, rate limit and quota: resolves the API key or
 * session (401 for bad credentials), admits the request (429 RATE_LIMITED / QUOTA_EXCEEDED), adds the
 * RateLimit headers (on the success and on an error answer alike), runs the query, and settles its status (2xx charged, anything else a business
 * failure). An export or snapshot is one query (`cost` 1).
 * @example
 * app.get("/v1/lookup", (event) => meteredQuery(event, deps, "GET /v1/lookup", (access) => lookup(access, event)));
 */
export async function meteredQuery<T>(
  event: H3Event,
  deps: Pick<AppDeps, "access" | "metering" | "config">,
  endpoint: string,
  run: (access: Access) => Promise<T>,
  options: { cost?: number } = {},
): Promise<T> {
  const apiKey = event.req.headers.get("x-api-key");
  const access = await deps.access.resolve({
    // An API key wins over the cookie, so the cookie header is not even parsed then.
    sessionToken: apiKey === null ? (getCookie(event, sessionCookieName(deps.config)) ?? null) : null,
    apiKey,
  });
  const request = { access, ip: clientIp(event, deps.config), endpoint, cost: options.cost };
  const { headers } = await deps.metering.admit(request);
  // On the answer whatever it turns out to be: a query that fails after admission still counted.
  // A success carries the event's headers; an error answer those staged on errHeaders (errorResponse),
  // which are staged only when the query fails, not on every request.
  for (const name in headers) event.res.headers.set(name, headers[name]!);
  let result: T;
  try {
    result = await run(access);
  } catch (error) {
    stageForErrorAnswer(event, headers);
    await deps.metering.settle({ ...request, status: toContractError(error).status });
    throw error;
  }
  try {
    await deps.metering.settle({ ...request, status: result instanceof Response ? result.status : 200 });
  } catch (error) {
    stageForErrorAnswer(event, headers);
    throw error;
  }
  return result;
}

function stageForErrorAnswer(event: H3Event, headers: Record<string, string>): void {
  for (const name in headers) event.res.errHeaders.set(name, headers[name]!);
}
