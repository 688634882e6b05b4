import { getCookie, type H3Event } from "h3";
import type { Config } from "../config.ts";
import { AppError } from "../errors.ts";
import { sessionCookieName } from "../http/cookies.ts";

/**
 * The cross-site write rule (docs/auth.md "Cross-site protection"), free of HTTP types so the h3 hook
 * and the auth procedures share it. A browser always sends Origin on a cross-origin POST and
 * Sec-Fetch-Site on any request; a request carrying neither comes from a non-browser client (CLI, SDK in
 * Node, curl), which no other site can drive with the user's cookie.
 */
const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export interface WriteRequest {
  method: string;
  origin: string | null;
  secFetchSite: string | null;
}

/** True for the methods the rule applies to (writes). */
export const isUnsafeMethod = (method: string) => UNSAFE.has(method.toUpperCase());

/** Why the request is refused, or null when it may proceed. */
export function crossSiteViolation(request: WriteRequest, allowedOrigins: readonly string[]): string | null {
  if (!isUnsafeMethod(request.method)) return null;
  if (request.origin !== null) {
    // Exact match only: "null" (sandboxed frames, some redirects) and look-alike hosts are refused.
    return allowedOrigins.includes(request.origin) ? null : `Origin ${request.origin === "null" ? "null" : "is not the console's origin"}`;
  }
  if (request.secFetchSite !== null && request.secFetchSite !== "same-origin" && request.secFetchSite !== "none") {
    return `Sec-Fetch-Site ${request.secFetchSite}`;
  }
  return null;
}

/**
 * Refuses (403) an unsafe request that carries the session cookie from another site, whatever route
 * it targets (tRPC, frozen REST paths, /v1). Requests without the cookie are left to the routes: the
 * sign-in endpoints apply the same rule to every request (login CSRF).
 */
export function refuseCrossSiteCookieWrite(event: H3Event, config: Pick<Config, "publicOrigins" | "secureCookies">): void {
  // Reads are never refused (crossSiteViolation says so too): no cookie parsing on the hot GET path.
  if (!isUnsafeMethod(event.req.method)) return;
  if (getCookie(event, sessionCookieName(config)) === undefined) return;
  const headers = event.req.headers;
  const violation = crossSiteViolation({ method: event.req.method, origin: headers.get("origin"), secFetchSite: headers.get("sec-fetch-site") }, config.publicOrigins);
  if (violation) throw new AppError("CROSS_SITE_REQUEST", `Cross-site write refused (${violation})`);
}
