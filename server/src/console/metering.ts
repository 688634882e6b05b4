import type { Clock } from "../clock.ts";
import type { Db } from "../db/db.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { MeteredRequest, Metering } from "../metering.ts";
import { rateLimitHeaders, type RateLimiter } from "../storage/rate-limiter.ts";
import type { Access } from "../trpc/access.ts";
import { planOf, type ConsoleSettings, type Plan } from "./plans.ts";
import { periodAt, recordUsage } from "./usage.ts";

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
 * The console's {@link Metering}: a per-minute rate limit per API key, session or anonymous address
 * (every attempt counts; the limit comes from the account's plan, or the anonymous setting), then the
 * account's monthly quota, shared by its session and all its keys, charged only for successes.
 * Refusals are recorded as business failures in the account's usage.
 */
export function createMetering(deps: { db: Db; clock: Clock; log: Logger; limiter: RateLimiter; settings: ConsoleSettings }): Metering {
  /** The account's plan and this period's charged queries, in one round trip (this is the hot path). */
  async function accountState(userId: string, now: number): Promise<{ plan: Plan; used: number }> {
    const period = periodAt(now);
    const row = await deps.db
      .selectFrom("users")
      .select((eb) => [
        "plan",
        eb
          .selectFrom("usage_daily")
          .select((sub) => sub.fn.sum<number>("successes").as("s"))
          .where("usage_daily.user_id", "=", userId)
          .where("usage_daily.day", ">=", period.firstDay)
          .where("usage_daily.day", "<", period.nextFirstDay)
          .as("used"),
      ])
      .where("id", "=", userId)
      .executeTakeFirst();
    return { plan: planOf(deps.settings, row?.plan ?? "free"), used: Number(row?.used ?? 0) };
  }

  async function fail(request: MeteredRequest, userId: string, now: number): Promise<void> {
    await recordUsage(deps.db, { userId, now, endpoint: request.endpoint, successes: 0, failures: 1 });
  }

  return {
    async admit(request) {
      const { access } = request;
      const userId = access.kind === "anonymous" ? null : access.userId;
      const now = deps.clock.now().getTime();
      const account = userId ? await accountState(userId, now) : null;
      const limit = account ? account.plan.rate_limit_per_minute : deps.settings.anonymousRatePerMinute;
      const decision = await deps.limiter.consume("data", rateSubject(access, request.ip), limit, WINDOW_SECONDS);
      const headers = rateLimitHeaders(POLICY, decision);
      if (!decision.allowed) {
        if (userId) await fail(request, userId, now);
        throw new AppError("RATE_LIMITED", `Rate limit of ${limit} requests per minute reached; retry after the Retry-After seconds`, { headers });
      }
      if (userId && account) {
        const { plan, used } = account;
        if (used + (request.cost ?? 1) > plan.monthly_quota) {
          await fail(request, userId, now);
          const untilReset = Math.ceil((periodAt(now).endMs - now) / 1000);
          throw new AppError("QUOTA_EXCEEDED", `The monthly quota of ${plan.monthly_quota} queries is used up; it resets at the start of next month (Asia/Shanghai)`, {
            headers: { ...headers, "Retry-After": String(Math.max(1, untilReset)) },
          });
        }
      }
      return { headers };
    },

    async settle(request) {
      if (request.access.kind === "anonymous") return;
      const ok = request.status >= 200 && request.status < 300;
      await recordUsage(deps.db, {
        userId: request.access.userId,
        now: deps.clock.now().getTime(),
        endpoint: request.endpoint,
        successes: ok ? (request.cost ?? 1) : 0,
        failures: ok ? 0 : 1,
      });
    },
  };
}
