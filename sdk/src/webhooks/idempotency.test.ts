import { describe, expect, it } from "vitest";
import { createEventDeduplicator, DEFAULT_DEDUPLICATION_TTL_SECONDS, MemoryIdempotencyStore, type IdempotencyStore } from "./idempotency.ts";

describe("MemoryIdempotencyStore", () => {
  it("claims a key once until it expires or is released", () => {
    let now = 1_000_000;
    const store = new MemoryIdempotencyStore({ now: () => now });
    expect(store.claim("evt_a", 60)).toBe(true);
    expect(store.claim("evt_a", 60)).toBe(false);
    expect(store.claim("evt_b", 60)).toBe(true);
    now += 59_999;
    expect(store.claim("evt_a", 60)).toBe(false);
    now += 1;
    expect(store.claim("evt_a", 60)).toBe(true);
    store.release("evt_b");
    expect(store.claim("evt_b", 60)).toBe(true);
  });

  it("sweeps expired keys and never holds more than maxEntries, dropping the oldest", () => {
    let now = 0;
    const store = new MemoryIdempotencyStore({ now: () => now, maxEntries: 3 });
    for (const id of ["a", "b", "c", "d"]) store.claim(id, 60);
    expect(store.size).toBe(3);
    expect(store.claim("a", 60)).toBe(true); // evicted, so claimable again
    expect(store.claim("d", 60)).toBe(false);
    now += 61_000;
    store.claim("e", 60);
    expect(store.size).toBe(1);
    expect(() => new MemoryIdempotencyStore({ maxEntries: 0 })).toThrow(TypeError);
  });
});

describe("createEventDeduplicator", () => {
  it("runs the handler once per event id and reports duplicates", async () => {
    const dedupe = createEventDeduplicator();
    const seen: string[] = [];
    const handle = (id: string) => dedupe.run({ id }, () => (seen.push(id), `done ${id}`));
    expect(await handle("evt_1")).toEqual({ duplicate: false, result: "done evt_1" });
    expect(await handle("evt_1")).toEqual({ duplicate: true });
    expect(await handle("evt_2")).toEqual({ duplicate: false, result: "done evt_2" });
    expect(seen).toEqual(["evt_1", "evt_2"]);
  });

  it("treats a concurrent delivery of an event in progress as a duplicate", async () => {
    const dedupe = createEventDeduplicator();
    let release!: () => void;
    const first = dedupe.run({ id: "evt_1" }, () => new Promise<string>((resolve) => (release = () => resolve("first"))));
    expect(await dedupe.run({ id: "evt_1" }, () => "second")).toEqual({ duplicate: true });
    release();
    expect(await first).toEqual({ duplicate: false, result: "first" });
  });

  it("releases the id when the handler fails, so the sender's retry is processed", async () => {
    const dedupe = createEventDeduplicator();
    await expect(dedupe.run({ id: "evt_1" }, () => Promise.reject(new Error("database down")))).rejects.toThrow("database down");
    expect(await dedupe.run({ id: "evt_1" }, () => "ok")).toEqual({ duplicate: false, result: "ok" });
  });

  it("passes the prefixed key and the TTL to a custom (async) store", async () => {
    const calls: string[] = [];
    const claimed = new Set<string>();
    const store: IdempotencyStore = {
      async claim(key, ttl) {
        calls.push(`claim ${key} ${ttl}`);
        if (claimed.has(key)) return false;
        claimed.add(key);
        return true;
      },
      async release(key) {
        calls.push(`release ${key}`);
        claimed.delete(key);
      },
    };
    const dedupe = createEventDeduplicator({ store, keyPrefix: "ir21:", ttlSeconds: 120 });
    await dedupe.run({ id: "evt_1" }, () => undefined);
    await dedupe.run({ id: "evt_1" }, () => undefined);
    await dedupe.run({ id: "evt_2" }, () => Promise.reject(new Error("x"))).catch(() => {});
    expect(calls).toEqual(["claim ir21:evt_1 120", "claim ir21:evt_1 120", "claim ir21:evt_2 120", "release ir21:evt_2"]);
    expect(createEventDeduplicator({ store }).run).toBeTypeOf("function");
  });

  it("defaults to a TTL longer than the sender's three days of retries, and refuses nonsense", async () => {
    expect(DEFAULT_DEDUPLICATION_TTL_SECONDS).toBeGreaterThan(3 * 24 * 3600);
    expect(() => createEventDeduplicator({ ttlSeconds: 0 })).toThrow(TypeError);
    await expect(createEventDeduplicator().run({ id: "" }, () => 1)).rejects.toThrow(TypeError);
  });
});
