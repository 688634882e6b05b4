import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CredentialCache } from "../access/credential-cache.ts";
import { captureLogs } from "../../testing/log-capture.ts";
import { testTarget, TEST_REDIS_URL } from "../../testing/databases.ts";
import { InvalidationBus, type Invalidation } from "./invalidations.ts";
import { openSharedStore } from "./shared-store.ts";

async function until(condition: () => boolean, withinMs = 5000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > withinMs) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("InvalidationBus without Redis", () => {
  it("is live and applies a published message to this process's listeners", async () => {
    const bus = await InvalidationBus.open({ redis: null, keyPrefix: "t:" }, captureLogs().log);
    const seen: Invalidation[] = [];
    bus.on((m) => seen.push(m));
    expect(bus.live).toBe(true);
    await bus.publish({ topic: "apiKey", id: "key_1" });
    expect(seen).toEqual([{ topic: "apiKey", id: "key_1" }]);
    await bus.close();
  });
});

describe.runIf(testTarget() === "mysql")("InvalidationBus on Redis", () => {
  it("delivers to the other instances once, and to the publisher itself at once", async () => {
    const keyPrefix = `ir21test:${randomBytes(6).toString("hex")}:`;
    const stores = await Promise.all([openSharedStore({ redisUrl: TEST_REDIS_URL(), keyPrefix }), openSharedStore({ redisUrl: TEST_REDIS_URL(), keyPrefix })]);
    const [one, two] = await Promise.all(stores.map((store) => InvalidationBus.open(store, captureLogs().log)));
    const otherStore = await openSharedStore({ redisUrl: TEST_REDIS_URL(), keyPrefix: `${keyPrefix}other:` });
    const elsewhere = await InvalidationBus.open(otherStore, captureLogs().log);
    try {
      const seenOne: Invalidation[] = [];
      const seenTwo: Invalidation[] = [];
      const seenElsewhere: Invalidation[] = [];
      one!.on((m) => seenOne.push(m));
      two!.on((m) => seenTwo.push(m));
      elsewhere.on((m) => seenElsewhere.push(m));
      await one!.publish({ topic: "otherSessions", id: "usr_1", except: "ses_1" });
      expect(seenOne).toEqual([{ topic: "otherSessions", id: "usr_1", except: "ses_1" }]);
      await until(() => seenTwo.length === 1);
      expect(seenTwo).toEqual([{ topic: "otherSessions", id: "usr_1", except: "ses_1" }]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seenOne).toHaveLength(1); // its own echo is ignored
      expect(seenElsewhere).toEqual([]); // another deployment's prefix hears nothing
    } finally {
      await Promise.all([one!.close(), two!.close(), elsewhere.close()]);
      await Promise.all([...stores, otherStore].map((s) => s.close()));
    }
  });

  it("while the subscription is down, caches serve nothing; they resume once it is back", async () => {
    const keyPrefix = `ir21test:${randomBytes(6).toString("hex")}:`;
    const store = await openSharedStore({ redisUrl: TEST_REDIS_URL(), keyPrefix });
    const bus = await InvalidationBus.open(store, captureLogs().log);
    try {
      const cache = new CredentialCache(bus, { ttlMs: 60_000 });
      const resets: boolean[] = [];
      bus.onReset(() => resets.push(bus.live));
      cache.set("h", { kind: "apiKey", id: "key_1", userId: "usr_1", lastUsedAt: null }, cache.generation);
      expect(cache.get("h")).toBeDefined();

      // Drop the subscriber's connection the way a network failure or a Redis restart would.
      const clients = (await store.redis!.client("LIST")) as string;
      const id = clients.split("\n").find((line) => line.includes(`name=${keyPrefix}invalidations`))?.match(/id=(\d+)/)?.[1];
      expect(id).toBeDefined();
      await store.redis!.client("KILL", "ID", id!);
      await until(() => !bus.live);
      expect(cache.get("h")).toBeUndefined(); // dropped: messages may be missed from now on
      cache.set("h", { kind: "apiKey", id: "key_1", userId: "usr_1", lastUsedAt: null }, cache.generation);
      expect(cache.get("h")).toBeUndefined(); // and nothing new is kept while not live

      await until(() => bus.live);
      expect(resets).toEqual([false, true]);
      cache.set("h", { kind: "apiKey", id: "key_1", userId: "usr_1", lastUsedAt: null }, cache.generation);
      expect(cache.get("h")).toBeDefined();
    } finally {
      await bus.close();
      await store.close();
    }
  });
});
