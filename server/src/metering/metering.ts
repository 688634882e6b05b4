import type { Access } from "../access/access.ts";

/**
 * Rate limits and the monthly quota, as the data API sees them. The console domain implements it
 * (plans, counters in the shared store, usage rows); the /v1 routes call it around every query.
 */
export interface Metering {
  /**
   * Before a data query runs: counts the attempt against the caller's rate limit (per API key,
   * session or anonymous IP) and refuses when the account's monthly quota is used up. Throws
   * AppError RATE_LIMITED or QUOTA_EXCEEDED (429 with Retry-After); a refusal is then already recorded
   * as a business failure, so do not settle it. Returns headers to add to the response (RateLimit-*).
   * `http/metered.ts` (meteredQuery) does admit + settle around a /v1 handler.
   */
  admit(request: MeteredRequest): Promise<{ headers: Record<string, string> }>;
  /**
   * After the response status is known: a 2xx counts `cost` units against the quota (an export or
   * snapshot one); a 4xx/5xx counts as a business failure, shown in usage but never charged; anything
   * else (a 304 revalidation) counts as neither.
   */
  settle(request: MeteredRequest & { status: number }): Promise<void>;
}

export interface MeteredRequest {
  access: Access;
  ip: string | null;
  /** The route as usage reports it, e.g. "GET /v1/lookup". */
  endpoint: string;
  /** Quota units this request costs when it succeeds (a batch lookup may cost more than 1). */
  cost?: number;
}
