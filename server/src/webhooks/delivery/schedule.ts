/**
 * When a failed attempt is tried again (docs/webhooks.md "Retries"): the Standard Webhooks schedule,
 * ten attempts over about three days (75 h 35 m 5 s before jitter), like Stripe's "up to three days".
 */
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The delay after the 1st, 2nd, ... 9th failed attempt. */
export const RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR];

/** The first attempt plus one per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** A receiver's Retry-After may push the next attempt out, never past this. */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;

/**
 * Jitter only ever adds: up to 10 % of the delay (at least 1 s, at most 15 min), so a retry never
 * fires before its scheduled time and a burst of failures does not come back as a burst.
 */
export function jitterSpreadMs(baseMs: number): number {
  return Math.min(Math.max(0.1 * baseMs, SECOND), 15 * MINUTE);
}

/**
 * Seconds (`120`) or an HTTP date, as milliseconds from `nowMs`; null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed) * SECOND;
  if (!/[a-z]/i.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/**
 * The delay before the next attempt after `attemptsMade` attempts (1-based count of attempts so far),
 * or null when the schedule is exhausted. Retry-After is honoured on 429 and 503 only, bounded to 24 h,
 * and never shortens the schedule.
 */
export function nextRetryDelayMs(input: {
  attemptsMade: number;
  maxAttempts?: number;
  status: number | null;
  retryAfter: string | null;
  nowMs: number;
  random?: () => number;
}): number | null {
  const maxAttempts = input.maxAttempts ?? MAX_ATTEMPTS;
  if (input.attemptsMade >= maxAttempts) return null;
  const base = RETRY_DELAYS_MS[Math.min(input.attemptsMade, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[0]!;
  const delay = base + Math.floor((input.random ?? Math.random)() * jitterSpreadMs(base));
  if (input.status === 429 || input.status === 503) {
    const hinted = parseRetryAfter(input.retryAfter, input.nowMs);
    if (hinted !== null) return Math.max(delay, Math.min(hinted, MAX_RETRY_AFTER_MS));
  }
  return delay;
}
