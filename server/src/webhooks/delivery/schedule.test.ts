import { describe, expect, it } from "vitest";
import { jitterSpreadMs, MAX_ATTEMPTS, nextRetryDelayMs, parseRetryAfter, RETRY_DELAYS_MS } from "./schedule.ts";

const now = Date.parse("2026-11-23T04:00:00.000Z");

describe("retry schedule", () => {
  it("is ten attempts over 75 h 35 m 5 s before jitter", () => {
    expect(MAX_ATTEMPTS).toBe(10);
    expect(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBe(((75 * 60 + 35) * 60 + 5) * 1000);
  });

  it("jitter only ever adds, within 10 % (at least 1 s, at most 15 min)", () => {
    RETRY_DELAYS_MS.forEach((base, i) => {
      const low = nextRetryDelayMs({ attemptsMade: i + 1, status: 500, retryAfter: null, nowMs: now, random: () => 0 });
      const high = nextRetryDelayMs({ attemptsMade: i + 1, status: 500, retryAfter: null, nowMs: now, random: () => 0.999999 });
      expect(low).toBe(base);
      expect(high).toBeGreaterThan(base);
      expect(high).toBeLessThanOrEqual(base + jitterSpreadMs(base));
    });
    expect(jitterSpreadMs(5_000)).toBe(1_000);
    expect(jitterSpreadMs(24 * 3600_000)).toBe(15 * 60_000);
  });

  it("stops after the last attempt, or after a manual retry's single attempt", () => {
    expect(nextRetryDelayMs({ attemptsMade: 10, status: 500, retryAfter: null, nowMs: now })).toBeNull();
    expect(nextRetryDelayMs({ attemptsMade: 4, maxAttempts: 4, status: 500, retryAfter: null, nowMs: now })).toBeNull();
  });

  it("honours Retry-After on 429 and 503 only, never earlier than the schedule, at most 24 h", () => {
    const at = (status: number, retryAfter: string | null) => nextRetryDelayMs({ attemptsMade: 1, status, retryAfter, nowMs: now, random: () => 0 });
    expect(at(429, "120")).toBe(120_000);
    expect(at(503, "120")).toBe(120_000);
    expect(at(500, "120")).toBe(5_000);
    expect(at(429, "1")).toBe(5_000);
    expect(at(429, String(7 * 24 * 3600))).toBe(24 * 3600_000);
    expect(at(429, new Date(now + 600_000).toUTCString())).toBe(600_000);
    expect(at(429, "soon")).toBe(5_000);
  });

  it("parses Retry-After as seconds or an HTTP date", () => {
    expect(parseRetryAfter("30", now)).toBe(30_000);
    expect(parseRetryAfter(" 30 ", now)).toBe(30_000);
    expect(parseRetryAfter("Mon, 23 Nov 2026 04:01:00 GMT", now)).toBe(60_000);
    expect(parseRetryAfter("Mon, 23 Nov 2026 03:00:00 GMT", now)).toBe(0);
    for (const bad of [null, "", "-5", "1.5", "later", "99999999999"]) expect(parseRetryAfter(bad, now)).toBeNull();
  });
});
