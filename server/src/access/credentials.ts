import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { getCookie, type H3Event } from "h3";
import type { Config } from "../config.ts";
import { sessionCookieName } from "../http/cookies.ts";
import type { Credentials } from "./access.ts";

/**
 * What a request presents as credentials, read in one place for every way a request arrives: the
 * `X-API-Key` header and the session cookie (docs/auth.md "Credentials"). Read once per request: the
 * value is kept on the event, so the tRPC context, the data API's metered path and the listen stream
 * all see the same answer.
 * @example
 * const { apiKey, sessionToken } = credentialsOf(event, config);
 */
export function credentialsOf(event: H3Event, config: Pick<Config, "secureCookies">): Credentials {
  const context = event.context as { credentials?: Credentials };
  return (context.credentials ??= {
    apiKey: event.req.headers.get("x-api-key"),
    sessionToken: getCookie(event, sessionCookieName(config)) ?? null,
    connection: connectionOf(event),
  });
}

/**
 * The credentials a data request is resolved with: an API key wins, so the cookie is not even parsed
 * when one is presented (the hot path of API-key lookups); without one, the session cookie.
 */
export function dataCredentialsOf(event: H3Event, config: Pick<Config, "secureCookies">): Credentials {
  const cached = (event.context as { credentials?: Credentials }).credentials;
  if (cached) return cached.apiKey === null ? cached : { apiKey: cached.apiKey, sessionToken: null, connection: cached.connection };
  const apiKey = event.req.headers.get("x-api-key");
  return apiKey === null ? credentialsOf(event, config) : { apiKey, sessionToken: null, connection: connectionOf(event) };
}

/** node's socket under an h3 event (absent on other runtimes and in `app.fetch` calls). */
const connectionOf = (event: H3Event): object | undefined => (event.runtime?.node?.req as IncomingMessage | undefined)?.socket;

/**
 * The API key of a request as node gives it (the lookup's own lane, data-api/lane.ts), which takes no
 * request with a session cookie: node joins a repeated `X-API-Key` with ", " as the web Headers object
 * does, so both ways read the same value.
 */
export function apiKeyOf(headers: IncomingHttpHeaders): string | null {
  return (headers["x-api-key"] as string | undefined) ?? null;
}
