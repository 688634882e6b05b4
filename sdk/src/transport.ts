import { Ir21ApiError, errorFromResponse, parseRetryAfter } from "./errors.ts";
import packageJson from "../package.json" with { type: "json" };

/**
 * The HTTP layer both clients share: one `fetch` wrapper that adds headers (a User-Agent outside
 * browsers), bounds each attempt's wait for an answer, turns "no response" into an
 * {@link Ir21ApiError}, and, when asked to, retries within fixed bounds.
 */

/** The SDK's version, as sent in `User-Agent: ir21-sdk/<version>`. */
export const SDK_VERSION: string = packageJson.version;

/** How long one attempt waits for the response's headers unless `timeoutMs` says otherwise. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Opt-in retries, never unbounded: answers 429 and 503 (the server did not act on the request) for
 * any method, and, for GET and HEAD only, requests that got no answer (a network error or a timeout),
 * since a write may have happened without its answer arriving.
 */
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
  /** How to wait between attempts; a test's fake clock. Defaults to a timer that the call's signal cancels. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface TransportOptions {
  fetch?: FetchLike;
  retry?: boolean | RetryOptions;
  /** Added to every request (before the per-request ones). */
  headers?: Record<string, string>;
  /**
   * Most ms one attempt waits for the response's headers (default {@link DEFAULT_TIMEOUT_MS}; 0 or
   * Infinity: no limit). A response body being streamed is not cut off by it. Overridden per request
   * by {@link TIMEOUT_MS}.
   */
  timeoutMs?: number;
}

/**
 * A per-request override of the client's timeout: `init[TIMEOUT_MS] = ms`. A symbol key, so it
 * passes through wrappers that spread `init` (cookieFetch) and never reaches the wire.
 */
export const TIMEOUT_MS: unique symbol = Symbol("ir21.timeoutMs");
export type TransportInit = RequestInit & { [TIMEOUT_MS]?: number | undefined };

interface ResolvedRetry {
  maxAttempts: number;
  maxTotalWaitMs: number;
  baseDelayMs: number;
  onRetry?: RetryOptions["onRetry"];
  sleep: NonNullable<RetryOptions["sleep"]>;
}

const RETRYABLE_STATUSES = new Set([429, 503]);
const IDEMPOTENT_METHODS = new Set(["GET", "HEAD"]);

export function resolveRetry(retry: TransportOptions["retry"]): ResolvedRetry | null {
  if (!retry) return null;
  const options = retry === true ? {} : retry;
  const resolved = {
    maxAttempts: options.maxAttempts ?? 3,
    maxTotalWaitMs: options.maxTotalWaitMs ?? 30_000,
    baseDelayMs: options.baseDelayMs ?? 1_000,
    onRetry: options.onRetry,
    sleep: options.sleep ?? sleep,
  };
  if (!Number.isInteger(resolved.maxAttempts) || resolved.maxAttempts < 1 || resolved.maxAttempts > 10) throw new TypeError("retry.maxAttempts must be an integer from 1 to 10");
  if (!Number.isFinite(resolved.maxTotalWaitMs) || resolved.maxTotalWaitMs < 0) throw new TypeError("retry.maxTotalWaitMs must be a finite number of ms, 0 or more");
  if (!Number.isFinite(resolved.baseDelayMs) || resolved.baseDelayMs < 0) throw new TypeError("retry.baseDelayMs must be a finite number of ms, 0 or more");
  return resolved;
}

/**
 * A fetch that never throws for HTTP statuses (callers read them) but throws `NETWORK_ERROR` for a
 * request that got no answer and `TIMEOUT` for one whose answer did not start in time, and retries as
 * configured. Request bodies must be re-sendable (strings), which every body the SDK sends is.
 */
export function createTransport(options: TransportOptions): FetchLike {
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const retry = resolveRetry(options.retry);
  const clientTimeout = resolveTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, "timeoutMs");
  // Browsers forbid setting User-Agent (and name themselves); everywhere else the SDK says who it is.
  const baseHeaders = new Headers(isBrowser() ? {} : { "user-agent": `ir21-sdk/${SDK_VERSION}` });
  new Headers(options.headers).forEach((value, name) => baseHeaders.set(name, value));

  return async (url, init: TransportInit = {}) => {
    const headers = new Headers(baseHeaders);
    new Headers(init.headers).forEach((value, name) => headers.set(name, value));
    const perRequest = init[TIMEOUT_MS];
    const timeoutMs = perRequest === undefined ? clientTimeout : resolveTimeout(perRequest, "timeoutMs");
    const { [TIMEOUT_MS]: _timeout, ...rest } = init;
    const request: RequestInit = { ...rest, headers };
    const method = (init.method ?? "GET").toUpperCase();
    let waitedMs = 0;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await send(fetchImpl, url, request, timeoutMs);
      } catch (error) {
        // No answer: only a read is safe to send again.
        if (!retry || attempt >= retry.maxAttempts || !IDEMPOTENT_METHODS.has(method) || !(error instanceof Ir21ApiError)) throw error;
        const delayMs = retry.baseDelayMs * 2 ** (attempt - 1);
        if (waitedMs + delayMs > retry.maxTotalWaitMs) throw error;
        retry.onRetry?.({ attempt, delayMs, error });
        await retry.sleep(delayMs, init.signal ?? undefined);
        waitedMs += delayMs;
        continue;
      }
      if (!retry || attempt >= retry.maxAttempts || !RETRYABLE_STATUSES.has(response.status)) return response;
      const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
      const delayMs = retryAfter !== null ? retryAfter * 1000 : retry.baseDelayMs * 2 ** (attempt - 1);
      if (waitedMs + delayMs > retry.maxTotalWaitMs) return response;
      if (retry.onRetry) retry.onRetry({ attempt, delayMs, error: await errorFromResponse(response) });
      else await response.body?.cancel().catch(() => {});
      await retry.sleep(delayMs, init.signal ?? undefined);
      waitedMs += delayMs;
    }
  };
}

function resolveTimeout(value: number, name: string): number {
  if (value === Infinity || value === 0) return Infinity;
  if (!Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a number of ms (0 or Infinity for no limit)`);
  return value;
}

function isBrowser(): boolean {
  const scope = globalThis as { window?: unknown; document?: unknown; importScripts?: unknown; process?: { versions?: { node?: string } } };
  if (scope.process?.versions?.node !== undefined) return false;
  return scope.window !== undefined || scope.document !== undefined || typeof scope.importScripts === "function";
}

/**
 * One attempt. The timer runs until the response's headers arrive, then stops: the caller's own
 * signal still cancels a body being read, the timeout does not.
 */
async function send(fetchImpl: FetchLike, url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  const callerSignal = init.signal ?? undefined;
  if (callerSignal?.aborted) throw callerSignal.reason;
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(callerSignal!.reason);
  callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
  let timedOut = false;
  const timer =
    timeoutMs === Infinity
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort(new DOMException(`No answer within ${timeoutMs} ms`, "TimeoutError"));
        }, timeoutMs);
  try {
    return await fetchImpl(url, { ...init, signal: controller.signal });
  } catch (error) {
    if (timedOut) {
      throw new Ir21ApiError({ status: 0, code: "TIMEOUT", message: `No answer from ${new URL(url).origin} within ${timeoutMs} ms`, requestId: null, cause: error });
    }
    if (callerSignal?.aborted || isAbort(error)) throw error;
    throw new Ir21ApiError({
      status: 0,
      code: "NETWORK_ERROR",
      message: `No answer from ${new URL(url).origin}: ${error instanceof Error ? error.message : String(error)}`,
      requestId: null,
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    // Once the answer started, the caller's signal keeps cancelling its body through this controller.
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
