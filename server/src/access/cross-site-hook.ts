import { getCookie, type H3Event } from "h3";
import { crossSiteViolation, isUnsafeMethod } from "./cross-site.ts";
import type { Config } from "../config.ts";
import { AppError } from "../errors.ts";
import { sessionCookieName } from "../http/cookies.ts";

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
