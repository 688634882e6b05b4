import { createStorage, type Storage } from "unstorage";
import memoryDriver from "unstorage/drivers/memory";
import redisDriver from "unstorage/drivers/redis";
import type { Cluster, Redis } from "ioredis";
import { systemClock, type Clock } from "../clock.ts";
import { createLogger, type Logger } from "../log.ts";
import { RedisCircuit } from "./redis-circuit.ts";
import { boundedClusterOptions, boundedRedisOptions, connectWithin, CONNECT_WAIT_MS, DEFAULT_REDIS_LIMITS, gateCommands, watchConnection, type RedisLimits } from "./redis-connection.ts";
import { RedisOutageLog } from "./redis-outage-log.ts";
import type { Tracing } from "../observability/tracing.ts";

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
  /**
   * The circuit every command of `redis` passes (null without Redis): while it is open, callers take
   * their path without Redis at once (docs/operations.md "Redis unavailable").
   */
  circuit: RedisCircuit | null;
  /**
   * What the server says about Redis (null without it): other connections to the same Redis (the
   * invalidation bus's subscriber) report their errors and losses here, so an outage is one line.
   */
  redisLog: RedisOutageLog | null;
  /** Prefix for every key this server writes, so tests and deployments can share one Redis. */
  keyPrefix: string;
  close(): Promise<void>;
}

export interface SharedStoreOptions {
  redisUrl: string | null;
  redisClusterNodes?: Array<{ host: string; port: number }> | null;
  keyPrefix?: string;
  /** Command timeout and circuit (defaults: {@link DEFAULT_REDIS_LIMITS}). */
  redisLimits?: RedisLimits;
  /** The server's clock: the circuit's open interval and the outage log's summaries run on it. */
  clock?: Clock;
  /** Where Redis outages are reported (one line each, then summaries); silent when not given. */
  log?: Logger;
  /** With tracing, every Redis command is a span (storage/redis-connection.ts gateCommands). */
  tracing?: Tracing | null;
}

/**
 * Opens the shared store. With Redis, a Redis that cannot be reached does not stop the server from
 * starting: the circuit starts open, every caller takes its path without Redis, and the client keeps
 * reconnecting in the background.
 * @example
 * const store = await openSharedStore({ redisUrl: process.env.REDIS_URL ?? null });
 * await store.cache.setItem("greeting", "hello");
 */
export async function openSharedStore(options: SharedStoreOptions): Promise<SharedStore> {
  const keyPrefix = options.keyPrefix ?? "ir21:";
  const clusterNodes = options.redisClusterNodes?.length ? options.redisClusterNodes : null;
  if (!options.redisUrl && !clusterNodes) {
    const cache = createStorage({ driver: memoryDriver() });
    return { cache, redis: null, circuit: null, redisLog: null, keyPrefix, close: () => cache.dispose() };
  }
  const limits = options.redisLimits ?? DEFAULT_REDIS_LIMITS;
  const clock = options.clock ?? systemClock;
  const driver = clusterNodes
    ? redisDriver({
        cluster: clusterNodes,
        // One hash tag for the whole cache: unstorage reads several keys in one MGET, which a cluster
        // only serves when they hash to one slot.
        base: `{${keyPrefix}cache}`,
        clusterOptions: boundedClusterOptions(limits),
      })
    : redisDriver({ url: options.redisUrl!, base: `${keyPrefix}cache`, ...boundedRedisOptions(limits) });
  const cache = createStorage({ driver });
  const redis = driver.getInstance!() as Redis | Cluster;
  const circuit = new RedisCircuit({ clock, openMs: limits.circuitOpenMs });
  const outages = new RedisOutageLog(options.log ?? createLogger({ level: "silent", destination: { write: () => undefined } }), clock, circuit);
  gateCommands(redis, circuit, options.tracing ?? null);
  watchConnection(redis, "commands", outages, circuit);
  // Not reachable now: start anyway (the "close" of the failed attempt has opened the circuit and
  // logged it); ioredis keeps trying.
  await connectWithin(redis, CONNECT_WAIT_MS);
  return {
    cache,
    redis,
    circuit,
    redisLog: outages,
    keyPrefix,
    close: async () => {
      outages.stop();
      await cache.dispose();
      if (redis.status !== "end") await redis.quit().catch(() => redis.disconnect());
    },
  };
}
