import type { ErrorCode } from "./wire.ts";

/**
 * Codes the SDK itself reports when there is no contract error body to read: the request never got
 * an HTTP answer (`NETWORK_ERROR`), or the answer was not the service's JSON (`UNEXPECTED_RESPONSE`,
 * e.g. a proxy's HTML error page).
 */
export type ClientErrorCode = "NETWORK_ERROR" | "TIMEOUT" | "UNEXPECTED_RESPONSE";

/**
 * Every code an {@link Ir21ApiError} can carry: the contract's codes (docs/errors.md), the SDK's own,
 * and (`string & {}`) codes a newer server may add.
 */
export type Ir21ErrorCode = ErrorCode | ClientErrorCode | (string & {});

export interface Ir21ApiErrorInit {
  status: number;
  code: Ir21ErrorCode;
  message: string;
  requestId: string | null;
  retryAfter?: number | null;
  cause?: unknown;
}

/**
 * A failed call to the service, from either client. `code` is the contract's error code (the REST
 * body's `code`, or `error.data.appCode` over tRPC), so one `switch` handles both.
 * @example
 * try {
 *   await ir21.console.apiKeys.create.mutate({ name });
 * } catch (error) {
 *   if (!(error instanceof Ir21ApiError)) throw error;
 *   console.error(`${error.code} (HTTP ${error.status}): ${error.message} [request ${error.requestId}]`);
 * }
 */
export class Ir21ApiError extends Error {
  override readonly name = "Ir21ApiError";
  /** HTTP status; 0 when no response arrived (`NETWORK_ERROR`). */
  readonly status: number;
  readonly code: Ir21ErrorCode;
  /** The server's request id (quote it in support requests); null when there was no response. */
  readonly requestId: string | null;
  /** Seconds the server asked to wait before retrying (Retry-After on 429 and 503), else null. */
  readonly retryAfter: number | null;

  constructor(init: Ir21ApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter ?? null;
  }
}

/**
 * Whether `error` is an {@link Ir21ApiError} (also one from another copy of the SDK), optionally with a given code.
 * @example
 * try { await ir21.lookup("+8613800138000") }
 * catch (error) { if (isIr21ApiError(error, "RATE_LIMITED")) console.log(`retry in ${error.retryAfter}s`) }
 */
export function isIr21ApiError(error: unknown, code?: ErrorCode | ClientErrorCode): error is Ir21ApiError {
  const shaped =
    error instanceof Ir21ApiError ||
    (error instanceof Error && error.name === "Ir21ApiError" && typeof (error as { status?: unknown }).status === "number" && typeof (error as { code?: unknown }).code === "string");
  return shaped && (code === undefined || (error as Ir21ApiError).code === code);
}

/** Seconds from a Retry-After header: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed);
  if (!/[a-z]/i.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * The {@link Ir21ApiError} for a non-2xx REST response: the contract body `{code, message, request_id}`
 * when present, otherwise `UNEXPECTED_RESPONSE` with what can be told from the status.
 */
export async function errorFromResponse(response: Response): Promise<Ir21ApiError> {
  const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
  const headerRequestId = response.headers.get("x-request-id");
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  if (isErrorBody(body)) {
    return new Ir21ApiError({ status: response.status, code: body.code, message: body.message, requestId: body.request_id, retryAfter });
  }
  return new Ir21ApiError({
    status: response.status,
    code: "UNEXPECTED_RESPONSE",
    message: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""} without an ir21 error body`,
    requestId: headerRequestId,
    retryAfter,
  });
}

function isErrorBody(body: unknown): body is { code: string; message: string; request_id: string } {
  if (typeof body !== "object" || body === null) return false;
  const { code, message, request_id } = body as Record<string, unknown>;
  return typeof code === "string" && typeof message === "string" && typeof request_id === "string";
}
