import { describe, expect, it } from "vitest";
import { captureLogs } from "../../testing/log-capture.ts";
import { InvalidationBus } from "../storage/invalidations.ts";
import { CredentialCache, type CachedApiKey, type CachedSession } from "./credential-cache.ts";

const key = (id: string, userId = "usr_a"): CachedApiKey => ({ kind: "apiKey", id, userId, lastUsedAt: null });
const session = (id: string, userId = "usr_a"): CachedSession => ({ kind: "session", id, userId, createdAt: 0, lastSeenAt: 0, expiresAt: 1, absoluteExpiresAt: 1 });

async function localBus() {
  return InvalidationBus.open({ redis: null, keyPrefix: "t:" }, captureLogs().log);
}

describe("CredentialCache", () => {
  it("requests presenting one credential at once share its database read, unless an invalidation came in between", async () => {
    const cache = new CredentialCache(await localBus(), { ttlMs: 60_000 });
    let reads = 0;
    const release: Array<() => void> = [];
    const load = () => {
      reads++;
      return new Promise<CachedApiKey>((resolve) => release.push(() => resolve(key(`key_${reads}`))));
    };
    const first = cache.read("h", load);
    const second = cache.read("h", load);
    await cache.apiKeyRevoked("key_other"); // an invalidation reaches the process while the read is out
    const third = cache.read("h", load);
    expect(reads).toBe(2);
    for (const r of release) r();
    const [a, b, c] = await Promise.all([first, second, third]);
    expect(b.value).toBe(a.value);
    expect(b.generation).toBe(a.generation); // the generation of the read's start, for set()
    expect(c.value).toMatchObject({ id: "key_2" });
    expect(c.generation).toBeGreaterThan(a.generation);
    cache.set("h", a.value, a.generation);
    expect(cache.get("h")).toBeUndefined(); // read before the invalidation: not kept
    expect((await cache.read("h", async () => key("key_3"))).value).toMatchObject({ id: "key_3" }); // nothing in flight: a new read
  });

  it("serves an entry until its TTL (real time), then forgets it", async () => {
    let now = 1000;
    const cache = new CredentialCache(await localBus(), { ttlMs: 10_000, now: () => now });
    cache.set("h1", key("key_1"), cache.generation);
    now += 9_999;
    expect(cache.get("h1")).toMatchObject({ id: "key_1" });
    now += 1;
    expect(cache.get("h1")).toBeUndefined();
  });

  it("a revocation drops the credential at once, and only that one", async () => {
    const cache = new CredentialCache(await localBus(), { ttlMs: 60_000 });
    cache.set("k1", key("key_1"), cache.generation);
    cache.set("k2", key("key_2"), cache.generation);
    cache.set("s1", session("ses_1"), cache.generation);
    cache.set("s2", session("ses_2"), cache.generation);
    cache.set("s3", session("ses_3", "usr_b"), cache.generation);
    await cache.apiKeyRevoked("key_1");
    expect(cache.get("k1")).toBeUndefined();
    expect(cache.get("k2")).toBeDefined();
    await cache.sessionEnded("ses_1");
    expect(cache.get("s1")).toBeUndefined();
    expect(cache.get("s2")).toBeDefined();
    cache.set("s1b", session("ses_1b"), cache.generation);
    await cache.otherSessionsEnded("usr_a", "ses_2");
    expect(cache.get("s1b")).toBeUndefined();
    expect(cache.get("s2")).toBeDefined(); // the kept one
    expect(cache.get("s3")).toBeDefined(); // another account's
    expect(cache.get("k2")).toBeDefined(); // keys survive revoke-others
  });

  it("does not keep a read that started before an invalidation (it may predate the revocation)", async () => {
    const cache = new CredentialCache(await localBus(), { ttlMs: 60_000 });
    const generation = cache.generation; // a database read starts here…
    await cache.apiKeyRevoked("key_1"); // …the key is revoked meanwhile…
    cache.set("k1", key("key_1"), generation); // …and the stale answer arrives
    expect(cache.get("k1")).toBeUndefined();
    cache.set("k1", key("key_1"), cache.generation);
    expect(cache.get("k1")).toBeDefined();
  });

  it("caches nothing with a TTL of 0, and stays bounded", async () => {
    const off = new CredentialCache(await localBus(), { ttlMs: 0 });
    off.set("k1", key("key_1"), off.generation);
    expect(off.get("k1")).toBeUndefined();
    const small = new CredentialCache(await localBus(), { ttlMs: 60_000, maxEntries: 2 });
    for (const id of ["a", "b", "c"]) small.set(id, key(`key_${id}`), small.generation);
    expect(small.get("a")).toBeUndefined();
    expect(small.get("b")).toBeDefined();
    expect(small.get("c")).toBeDefined();
  });
});
