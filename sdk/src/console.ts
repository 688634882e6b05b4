import { createTRPCClient, httpLink, TRPCClientError, type TRPCClient } from "@trpc/client";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import superjson from "superjson";
import type { AppRouter } from "@ir21/server";
import { cookieFetch, memoryCookieJar, type SessionCookieJar } from "./cookies.ts";
import { Ir21ApiError, isIr21ApiError, parseRetryAfter } from "./errors.ts";
import { createTransport, normaliseBaseUrl, type FetchLike, type RetryOptions } from "./transport.ts";

export type { AppRouter };
/** Inputs of every console procedure, e.g. `ConsoleInputs["auth"]["login"]`. */
export type ConsoleInputs = inferRouterInputs<AppRouter>;
/** Outputs of every console procedure, e.g. `ConsoleOutputs["console"]["apiKeys"]["list"]["items"]`. */
export type ConsoleOutputs = inferRouterOutputs<AppRouter>;

/** The console and account API: `client.auth.login.mutate(…)`, `client.console.usage.query()`, … */
export type ConsoleClient = TRPCClient<AppRouter>;

export interface ConsoleClientOptions {
  /** The service's base URL, e.g. `https://ir21.example.com` (in a browser: `location.origin`). */
  baseUrl: string;
  /** A fetch implementation; defaults to the global one. */
  fetch?: FetchLike;
  /**
   * Keeps the session cookie outside a browser (Node has no cookie store). Defaults to an in-memory
   * jar per client; pass your own to persist a sign-in (`memoryCookieJar(saved)`, or a jar backed by
   * a config file). In a browser the HttpOnly cookie is the browser's business and the jar stays empty.
   */
  cookies?: SessionCookieJar;
  /**
   * Retries, off by default: 429/503 answers honouring Retry-After, and queries (GETs) that got no
   * answer (network error, timeout), within bounds. Mutations are never resent after no answer.
   */
  retry?: boolean | RetryOptions;
  /**
   * Extra headers for every request. Outside browsers the SDK sends `User-Agent: ir21-sdk/<version>`;
   * a `user-agent` here replaces it.
   */
  headers?: Record<string, string>;
  /**
   * Most ms a call waits for the answer to start (default 30 000; 0: no limit). Per call, pass
   * `{ signal: AbortSignal.timeout(ms) }` to `.query()`/`.mutate()`.
   */
  timeoutMs?: number;
}

/**
 * Creates the console client over tRPC, typed end to end from the server's router; failures are
 * {@link Ir21ApiError}s carrying the contract's error code.
 * @example
 * const ir21 = createConsoleClient({ baseUrl: "http://localhost:8787" });
 * const agreement = { agreed: true, terms_version: AGREEMENT_VERSION, privacy_version: AGREEMENT_VERSION } as const;
 * const { challenge_id } = await ir21.auth.sendCode.mutate({ phone, ...agreement });
 * await ir21.auth.login.mutate({ phone, challenge_id, code, ...agreement });
 * const { key } = await ir21.console.apiKeys.create.mutate({ name: "production" });
 */
export function createConsoleClient(options: ConsoleClientOptions): ConsoleClient {
  const baseUrl = normaliseBaseUrl(options.baseUrl);
  const transport = createTransport({ fetch: options.fetch, retry: options.retry, headers: options.headers, timeoutMs: options.timeoutMs });
  // The browser sends its own cookie only with same-origin credentials; nothing is kept in storage.
  const sameOrigin = ((url: string, init: RequestInit = {}) => transport(url, { ...init, credentials: "same-origin" })) as typeof globalThis.fetch;
  const client = createTRPCClient<AppRouter>({
    // One HTTP request per call (no batching), so statuses, Retry-After and Set-Cookie belong to one call.
    links: [httpLink({ url: `${baseUrl}/trpc`, transformer: superjson, fetch: cookieFetch(sameOrigin, options.cookies ?? memoryCookieJar()) })],
  });
  return withApiErrors(client) as ConsoleClient;
}

/**
 * Every `.query()` / `.mutate()` of the tRPC proxy rethrows failures as {@link Ir21ApiError}. The
 * proxy stays a proxy: paths are resolved lazily, so nothing here depends on which routers exist.
 */
function withApiErrors(target: unknown): unknown {
  return new Proxy(target as object, {
    get(object, key) {
      const value = Reflect.get(object, key);
      if (key === "query" || key === "mutate") {
        return (...args: unknown[]) => (value as (...a: unknown[]) => Promise<unknown>)(...args).catch((error: unknown) => Promise.reject(toApiError(error)));
      }
      return typeof key === "string" && (typeof value === "function" || (typeof value === "object" && value !== null)) ? withApiErrors(value) : value;
    },
  });
}

interface TrpcErrorData {
  appCode?: unknown;
  httpStatus?: unknown;
  requestId?: unknown;
  retryAfter?: unknown;
}

function toApiError(error: unknown): unknown {
  if (!(error instanceof TRPCClientError)) return error;
  if (isIr21ApiError(error.cause)) return error.cause;
  const data = (error.data ?? {}) as TrpcErrorData;
  if (typeof data.appCode === "string") {
    return new Ir21ApiError({
      status: typeof data.httpStatus === "number" ? data.httpStatus : 0,
      code: data.appCode,
      message: error.message,
      requestId: typeof data.requestId === "string" ? data.requestId : null,
      retryAfter: typeof data.retryAfter === "number" ? data.retryAfter : null,
      cause: error,
    });
  }
  // Not the server's error shape: a proxy page, a 502, a body tRPC could not parse.
  const response = (error.meta as { response?: Response } | undefined)?.response;
  return new Ir21ApiError({
    status: response?.status ?? 0,
    code: "UNEXPECTED_RESPONSE",
    message: error.message,
    requestId: response?.headers.get("x-request-id") ?? null,
    retryAfter: response ? parseRetryAfter(response.headers.get("retry-after")) : null,
    cause: error,
  });
}
