import { ERROR_CODES, type ErrorCode } from "./contract/errors.ts";

/**
 * The one error type services throw. It carries a contract code (status comes from the table) and
 * optional response headers such as Retry-After. Services stay free of HTTP and tRPC: the edges map it.
 * @example
 * throw new AppError("NOT_FOUND", "No API key with this id");
 * throw AppError.rateLimited(30);
 */
export class AppError extends Error {
  readonly headers: Record<string, string>;
  constructor(
    readonly code: ErrorCode,
    message: string = ERROR_CODES[code].description,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  /** A 429 with Retry-After in whole seconds (at least 1). */
  static rateLimited(retryAfterSeconds: number, message = "Too many requests", code: ErrorCode = "RATE_LIMITED"): AppError {
    return new AppError(code, message, { headers: { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) } });
  }
}
