import type { Access } from "../access/access.ts";
import type { Clock } from "../clock.ts";
import { AppError } from "../errors.ts";
import { periodAt } from "./usage.ts";
import { planOf, type MeteringSettings, type Plan } from "./plans.ts";
import { rateLimitHeaders, type RateDecision, type RateLimiter } from "../storage/rate-limiter.ts";
import { usedUnits, type AccountUsage, type UsageLedger } from "./usage-ledger.ts";

/**
 * Rate limits and the monthly quota, as the data API sees them: the /v1 routes call it around every
 * query (data-api/metered.ts); {@link createMetering} below implements it with the plans, counters in
 * the shared store and the usage ledger.
 */
export interface Metering {
  /**
   * Before a data query runs: counts the attempt against the caller's rate limit (per API key,
   * session or anonymous IP) and refuses when the account's monthly quota is used up. Throws
   * AppError RATE_LIMITED or QUOTA_EXCEEDED (429 with Retry-After); a refusal is then already recorded
   * as a business failure, so do not settle it. Returns headers to add to the response (RateLimit-*):
   * at once when the account's usage and the rate limit's count are in memory, else through a
   * promise; a refusal is thrown either way. `data-api/metered.ts` (meter) does admit + settle around
   * a /v1 query.
   */
  admit(request: MeteredRequest): Admission | Promise<Admission>;
  /**
   * After the response status is known: a 2xx counts `cost` units against the quota (an export or
   * snapshot one); a 4xx/5xx counts as a business failure, shown in usage but never charged; anything
   * else (a 304 revalidation) counts as neither. Done at once in memory (the usage ledger buffers
   * the counts); an implementation that has to wait returns a promise.
   */
  settle(request: MeteredRequest, status: number): void | Promise<void>;
}

/** What an admitted request carries on its answer. */
export interface Admission {
  headers: Record<string, string>;
}

export interface MeteredRequest {
  access: Access;
  /** The anonymous caller's address, which its rate limit counts by (null for a key or a session). */
  ip: string | null;
  /** The route as usage reports it, e.g. "GET /v1/lookup". */
  endpoint: string;
  /** Quota units this request costs when it succeeds (a batch lookup may cost more than 1). */
  cost?: number;
}

const WINDOW_SECONDS = 60;
/** Name of the rate-limit policy in the RateLimit-Policy / RateLimit response fields. */
const POLICY = "minute";

/** Who a rate limit counts: each API key, each session, each anonymous address separately. */
function rateSubject(access: Access, ip: string | null): string {
  switch (access.kind) {
    case "apiKey":
      return `key:${access.keyId}`;
    case "session":
      return `ses:${access.sessionId}`;
    default:
      return `ip:${ip ?? "unknown"}`;
  }
}

/**
 * The {@link Metering}: a per-minute rate limit per API key, session or anonymous address
 * (every attempt counts; the limit comes from the account's plan, or the anonymous setting), then the
 * account's monthly quota, shared by its session and all its keys, charged only for successes.
 * Refusals are recorded as business failures in the account's usage. Plans, totals and counts are
 * kept by the {@link UsageLedger}: no database round trip on the hot path.
 */
export function createMetering(deps: { clock: Clock; limiter: RateLimiter; ledger: UsageLedger; settings: MeteringSettings }): Metering {
  const fail = (request: MeteredRequest, userId: string, now: number) =>
    deps.ledger.record({ userId, now, endpoint: request.endpoint, successes: 0, failures: 1 });

  /** The rate limit's decision, then the quota: checked and reserved with no await in between, so concurrent requests cannot both take the last unit. */
  const decide = (request: MeteredRequest, userId: string | null, now: number, account: AccountUsage | null, plan: Plan | null, limit: number, decision: RateDecision): Admission => {
    const headers = rateLimitHeaders(POLICY, decision);
    if (!decision.allowed) {
      if (userId) fail(request, userId, now);
      throw new AppError("RATE_LIMITED", `Rate limit of ${limit} requests per minute reached; retry after the Retry-After seconds`, { headers });
    }
    if (userId && account && plan) {
      const cost = request.cost ?? 1;
      if (usedUnits(account) + cost > plan.monthly_quota) {
        fail(request, userId, now);
        const untilReset = Math.ceil((periodAt(now).endMs - now) / 1000);
        throw new AppError("QUOTA_EXCEEDED", `The monthly quota of ${plan.monthly_quota} queries is used up; it resets at the start of next month (Asia/Shanghai)`, {
          headers: { ...headers, "Retry-After": String(Math.max(1, untilReset)) },
        });
      }
      deps.ledger.reserve(account, cost);
    }
    return { headers };
  };

  const count = (request: MeteredRequest, userId: string | null, now: number, account: AccountUsage | null) => {
    const plan = account ? planOf(deps.settings, account.plan) : null;
    const limit = plan ? plan.rate_limit_per_minute : deps.settings.anonymousRatePerMinute;
    const decision = deps.limiter.consume("data", rateSubject(request.access, request.ip), limit, WINDOW_SECONDS);
    return decision instanceof Promise
      ? decision.then((d) => decide(request, userId, now, account, plan, limit, d))
      : decide(request, userId, now, account, plan, limit, decision);
  };

  return {
    // Without a promise when the account is fresh and the rate limit counts in memory (see Metering).
    admit(request) {
      const userId = request.access.kind === "anonymous" ? null : request.access.userId;
      const now = deps.clock.nowMs();
      const account = userId ? deps.ledger.account(userId, now) : null;
      return account instanceof Promise ? account.then((fresh) => count(request, userId, now, fresh)) : count(request, userId, now, account);
    },

    settle(request, status) {
      if (request.access.kind === "anonymous") return;
      const cost = request.cost ?? 1;
      const ok = status >= 200 && status < 300;
      const failed = status >= 400;
      deps.ledger.release(request.access.userId, cost);
      // A 304 (ETag revalidation of an export or snapshot) is neither: not charged, not a failure.
      if (!ok && !failed) return;
      deps.ledger.record({
        userId: request.access.userId,
        now: deps.clock.nowMs(),
        endpoint: request.endpoint,
        successes: ok ? cost : 0,
        failures: failed ? 1 : 0,
      });
    },
  };
}
