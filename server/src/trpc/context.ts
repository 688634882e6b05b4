import { deleteCookie, setCookie, type H3Event } from "h3";
import type { AccessResolver } from "../access/access.ts";
import { credentialsOf } from "../access/credentials.ts";
import type { Config } from "../config.ts";
import { clientIp } from "../http/client-ip.ts";
import { sessionCookieName } from "../http/cookies.ts";
import { requestIdOf } from "../http/request-id.ts";

/**
 * What a procedure knows about its request. This type is part of AppRouter and so of the SDK's
 * declarations: it holds plain values only, no h3, Kysely or service types.
 */
export interface Context {
  requestId: string;
  ip: string | null;
  userAgent: string | null;
  /** The raw session cookie, resolved by the session procedures. */
  sessionToken: string | null;
  /** The raw X-API-Key header, resolved by the data-access procedures. */
  apiKey: string | null;
  /** What the cross-site write check needs. */
  request: { method: string; origin: string | null; secFetchSite: string | null };
  /** Sets (or, with null, clears) the session cookie on this request's response. */
  setSessionCookie(cookie: { token: string; expiresAt: Date } | null): void;
}

/**
 * What the procedure builders need to decide who may call (procedures.ts), given by the wiring. A
 * procedure's own dependencies are not here: each domain's router is built from its narrow env.
 */
export interface CallerChecks {
  access: AccessResolver;
  /** The console's origins, for the cross-site rule (access/cross-site.ts). */
  publicOrigins: readonly string[];
}

/** The context as built: the public part plus the caller checks, which only middleware reads. */
export interface ServerContext extends Context {
  checks: CallerChecks;
}

export function createContext(event: H3Event, checks: CallerChecks, config: Pick<Config, "secureCookies" | "trustProxy">): ServerContext {
  const headers = event.req.headers;
  const cookieName = sessionCookieName(config);
  const credentials = credentialsOf(event, config);
  return {
    requestId: requestIdOf(event),
    ip: clientIp(event, config),
    userAgent: headers.get("user-agent"),
    sessionToken: credentials.sessionToken,
    apiKey: credentials.apiKey,
    request: {
      method: event.req.method,
      origin: headers.get("origin"),
      secFetchSite: headers.get("sec-fetch-site"),
    },
    setSessionCookie(cookie) {
      if (cookie === null) {
        deleteCookie(event, cookieName, { path: "/", httpOnly: true, secure: config.secureCookies, sameSite: "lax" });
        return;
      }
      setCookie(event, cookieName, cookie.token, {
        path: "/",
        httpOnly: true,
        secure: config.secureCookies,
        sameSite: "lax",
        expires: cookie.expiresAt,
      });
    },
    checks,
  };
}
