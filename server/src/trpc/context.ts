import { deleteCookie, getCookie, setCookie, type H3Event } from "h3";
import { clientIp } from "../http/client-ip.ts";
import type { AppDeps } from "../app/deps.ts";
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

/** The context as built: the public part plus the server's dependencies, which only middleware reads. */
export interface ServerContext extends Context {
  deps: AppDeps;
}

export function createContext(event: H3Event, deps: AppDeps): ServerContext {
  const headers = event.req.headers;
  const cookieName = sessionCookieName(deps.config);
  return {
    requestId: requestIdOf(event),
    ip: clientIp(event, deps.config),
    userAgent: headers.get("user-agent"),
    sessionToken: getCookie(event, cookieName) ?? null,
    apiKey: headers.get("x-api-key"),
    request: {
      method: event.req.method,
      origin: headers.get("origin"),
      secFetchSite: headers.get("sec-fetch-site"),
    },
    setSessionCookie(cookie) {
      if (cookie === null) {
        deleteCookie(event, cookieName, { path: "/", httpOnly: true, secure: deps.config.secureCookies, sameSite: "lax" });
        return;
      }
      setCookie(event, cookieName, cookie.token, {
        path: "/",
        httpOnly: true,
        secure: deps.config.secureCookies,
        sameSite: "lax",
        expires: cookie.expiresAt,
      });
    },
    deps,
  };
}
