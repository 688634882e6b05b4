import { createStorage, type Storage } from "unstorage";
import memoryDriver from "unstorage/drivers/memory";
import redisDriver from "unstorage/drivers/redis";
import type { Cluster, Redis } from "ioredis";

/**
 * Shared ephemeral state: an unstorage cache (memory in one process, Redis across instances) and,
 * when Redis is configured, its client for what needs atomic counters (rate limits), which unstorage
 * cannot do. The client is one Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES) through
 * ioredis' Cluster client; every key this server uses works on a cluster (docs/operations.md "Redis
 * Cluster"): each rate-limit script touches one key, pub/sub is broadcast to every node by Redis
 * itself, and the cache's keys carry one hash tag so its multi-key reads (mget) stay in one slot.
 */
export interface SharedStore {
  cache: Storage;
  /** The Redis client behind the cache (one Redis or a Redis Cluster), or null when state is in-process. */
  redis: Redis | Cluster | null;
  /** Prefix for every key this server writes, so tests and deployments can share one Redis. */
  keyPrefix: string;
  close(): Promise<void>;
}

/**
 * @example
 * const store = await openSharedStore({ redisUrl: process.env.REDIS_URL ?? null });
 * await store.cache.setItem("greeting", "hello");
 */
export async function openSharedStore(options: { redisUrl: string | null; redisClusterNodes?: Array<{ host: string; port: number }> | null; keyPrefix?: string }): Promise<SharedStore> {
  const keyPrefix = options.keyPrefix ?? "ir21:";
  const clusterNodes = options.redisClusterNodes?.length ? options.redisClusterNodes : null;
  if (!options.redisUrl && !clusterNodes) {
    const cache = createStorage({ driver: memoryDriver() });
    return { cache, redis: null, keyPrefix, close: () => cache.dispose() };
  }
  const connection = {
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    // Every /v1 request runs a rate-limit script: the commands of one event-loop turn go out in one
    // write and come back in one read (50 requests in flight: ~25 µs less Redis wait per request,
    // tests/bench lookup). ioredis never pipelines (p)subscribe, which the invalidation bus's duplicate
    // connection uses. The Cluster client pipelines per node.
    enableAutoPipelining: true,
  };
  const driver = clusterNodes
    ? redisDriver({
        cluster: clusterNodes,
        // One hash tag for the whole cache: unstorage reads several keys in one MGET, which a cluster
        // only serves when they hash to one slot.
        base: `{${keyPrefix}cache}`,
        clusterOptions: {
          ...connection,
          // A failover moves a slot's master: ioredis follows MOVED/ASK and re-reads the slot map, and
          // queues commands while it does (docs/operations.md "Redis Cluster").
          slotsRefreshTimeout: 2_000,
          retryDelayOnFailover: 200,
          retryDelayOnClusterDown: 200,
          redisOptions: { maxRetriesPerRequest: 2, connectTimeout: 2_000 },
        },
      })
    : redisDriver({ url: options.redisUrl!, base: `${keyPrefix}cache`, ...connection });
  const cache = createStorage({ driver });
  const redis = driver.getInstance!() as Redis | Cluster;
  await redis.connect();
  return {
    cache,
    redis,
    keyPrefix,
    close: async () => {
      await cache.dispose();
      if (redis.status !== "end") await redis.quit().catch(() => redis.disconnect());
    },
  };
}
