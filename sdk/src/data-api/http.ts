import { cookieFetch, type SessionCookieJar } from "../cookies.ts";
import { Ir21ApiError, errorFromResponse } from "../errors.ts";
import { createTransport, normaliseBaseUrl, TIMEOUT_MS, type FetchLike, type RetryOptions, type TransportInit } from "../transport.ts";
import type { EnvelopeMeta } from "../wire.ts";

/**
 * The REST side of the data client: one place that builds URLs, sends credentials, unwraps the
 * `{code: 0, data, meta}` envelope and turns every failure into an Ir21ApiError.
 */

export interface DataClientOptions {
  /** The service's base URL, e.g. `https://ir21.example.com`. */
  baseUrl: string;
  /** An API key (`ir21_…`), sent as `X-API-Key`: full fields on every route. */
  apiKey?: string;
  /**
   * A console session instead of a key, outside a browser (the console client's jar). In a browser
   * the session cookie is sent anyway (same-origin credentials).
   */
  cookies?: SessionCookieJar;
  /** A fetch implementation; defaults to the global one. */
  fetch?: FetchLike;
  /**
   * Retries, off by default: 429/503 answers honouring Retry-After, and GETs that got no answer
   * (network error, timeout), within bounds.
   */
  retry?: boolean | RetryOptions;
  /**
   * Extra headers for every request. Outside browsers the SDK sends `User-Agent: ir21-sdk/<version>`;
   * a `user-agent` here replaces it.
   */
  headers?: Record<string, string>;
  /** Most ms a request waits for the answer to start (default 30 000; 0: no limit). Per call: `timeoutMs`. */
  timeoutMs?: number;
}

/** Per call: cancel with an AbortSignal, or bound the wait for the answer (overrides the client's `timeoutMs`). */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A JSON answer: the endpoint's `data` and the envelope's `meta` (which dataset version answered). */
export interface DataResult<T> {
  data: T;
  meta: EnvelopeMeta;
}

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface DataHttp {
  json<T>(method: "GET" | "POST", path: string, options?: { query?: Record<string, QueryValue>; body?: unknown } & CallOptions): Promise<DataResult<T>>;
  /** A file route: the raw response (200 or 304), errors already turned into Ir21ApiError. */
  file(path: string, options?: { ifNoneMatch?: string } & CallOptions): Promise<Response>;
}

export function createDataHttp(options: DataClientOptions): DataHttp {
  const baseUrl = normaliseBaseUrl(options.baseUrl);
  if (options.apiKey !== undefined && (typeof options.apiKey !== "string" || !/^[\x21-\x7e]+$/.test(options.apiKey))) {
    throw new TypeError("apiKey must be the key string (ir21_…); leave it out for anonymous access");
  }
  const headers: Record<string, string> = { ...options.headers, accept: "application/json" };
  if (options.apiKey) headers["x-api-key"] = options.apiKey;
  const transport = createTransport({ fetch: options.fetch, retry: options.retry, headers, timeoutMs: options.timeoutMs });
  const sameOrigin = ((url: string, init: RequestInit = {}) => transport(url, { ...init, credentials: "same-origin" })) as typeof globalThis.fetch;
  const send = options.cookies ? cookieFetch(sameOrigin, options.cookies) : sameOrigin;

  const urlOf = (path: string, query: Record<string, QueryValue> = {}) => {
    const url = new URL(baseUrl + path);
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      url.searchParams.set(name, Array.isArray(value) ? value.join(",") : String(value));
    }
    return url.href;
  };

  return {
    async json<T>(method: "GET" | "POST", path: string, request: { query?: Record<string, QueryValue>; body?: unknown } & CallOptions = {}) {
      const init: TransportInit = { method, signal: request.signal, [TIMEOUT_MS]: request.timeoutMs };
      if (request.body !== undefined) {
        init.body = JSON.stringify(request.body);
        init.headers = { "content-type": "application/json" };
      }
      const response = await send(urlOf(path, request.query), init);
      if (!response.ok) throw await errorFromResponse(response);
      const body = (await response.json().catch(() => undefined)) as { code?: unknown; data?: unknown; meta?: unknown } | undefined;
      if (body?.code !== 0 || typeof body.meta !== "object" || body.meta === null || !("data" in body)) {
        throw new Ir21ApiError({
          status: response.status,
          code: "UNEXPECTED_RESPONSE",
          message: `${method} ${path} did not answer with the ir21 envelope`,
          requestId: response.headers.get("x-request-id"),
        });
      }
      return { data: body.data as T, meta: body.meta as EnvelopeMeta };
    },

    async file(path, request = {}) {
      const init: TransportInit = { method: "GET", signal: request.signal, headers: { accept: "*/*" }, [TIMEOUT_MS]: request.timeoutMs };
      if (request.ifNoneMatch) init.headers = { ...init.headers, "if-none-match": request.ifNoneMatch };
      const response = await send(urlOf(path), init);
      if (response.status === 304 || response.ok) return response;
      throw await errorFromResponse(response);
    },
  };
}
