import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { SharedStore } from "./shared-store.ts";

/** The outcome of counting one attempt against a fixed window. */
export interface RateDecision {
  allowed: boolean;
  /** Attempts allowed per window. */
  limit: number;
  /** Attempts left in the current window (0 when refused). */
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
  windowSeconds: number;
}

/**
 * Fixed-window counters in the shared store, through rate-limiter-flexible: Redis (atomic INCR in a
 * Lua script, shared by every instance) when REDIS_URL is set, process memory otherwise. With Redis,
 * an in-memory limiter stands in while Redis is unavailable, so a Redis outage degrades to
 * per-instance limits instead of failing or slowing requests: while the store's circuit is open it
 * counts at once without trying Redis, and a command that fails falls back to it (the library's
 * insurance limiter).
 *
 * Windows run on real time, not the injected domain clock: they are traffic shaping, like cache
 * expiry, and live in Redis's own TTLs.
 */
export class RateLimiter {
  readonly #limiters = new Map<string, { shared: RateLimiterAbstract; memory: RateLimiterAbstract }>();
  constructor(private readonly store: Pick<SharedStore, "redis" | "circuit" | "keyPrefix">) {}

  #limiter(bucket: string, points: number, windowSeconds: number): RateLimiterAbstract {
    const id = `${bucket}:${points}:${windowSeconds}`;
    let limiter = this.#limiters.get(id);
    if (!limiter) {
      // Limiters of one bucket share keys, so a plan change keeps the count already made this window.
      const keyPrefix = `${this.store.keyPrefix}rl:${bucket}`;
      const memory = new RateLimiterMemory({ keyPrefix, points, duration: windowSeconds });
      const shared = this.store.redis
        ? new RateLimiterRedis({ storeClient: this.store.redis, keyPrefix, points, duration: windowSeconds, insuranceLimiter: memory })
        : memory;
      limiter = { shared, memory };
      this.#limiters.set(id, limiter);
    }
    // Redis failed moments ago: count here without building a command the circuit would refuse.
    return this.store.circuit?.refusing ? limiter.memory : limiter.shared;
  }

  /**
   * Counts one attempt of `subject` in `bucket` (e.g. bucket "data", subject "key:key_…").
   * @example
   * const d = await limiter.consume("contact", `ip:${ip}`, 10, 3600);
   * if (!d.allowed) throw AppError.rateLimited(d.resetMs / 1000);
   */
  async consume(bucket: string, subject: string, limit: number, windowSeconds: number): Promise<RateDecision> {
    try {
      const res = await this.#limiter(bucket, limit, windowSeconds).consume(subject, 1);
      return { allowed: true, limit, remaining: res.remainingPoints, resetMs: res.msBeforeNext, windowSeconds };
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) return { allowed: false, limit, remaining: 0, resetMs: refusal.msBeforeNext, windowSeconds };
      throw refusal;
    }
  }
}

/**
 * RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers-11) for a decision, plus
 * Retry-After when it was refused.
 */
export function rateLimitHeaders(policy: string, decision: RateDecision): Record<string, string> {
  const resetSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
  const headers: Record<string, string> = {
    "RateLimit-Policy": `"${policy}";q=${decision.limit};w=${decision.windowSeconds}`,
    RateLimit: `"${policy}";r=${decision.remaining};t=${resetSeconds}`,
  };
  if (!decision.allowed) headers["Retry-After"] = String(resetSeconds);
  return headers;
}
