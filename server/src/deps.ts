import type { Config } from "./config.ts";
import { systemClock, type Clock } from "./clock.ts";
import { createLogger, type Logger } from "./log.ts";
import { openDatabase, type Db, type Dialect } from "./db/db.ts";
import { openSharedStore, type SharedStore } from "./storage/shared-store.ts";
import { createDatasetMetaSource, type DatasetMetaSource } from "./catalog/dataset-meta.ts";
import type { AccessResolver } from "./trpc/access.ts";
import { createAccessResolver } from "./auth/access.ts";
import { createAuthRuntime, type AuthRuntime } from "./auth/runtime.ts";
import { resolveSecrets, type ServerSecrets } from "./secrets.ts";
import type { Metering } from "./metering.ts";
import { createApiKeyVerifier } from "./console/api-keys.ts";
import { createMetering } from "./console/metering.ts";
import { consoleSettings, type ConsoleSettings } from "./console/plans.ts";
import { RateLimiter } from "./storage/rate-limiter.ts";
import { InvalidationBus } from "./storage/invalidations.ts";
import { CredentialCache } from "./auth/credential-cache.ts";
import { createSessionLookup } from "./auth/sessions.ts";
import { UsageLedger } from "./console/usage-ledger.ts";
import type { HostResolver } from "./webhooks/subscriptions/url-policy.ts";

/** Process-wide state the shutdown sequence and /readyz share. */
export interface Lifecycle {
  shuttingDown: boolean;
}

/**
 * Everything a request or job needs, built once at start. Procedures reach it through the tRPC
 * middleware (never through the public Context type), services get the parts they use as arguments.
 */
export interface AppDeps {
  config: Config;
  clock: Clock;
  log: Logger;
  db: Db;
  dialect: Dialect;
  store: SharedStore;
  datasetMeta: DatasetMetaSource;
  access: AccessResolver;
  metering: Metering;
  /** Accounts: settings (limits, lifetimes) and the SMS sender. */
  auth: AuthRuntime;
  /** Console: plans and limits, the shared-store rate limiter, and the buffered usage counters. */
  console: { settings: ConsoleSettings; limiter: RateLimiter; ledger: UsageLedger };
  /** Resolved API keys and sessions; revoking a credential goes through it (credential-cache.ts). */
  credentials: CredentialCache;
  /** Tells every instance's caches about revocations and plan changes. */
  invalidations: InvalidationBus;
  secrets: ServerSecrets;
  lifecycle: Lifecycle;
  /** DNS for webhook targets; tests inject one to simulate rebinding (the system resolver when unset). */
  hostResolver?: HostResolver;
  /** Writes buffered usage, then closes the shared store and the database; the HTTP server is closed before this. */
  close(): Promise<void>;
}

export interface DepsOptions {
  clock?: Clock;
  log?: Logger;
  /** Prefix for shared-store keys (tests use one per server so they can share a Redis). */
  keyPrefix?: string;
  hostResolver?: HostResolver;
}

/**
 * Opens the database and the shared store and assembles {@link AppDeps}. Does not migrate: `serve`
 * and `migrate` decide that.
 * @example
 * const deps = await createDeps(loadConfig());
 */
export async function createDeps(config: Config, options: DepsOptions = {}): Promise<AppDeps> {
  const log = options.log ?? createLogger({ level: config.logLevel });
  const secrets = resolveSecrets(config);
  const clock = options.clock ?? systemClock;
  const auth = createAuthRuntime(config, { clock, log });
  const consoleConfig = consoleSettings(config);
  const { db, dialect, close: closeDb } = openDatabase(config.databaseUrl);
  let store: SharedStore;
  try {
    store = await openSharedStore({ redisUrl: config.redisUrl, redisClusterNodes: config.redisClusterNodes, redisLimits: config.redisLimits, keyPrefix: options.keyPrefix, clock, log });
  } catch (error) {
    await closeDb();
    throw error;
  }
  const limiter = new RateLimiter(store);
  let invalidations: InvalidationBus;
  try {
    invalidations = await InvalidationBus.open(store, log);
  } catch (error) {
    await store.close();
    await closeDb();
    throw error;
  }
  const credentials = new CredentialCache(invalidations, { ttlMs: auth.settings.credentialCacheMs });
  const ledger = new UsageLedger(db, log, invalidations, { flushIntervalMs: consoleConfig.usageFlushIntervalMs });
  return {
    config,
    clock,
    log,
    db,
    dialect,
    store,
    datasetMeta: createDatasetMetaSource(db),
    access: createAccessResolver({
      apiKeys: createApiKeyVerifier(db, clock, credentials),
      sessions: createSessionLookup(db, clock, auth.settings.session, credentials),
    }),
    metering: createMetering({ clock, limiter, ledger, settings: consoleConfig }),
    auth,
    console: { settings: consoleConfig, limiter, ledger },
    credentials,
    invalidations,
    secrets,
    lifecycle: { shuttingDown: false },
    hostResolver: options.hostResolver,
    async close() {
      await ledger.close();
      await invalidations.close();
      await store.close();
      await closeDb();
    },
  };
}
