import { RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
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
 * Fixed-window counters in process memory: the limiter of a single instance (no REDIS_URL), and the
 * stand-in of each instance while Redis is unavailable. rate-limiter-flexible's memory limiter does
 * the same but answers through a promise and sets a timer per key; this one answers at once, so a
 * lookup whose other steps are in memory is answered without a promise (docs/performance.md "Lookup,
 * seventh pass"). Expired windows are swept once a window, not per key.
 */
export class MemoryWindows {
  readonly #windows = new Map<string, { count: number; endsAt: number }>();
  #nextSweep = 0;
  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one attempt of `key` in its window (started by the first attempt, `windowSeconds` long). */
  count(key: string, limit: number, windowSeconds: number): RateDecision {
    const now = this.now();
    if (now >= this.#nextSweep) this.#sweep(now, windowSeconds);
    let window = this.#windows.get(key);
    if (window === undefined || window.endsAt <= now) this.#windows.set(key, (window = { count: 0, endsAt: now + windowSeconds * 1000 }));
    window.count++;
    const allowed = window.count <= limit;
    return { allowed, limit, remaining: allowed ? limit - window.count : 0, resetMs: window.endsAt - now, windowSeconds };
  }

  #sweep(now: number, windowSeconds: number): void {
    for (const [key, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(key);
    this.#nextSweep = now + windowSeconds * 1000;
  }
}

/**
 * Fixed-window counters in the shared store: Redis through rate-limiter-flexible (atomic INCR in a
 * Lua script, shared by every instance) when REDIS_URL is set, process memory ({@link MemoryWindows})
 * otherwise. With Redis, the memory counters stand in while Redis is unavailable, so a Redis outage
 * degrades to per-instance limits instead of failing or slowing requests: while the store's circuit is
 * open they count at once without trying Redis, and a command that fails falls back to them.
 *
 * Windows run on real time, not the injected domain clock: they are traffic shaping, like cache
 * expiry, and live in Redis's own TTLs.
 */
export class RateLimiter {
  readonly #shared = new Map<string, RateLimiterAbstract>();
  readonly #memory = new MemoryWindows();
  constructor(private readonly store: Pick<SharedStore, "redis" | "circuit" | "keyPrefix">) {}

  #sharedLimiter(bucket: string, points: number, windowSeconds: number): RateLimiterAbstract {
    const id = `${bucket}:${points}:${windowSeconds}`;
    let limiter = this.#shared.get(id);
    if (!limiter) {
      // Limiters of one bucket share keys, so a plan change keeps the count already made this window.
      limiter = new RateLimiterRedis({ storeClient: this.store.redis!, keyPrefix: `${this.store.keyPrefix}rl:${bucket}`, points, duration: windowSeconds });
      this.#shared.set(id, limiter);
    }
    return limiter;
  }

  /**
   * Counts one attempt of `subject` in `bucket` (e.g. bucket "data", subject "key:key_…"): at once in
   * memory, through a promise with Redis.
   * @example
   * const d = await limiter.consume("contact", `ip:${ip}`, 10, 3600);
   * if (!d.allowed) throw AppError.rateLimited(d.resetMs / 1000);
   */
  consume(bucket: string, subject: string, limit: number, windowSeconds: number): RateDecision | Promise<RateDecision> {
    // Counted here without Redis, or with Redis failing moments ago (no command the circuit would refuse).
    if (!this.store.redis || this.store.circuit?.refusing) return this.#memory.count(`${bucket}:${subject}`, limit, windowSeconds);
    return this.#consumeShared(bucket, subject, limit, windowSeconds);
  }

  async #consumeShared(bucket: string, subject: string, limit: number, windowSeconds: number): Promise<RateDecision> {
    try {
      const res = await this.#sharedLimiter(bucket, limit, windowSeconds).consume(subject, 1);
      return { allowed: true, limit, remaining: res.remainingPoints, resetMs: res.msBeforeNext, windowSeconds };
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) return { allowed: false, limit, remaining: 0, resetMs: refusal.msBeforeNext, windowSeconds };
      // Redis failed this command: this instance counts on its own until it is back.
      return this.#memory.count(`${bucket}:${subject}`, limit, windowSeconds);
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
    "RateLimit-Policy": policyField(policy, decision.limit, decision.windowSeconds),
    RateLimit: `"${policy}";r=${decision.remaining};t=${resetSeconds}`,
  };
  if (!decision.allowed) headers["Retry-After"] = String(resetSeconds);
  return headers;
}

/** RateLimit-Policy fields by policy, window and quota: a few plans' worth, each made once rather than per answer. */
const policyFields = new Map<string, Map<number, Map<number, string>>>();
/** The field made last: a server's requests ask for the same plan's again and again (three map reads saved per answer). */
let lastPolicyField = { policy: "", limit: -1, windowSeconds: -1, field: "" };
function policyField(policy: string, limit: number, windowSeconds: number): string {
  if (limit === lastPolicyField.limit && windowSeconds === lastPolicyField.windowSeconds && policy === lastPolicyField.policy) return lastPolicyField.field;
  let byWindow = policyFields.get(policy);
  if (byWindow === undefined) policyFields.set(policy, (byWindow = new Map()));
  let byLimit = byWindow.get(windowSeconds);
  if (byLimit === undefined) byWindow.set(windowSeconds, (byLimit = new Map()));
  let field = byLimit.get(limit);
  if (field === undefined) {
    // Bounded: a limit is a plan's or a setting's, but nothing here proves there are few.
    if (byLimit.size >= 64) byLimit.clear();
    byLimit.set(limit, (field = `"${policy}";q=${limit};w=${windowSeconds}`));
  }
  lastPolicyField = { policy, limit, windowSeconds, field };
  return field;
}
