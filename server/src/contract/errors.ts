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
  REQUEST_TIMEOUT: { status: 408, description: "The request line, headers or body did not arrive in time; the connection is closed." },
  PAYLOAD_TOO_LARGE: { status: 413, description: "The request body exceeds the size limit." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: "A JSON endpoint was sent a body that is not application/json." },
  HEADERS_TOO_LARGE: { status: 431, description: "The request line and headers together exceed 16 KiB; the connection is closed." },
  RATE_LIMITED: { status: 429, description: "Too many requests; retry after the Retry-After header's seconds." },
  SERVICE_UNAVAILABLE: { status: 503, description: "A dependency (database, data source) is unavailable, or the server is shutting down." },
  INTERNAL_ERROR: { status: 500, description: "An unexpected server fault; the request id identifies it in the logs." },

  // Catalogue
  INVALID_DATASET: { status: 400, description: "An import input (IR.21 document, candidate dataset) is invalid; the message lists every problem and nothing was changed." },
  UNKNOWN_DATASET_VERSION: { status: 400, description: "`since` names a dataset version this server does not know (or no longer keeps changes for)." },
  NO_DATASET: { status: 503, description: "No dataset has been imported yet; run `ir21-server import reference`." },

  // Contact
  SECRET_IN_INQUIRY: { status: 400, description: "The inquiry contains what looks like an SMS code or a full API key; never send those." },

  // Accounts: SMS sign-in, sessions, cross-site writes (docs/auth.md)
  INVALID_PHONE: { status: 400, description: "The phone is not a mainland-China mobile number (11 digits starting 13-19, or the +86 form)." },
  AGREEMENT_REQUIRED: { status: 400, description: "The terms and privacy policy must be accepted (agreed: true)." },
  AGREEMENT_OUTDATED: { status: 400, description: "terms_version or privacy_version is not the current agreement version." },
  CHALLENGE_NOT_FOUND: { status: 400, description: "No SMS challenge with this challenge_id; request a new code." },
  CHALLENGE_PHONE_MISMATCH: { status: 400, description: "The challenge was issued for another phone number." },
  CHALLENGE_EXPIRED: { status: 400, description: "The SMS code has expired (codes are valid for 5 minutes); request a new one." },
  CHALLENGE_CONSUMED: { status: 400, description: "The SMS code was already used; request a new one." },
  CHALLENGE_SUPERSEDED: { status: 400, description: "A newer code was sent to this phone; use the latest one." },
  CODE_INCORRECT: { status: 400, description: "The SMS code is wrong; the message says how many attempts remain." },
  CODE_ATTEMPTS_EXHAUSTED: { status: 400, description: "Five wrong codes were entered; this challenge is locked, request a new code." },
  SMS_SEND_LIMITED: { status: 429, description: "Too many SMS codes for this phone, address or service; retry after Retry-After seconds." },
  SIGN_IN_LOCKED: { status: 429, description: "Too many wrong codes for this phone recently: its sign-in is locked; retry after Retry-After seconds." },
  SMS_PROVIDER_THROTTLED: { status: 429, description: "The SMS provider refused to send more messages to this phone for now." },
  SMS_NOT_CONFIGURED: { status: 503, description: "No SMS provider is configured, so codes cannot be sent or verified." },
  SMS_PROVIDER_UNAVAILABLE: { status: 503, description: "The SMS provider failed or could not be reached; try again later." },
  CROSS_SITE_REQUEST: { status: 403, description: "A cross-site write was refused: Origin or Sec-Fetch-Site does not match the console's origin." },

  // Console: API keys, quota (docs/console.md)
  API_KEY_LIMIT_REACHED: { status: 409, description: "The account already holds the maximum number of active API keys; revoke one first." },
  LISTEN_SESSION_LIMIT_REACHED: { status: 409, description: "The account already has the maximum number of open listen sessions; stop one first." },
  QUOTA_EXCEEDED: { status: 429, description: "The account's monthly quota is used up; Retry-After gives the seconds until the next period." },

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
