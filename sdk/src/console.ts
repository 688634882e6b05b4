import { createTRPCClient, httpLink, TRPCClientError, type TRPCClient } from "@trpc/client";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import superjson from "superjson";
import type { AppRouter } from "@ir21/server";
import { Ir21ApiError, isIr21ApiError, parseRetryAfter } from "./errors.ts";
import { SessionJar, type ConsoleSession } from "./session.ts";
import { createTransport, normaliseBaseUrl, type FetchLike, type RetryOptions } from "./transport.ts";

export type { AppRouter };
/** Inputs of every console procedure, e.g. `ConsoleInputs["auth"]["login"]`. */
export type ConsoleInputs = inferRouterInputs<AppRouter>;
/** Outputs of every console procedure, e.g. `ConsoleOutputs["auth"]["me"]["user"]`. */
export type ConsoleOutputs = inferRouterOutputs<AppRouter>;

/** The console and account API: `client.auth.login.mutate(…)`, `client.auth.me.query()`, … */
export type ConsoleClient = TRPCClient<AppRouter>;

export interface ConsoleClientOptions {
  /** The service's base URL, e.g. `https://ir21.example.com` (in a browser: `location.origin`). */
  baseUrl: string;
  /** A fetch implementation; defaults to the global one. */
  fetch?: FetchLike;
  /**
   * Outside a browser: a session saved earlier (see {@link getConsoleSession}), sent as the cookie.
   * In a browser leave it out: the browser holds the HttpOnly cookie and the SDK never sees it.
   */
  session?: ConsoleSession | string | null;
  /** Called whenever the held session changes (login, logout, rotation), e.g. to save it. */
  onSessionChange?: (session: ConsoleSession | null) => void;
  /** Retry 429/503 answers honouring Retry-After, within bounds. Off by default. */
  retry?: boolean | RetryOptions;
  /** Extra headers for every request, e.g. a `user-agent` naming your tool. */
  headers?: Record<string, string>;
}

const jars = new WeakMap<object, SessionJar>();

/**
 * Creates the console client over tRPC, typed end to end from the server's router; failures are
 * {@link Ir21ApiError}s carrying the contract's error code.
 * @example
 * const ir21 = createConsoleClient({ baseUrl: "http://localhost:8787" });
 * const { challenge_id } = await ir21.auth.sendCode.mutate({ phone, agreed: true, terms_version: AGREEMENT_VERSION, privacy_version: AGREEMENT_VERSION });
 * await ir21.auth.login.mutate({ phone, challenge_id, code, agreed: true, terms_version: AGREEMENT_VERSION, privacy_version: AGREEMENT_VERSION });
 * const { user } = await ir21.auth.me.query();
 */
export function createConsoleClient(options: ConsoleClientOptions): ConsoleClient {
  const baseUrl = normaliseBaseUrl(options.baseUrl);
  const jar = new SessionJar(options.session, options.onSessionChange);
  const transport = createTransport({ fetch: options.fetch, retry: options.retry, headers: options.headers });

  const sessionFetch: FetchLike = async (url, init = {}) => {
    const headers = new Headers(init.headers);
    const cookie = jar.cookieHeader();
    // A browser ignores a script's Cookie header and sends its own; elsewhere this is the session.
    if (cookie !== null && !headers.has("cookie")) headers.set("cookie", cookie);
    const response = await transport(url, { ...init, headers, credentials: "same-origin" });
    jar.capture(response);
    return response;
  };

  const client = createTRPCClient<AppRouter>({
    // One HTTP request per call (no batching), so statuses, Retry-After and Set-Cookie belong to one call.
    links: [httpLink({ url: `${baseUrl}/trpc`, transformer: superjson, fetch: sessionFetch as never })],
  });
  const wrapped = withApiErrors(client) as ConsoleClient;
  jars.set(wrapped, jar);
  return wrapped;
}

/**
 * The session a Node console client holds (after `auth.login`), to save between runs; null when signed out.
 * @example
 * await ir21.auth.login.mutate(input);
 * await writeConfig({ session: getConsoleSession(ir21) }); // a 0600 file: it is a credential
 */
export function getConsoleSession(client: ConsoleClient): ConsoleSession | null {
  return jarOf(client).get();
}

/**
 * Replaces the session a console client sends (null signs the client out locally only; call
 * `auth.logout` to revoke it on the server).
 * @example
 * setConsoleSession(ir21, savedConfig.session);
 */
export function setConsoleSession(client: ConsoleClient, session: ConsoleSession | string | null): void {
  jarOf(client).set(session);
}

function jarOf(client: ConsoleClient): SessionJar {
  const jar = jars.get(client);
  if (!jar) throw new TypeError("Not a client made by createConsoleClient");
  return jar;
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
