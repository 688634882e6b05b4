import { AGREEMENT_VERSION, cookieFetch, createClient, createConsoleClient, isIr21ApiError, Ir21ApiError, listenStream, type DataClient, type ListenMessage, type ListenStreamOptions } from "@ir21/sdk";

import packageJson from "../package.json" with { type: "json" };

export { EVENT_TYPES, EXPORT_RESOURCES, type EventType, type ExportResource, type ImsiLookupField, type ListenDelivery, type ListenMessage, type NumberLookupField } from "@ir21/sdk";
export { isWebhookVerificationError, verifyWebhook, DEFAULT_TOLERANCE_SECONDS } from "@ir21/sdk/webhooks";

/**
 * The CLI's one seam onto @ir21/sdk: which client to build and how to read its failures. Commands
 * call the typed clients directly; only construction and error reading live here, so an SDK release
 * that changes them is absorbed in this file.
 */

export type ConsoleClient = ReturnType<typeof createConsoleClient>;

/** Every request says which tool sent it (the SDK would say `ir21-sdk/<version>`). */
const HEADERS = { "user-agent": `ir21-cli/${packageJson.version}` };

/** A session as the SDK hands it over after sign-in (the cookie pair and when it expires). */
export interface SdkSession {
  cookie: string;
  expiresAt: string | null;
}

export interface ConsoleOptions {
  baseUrl: string;
  session: SdkSession | null;
  /** Called when the server sets a new session cookie (login, refresh) or clears it (logout). */
  onSessionChange: (session: SdkSession | null) => void;
}

/** The profile's session as the SDK's cookie jar: refreshed cookies are handed to `onSessionChange`. */
function sessionJar(options: Pick<ConsoleOptions, "session" | "onSessionChange">) {
  let cookie = options.session?.cookie ?? null;
  return {
    get: () => cookie,
    set: (next: string | null, details?: { expiresAt: string | null }) => {
      if (next === cookie && details === undefined) return;
      cookie = next;
      options.onSessionChange(next === null ? null : { cookie: next, expiresAt: details?.expiresAt ?? null });
    },
  };
}

export function openConsole(options: ConsoleOptions): ConsoleClient {
  return createConsoleClient({ baseUrl: options.baseUrl, cookies: sessionJar(options), headers: HEADERS });
}

/** A listen session's stream (`ir21 listen`), with the profile's session. */
export function openListenStream(options: ConsoleOptions & Omit<ListenStreamOptions, "baseUrl" | "cookies">): AsyncGenerator<ListenMessage, void> {
  const { session, onSessionChange, ...stream } = options;
  return listenStream({ ...stream, headers: { ...HEADERS, ...stream.headers }, cookies: sessionJar({ session, onSessionChange }) });
}

/**
 * The /v1 data client. Full fields with an API key or a session; anonymous callers get the public
 * projection, so renderers treat every field beyond the public ones as possibly absent.
 */
export type DataApi = DataClient<"full">;

export function openData(options: { baseUrl: string; apiKey: string | null; session: SdkSession | null }): DataApi {
  if (options.apiKey !== null) return createClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, headers: HEADERS });
  if (options.session !== null) {
    const cookie = options.session.cookie;
    // Data calls only read the session; a refreshed cookie is picked up by the next console call.
    return createClient({ baseUrl: options.baseUrl, headers: HEADERS, cookies: { get: () => cookie, set: () => undefined } });
  }
  return createClient({ baseUrl: options.baseUrl, headers: HEADERS }) as unknown as DataApi;
}

/**
 * A plain fetch for `ir21 api`: the profile's credentials (the API key as X-API-Key, the login as its
 * cookie, refreshed like the console client's), the CLI's User-Agent, and no interpretation of the
 * answer. Requests that get no answer in `timeoutMs` fail with TIMEOUT, as the SDK's do.
 */
export function openRawFetch(options: ConsoleOptions & { apiKey: string | null; timeoutMs?: number }): (url: string, init: RequestInit) => Promise<Response> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const base = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has("user-agent")) headers.set("user-agent", HEADERS["user-agent"]);
    if (options.apiKey !== null && !headers.has("x-api-key")) headers.set("x-api-key", options.apiKey);
    const url = String(input instanceof Request ? input.url : input);
    try {
      return await fetch(url, { ...init, headers, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      throw new Ir21ApiError({
        status: 0,
        code: timedOut ? "TIMEOUT" : "NETWORK_ERROR",
        message: timedOut ? `No answer from ${new URL(url).origin} within ${timeoutMs} ms` : `No answer from ${new URL(url).origin}: ${error instanceof Error ? error.message : String(error)}`,
        requestId: null,
        cause: error,
      });
    }
  }) as typeof globalThis.fetch;
  const withCookie = cookieFetch(base, sessionJar(options));
  return (url, init) => withCookie(url, init);
}

/** An answer of `ir21 api` that was not 2xx, as the error the rest of the CLI reports. */
export function apiErrorOf(response: Response, body: unknown): Ir21ApiError {
  const contract = typeof body === "object" && body !== null ? (body as { code?: unknown; message?: unknown; request_id?: unknown }) : {};
  const retryAfter = Number(response.headers.get("retry-after"));
  return new Ir21ApiError({
    status: response.status,
    code: typeof contract.code === "string" ? contract.code : `HTTP_${response.status}`,
    message: typeof contract.message === "string" ? contract.message : `${response.status} ${response.statusText}`.trim(),
    requestId: typeof contract.request_id === "string" ? contract.request_id : response.headers.get("x-request-id"),
    retryAfter: Number.isFinite(retryAfter) && response.headers.has("retry-after") ? retryAfter : null,
  });
}

/** A failure reported by the service (or by the SDK when no answer came), in the contract's terms. */
export interface ApiFailure {
  /** HTTP status; 0 when no response arrived. */
  status: number;
  code: string;
  message: string;
  requestId: string | null;
  retryAfter: number | null;
}

/** The service failure carried by `error`, or null when it is something else (a bug, a local error). */
export function apiFailureOf(error: unknown): ApiFailure | null {
  if (!isIr21ApiError(error)) return null;
  return { status: error.status, code: error.code, message: error.message, requestId: error.requestId, retryAfter: error.retryAfter };
}

/**
 * The agreement versions this CLI asks people to accept: the SDK's (contract "Versioning": 2026-09-08
 * for both the terms and the privacy policy). The server does not publish its current versions; when it
 * has moved on it answers AGREEMENT_OUTDATED naming them, and `login --terms-version/--privacy-version`
 * accept those.
 */
export const AGREEMENT_VERSIONS = { terms: AGREEMENT_VERSION, privacy: AGREEMENT_VERSION } as const;
