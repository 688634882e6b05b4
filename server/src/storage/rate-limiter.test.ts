import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { testTarget, TEST_REDIS_URL } from "../../testing/databases.ts";
import { MemoryWindows, RateLimiter, rateLimitHeaders } from "./rate-limiter.ts";
import { openSharedStore } from "./shared-store.ts";

describe("RateLimiter", () => {
  it("counts a fixed window per subject and reports the draft RateLimit fields", async () => {
    const store = await openSharedStore({ redisUrl: null });
    try {
      const limiter = new RateLimiter(store);
      const decisions = [];
      for (let i = 0; i < 3; i++) decisions.push(await limiter.consume("t", "a", 2, 60));
      expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 1],
        [true, 0],
        [false, 0],
      ]);
      expect((await limiter.consume("t", "b", 2, 60)).allowed).toBe(true);
      const headers = rateLimitHeaders("minute", decisions[2]!);
      expect(headers["RateLimit-Policy"]).toBe('"minute";q=2;w=60');
      expect(headers.RateLimit).toMatch(/^"minute";r=0;t=(60|59)$/);
      expect(headers["Retry-After"]).toMatch(/^(60|59)$/);
    } finally {
      await store.close();
    }
  });
});

describe("rateLimitHeaders", () => {
  it("gives each decision its own policy's fields, whatever was asked before", () => {
    const decision = (limit: number, windowSeconds: number) => ({ allowed: true, limit, remaining: 1, resetMs: 1_000, windowSeconds });
    const asked: [string, number, number][] = [["minute", 2, 60], ["minute", 2, 60], ["minute", 5, 60], ["minute", 2, 60], ["minute", 2, 3600], ["hour", 2, 3600], ["minute", 2, 60]];
    for (const [policy, limit, windowSeconds] of asked) {
      expect(rateLimitHeaders(policy, decision(limit, windowSeconds))["RateLimit-Policy"]).toBe(`"${policy}";q=${limit};w=${windowSeconds}`);
    }
  });
});

describe("MemoryWindows", () => {
  it("opens a window with the first attempt, counts at once, and starts anew when it ends", () => {
    let now = 1_000_000;
    const windows = new MemoryWindows(() => now);
    expect(windows.count("data:key:a", 2, 60)).toEqual({ allowed: true, limit: 2, remaining: 1, resetMs: 60_000, windowSeconds: 60 });
    now += 10_000;
    expect(windows.count("data:key:a", 2, 60)).toEqual({ allowed: true, limit: 2, remaining: 0, resetMs: 50_000, windowSeconds: 60 });
    expect(windows.count("data:key:a", 2, 60)).toMatchObject({ allowed: false, remaining: 0, resetMs: 50_000 });
    // Another subject has its own window.
    expect(windows.count("data:key:b", 2, 60)).toMatchObject({ allowed: true, remaining: 1, resetMs: 60_000 });
    now += 50_000;
    expect(windows.count("data:key:a", 2, 60)).toMatchObject({ allowed: true, remaining: 1, resetMs: 60_000 });
  });

  it("a lower limit applies to the count already made in the window (a plan change)", () => {
    const now = 5_000;
    const windows = new MemoryWindows(() => now);
    for (let i = 0; i < 3; i++) windows.count("data:key:a", 10, 60);
    expect(windows.count("data:key:a", 3, 60)).toMatchObject({ allowed: false, remaining: 0 });
  });
});

describe.runIf(testTarget() === "mysql")("RateLimiter on Redis", () => {
  it("is shared by server instances using the same Redis", async () => {
    const keyPrefix = `ir21test:${randomBytes(6).toString("hex")}:`;
    const one = await openSharedStore({ redisUrl: TEST_REDIS_URL(), keyPrefix });
    const two = await openSharedStore({ redisUrl: TEST_REDIS_URL(), keyPrefix });
    try {
      const a = new RateLimiter(one);
      const b = new RateLimiter(two);
      expect((await a.consume("data", "key:k1", 2, 60)).allowed).toBe(true);
      expect((await b.consume("data", "key:k1", 2, 60)).allowed).toBe(true);
      expect((await a.consume("data", "key:k1", 2, 60)).allowed).toBe(false);
      expect((await b.consume("data", "key:k1", 2, 60)).allowed).toBe(false);
    } finally {
      const keys = await one.redis!.keys(`${keyPrefix}*`);
      if (keys.length) await one.redis!.del(...keys);
      await one.close();
      await two.close();
    }
  });
});
