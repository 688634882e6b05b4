import { Ir21ApiError, errorFromResponse, parseRetryAfter } from "./errors.ts";

/**
 * The HTTP layer both clients share: one `fetch` wrapper that adds headers, turns "no response" into
 * an {@link Ir21ApiError}, and, when asked to, retries 429 and 503 answers within fixed bounds.
 */

/** Opt-in retry of rate-limited (429) and unavailable (503) answers. Never unbounded. */
export interface RetryOptions {
  /** Attempts in all, the first included. Default 3, at most 10. */
  maxAttempts?: number;
  /**
   * Most time spent waiting across all retries of one call, in ms. Default 30 000. When the server's
   * Retry-After would go past it, the call fails at once with the error (and its `retryAfter`) instead.
   */
  maxTotalWaitMs?: number;
  /** Wait before the first retry when the answer has no Retry-After, doubled each time. Default 1000 ms. */
  baseDelayMs?: number;
  /** Called before each wait, e.g. to tell the user what is happening. */
  onRetry?: (info: { attempt: number; delayMs: number; error: Ir21ApiError }) => void;
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface TransportOptions {
  fetch?: FetchLike;
  retry?: boolean | RetryOptions;
  /** Added to every request (before the per-request ones). */
  headers?: Record<string, string>;
}

interface ResolvedRetry {
  maxAttempts: number;
  maxTotalWaitMs: number;
  baseDelayMs: number;
  onRetry?: RetryOptions["onRetry"];
}

const RETRYABLE_STATUSES = new Set([429, 503]);

export function resolveRetry(retry: TransportOptions["retry"]): ResolvedRetry | null {
  if (!retry) return null;
  const options = retry === true ? {} : retry;
  const resolved = {
    maxAttempts: options.maxAttempts ?? 3,
    maxTotalWaitMs: options.maxTotalWaitMs ?? 30_000,
    baseDelayMs: options.baseDelayMs ?? 1_000,
    onRetry: options.onRetry,
  };
  if (!Number.isInteger(resolved.maxAttempts) || resolved.maxAttempts < 1 || resolved.maxAttempts > 10) throw new TypeError("retry.maxAttempts must be an integer from 1 to 10");
  if (!Number.isFinite(resolved.maxTotalWaitMs) || resolved.maxTotalWaitMs < 0) throw new TypeError("retry.maxTotalWaitMs must be a finite number of ms, 0 or more");
  if (!Number.isFinite(resolved.baseDelayMs) || resolved.baseDelayMs < 0) throw new TypeError("retry.baseDelayMs must be a finite number of ms, 0 or more");
  return resolved;
}

/**
 * A fetch that never throws for HTTP statuses (callers read them) but throws `NETWORK_ERROR` for a
 * request that got no answer, and retries 429/503 as configured. Request bodies must be re-sendable
 * (strings), which every body the SDK sends is.
 */
export function createTransport(options: TransportOptions): FetchLike {
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const retry = resolveRetry(options.retry);
  const baseHeaders = options.headers ?? {};

  return async (url, init = {}) => {
    const headers = new Headers(baseHeaders);
    new Headers(init.headers).forEach((value, name) => headers.set(name, value));
    const request = { ...init, headers };
    let waitedMs = 0;
    for (let attempt = 1; ; attempt++) {
      const response = await send(fetchImpl, url, request);
      if (!retry || attempt >= retry.maxAttempts || !RETRYABLE_STATUSES.has(response.status)) return response;
      const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
      const delayMs = retryAfter !== null ? retryAfter * 1000 : retry.baseDelayMs * 2 ** (attempt - 1);
      if (waitedMs + delayMs > retry.maxTotalWaitMs) return response;
      if (retry.onRetry) retry.onRetry({ attempt, delayMs, error: await errorFromResponse(response) });
      else await response.body?.cancel().catch(() => {});
      await sleep(delayMs, init.signal ?? undefined);
      waitedMs += delayMs;
    }
  };
}

async function send(fetchImpl: FetchLike, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetchImpl(url, init);
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new Ir21ApiError({
      status: 0,
      code: "NETWORK_ERROR",
      message: `No answer from ${new URL(url).origin}: ${error instanceof Error ? error.message : String(error)}`,
      requestId: null,
      cause: error,
    });
  }
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** `https://x.example/` and `https://x.example` alike; a path prefix (`https://x.example/ir21`) is kept. */
export function normaliseBaseUrl(baseUrl: string): string {
  let url: URL | null = null;
  try {
    url = new URL(baseUrl);
  } catch {
    // reported below
  }
  if (url === null || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new TypeError(`baseUrl must be an absolute http(s) URL such as https://ir21.example.com (got ${JSON.stringify(baseUrl)})`);
  }
  if (url.search || url.hash) throw new TypeError("baseUrl must not have a query or fragment");
  return url.href.replace(/\/+$/, "");
}
