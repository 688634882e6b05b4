/**
 * The one table of error codes: every error body's `code` is a key of {@link ERROR_CODES}, and its HTTP
 * status comes only from here. docs/errors.md lists the same table for readers; a test keeps them equal.
 *
 * Domains add their rows here (grouped by domain below) rather than inventing statuses at call sites.
 */
export const ERROR_CODES = {
  // Generic request problems
  INVALID_REQUEST: { status: 400, description: "A parameter or body field does not conform (the message names it)." },
  MALFORMED_JSON: { status: 400, description: "The request body is not valid JSON." },
  UNAUTHORIZED: { status: 401, description: "Valid credentials are needed: no, expired or revoked session or API key." },
  FORBIDDEN: { status: 403, description: "The credentials are valid but not permitted here." },
  NOT_FOUND: { status: 404, description: "No such route, or no such id visible to this account." },
  METHOD_NOT_ALLOWED: { status: 405, description: "The path exists but not with this HTTP method." },
  CONFLICT: { status: 409, description: "The request conflicts with the current state." },
  PAYLOAD_TOO_LARGE: { status: 413, description: "The request body exceeds the size limit." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: "A JSON endpoint was sent a body that is not application/json." },
  RATE_LIMITED: { status: 429, description: "Too many requests; retry after the Retry-After header's seconds." },
  SERVICE_UNAVAILABLE: { status: 503, description: "A dependency (database, data source) is unavailable, or the server is shutting down." },
  INTERNAL_ERROR: { status: 500, description: "An unexpected server fault; the request id identifies it in the logs." },

  // Contact
  SECRET_IN_INQUIRY: { status: 400, description: "The inquiry contains what looks like an SMS code or a full API key; never send those." },

  // Webhooks
  WEBHOOK_URL_FORBIDDEN: { status: 400, description: "The webhook URL is not a public HTTPS URL (private, loopback, link-local or metadata address, credentials, or a host that does not resolve)." },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_CODES, value);
}
