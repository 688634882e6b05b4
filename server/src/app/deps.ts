import type { Config } from "../config.ts";
import { systemClock, type Clock } from "../clock.ts";
import { createLogger, type Logger } from "../log.ts";
import { openDatabase, type Db, type Dialect } from "../db/db.ts";
import { openSharedStore, type SharedStore } from "../storage/shared-store.ts";
import { RateLimiter } from "../storage/rate-limiter.ts";
import { InvalidationBus } from "../storage/invalidations.ts";
import { createCursorSeal, type CursorSeal } from "../cursors.ts";
import { resolveSecrets, type ServerSecrets } from "../secrets.ts";
import type { AccessResolver } from "../access/access.ts";
import { CredentialCache } from "../access/credential-cache.ts";
import { createAccessResolver } from "../access/resolver.ts";
import { createMetering, type Metering } from "../metering/metering.ts";
import { meteringSettings, type MeteringSettings } from "../metering/plans.ts";
import { UsageLedger } from "../metering/usage-ledger.ts";
import type { DataApi } from "../data-api/answer.ts";
import { createAuthEnv, type AuthEnv } from "../auth/env.ts";
import { authSettings } from "../auth/settings.ts";
import { createSessionLookup } from "../auth/sessions.ts";
import { createApiKeyVerifier } from "../console/api-keys.ts";
import { consoleSettings, type ConsoleEnv } from "../console/env.ts";
import { contactSettings, type ContactEnv } from "../contact/env.ts";
import type { CatalogEnv } from "../catalog/env.ts";
import { LookupIndexes } from "../catalog/lookup/lookup-index.ts";
import { createDatasetMetaSource, type DatasetMetaSource } from "../catalog/model/dataset-meta.ts";
import type { CatalogRouteEnv } from "../catalog/routes/define.ts";
import { catalogSettings } from "../catalog/settings.ts";
import { createWebhookEnv, type WebhookEnv } from "../webhooks/env.ts";
import { ListenHub } from "../webhooks/listen/hub.ts";
import { listenSettings } from "../webhooks/listen/settings.ts";
import type { HostResolver } from "../webhooks/subscriptions/url-policy.ts";
import { openTelemetry, type Telemetry } from "../observability/telemetry.ts";
import { VERSION } from "../version.ts";

/** Process-wide state the shutdown sequence and /readyz share. */
export interface Lifecycle {
  shuttingDown: boolean;
}

/**
 * The dependency graph, built once at start: the shared parts (database, shared store, clock, log,
 * secrets), who is calling and what it costs, and each domain's narrow env made from them. Domains never
 * see this type: procedures get their domain's env through their router, routes theirs through the
 * data API, jobs theirs through their start function.
 */
export interface AppDeps {
  config: Config;
  clock: Clock;
  log: Logger;
  db: Db;
  dialect: Dialect;
  store: SharedStore;
  secrets: ServerSecrets;
  lifecycle: Lifecycle;
  /** The catalogue's versions: what every envelope's meta reports (catalog/model/dataset-meta.ts). */
  datasetMeta: DatasetMetaSource;
  /** Seals every paged listing's cursors (cursors.ts). */
  cursors: CursorSeal;
  /** Tells every instance's caches about revocations and plan changes. */
  invalidations: InvalidationBus;
  /** Resolved API keys and sessions; revoking a credential goes through it (access/credential-cache.ts). */
  credentials: CredentialCache;
  access: AccessResolver;
  /** Rate limits and quota around every /v1 query (metering/metering.ts). */
  metering: Metering;
  meteringSettings: MeteringSettings;
  limiter: RateLimiter;
  /** Buffered usage counts and the accounts' totals (metering/usage-ledger.ts). */
  ledger: UsageLedger;
  auth: AuthEnv;
  console: ConsoleEnv;
  contact: ContactEnv;
  catalog: CatalogEnv;
  webhooks: WebhookEnv;
  /** The listen streams this process holds (webhooks/listen/hub.ts). */
  listenHub: ListenHub;
  /** Prometheus metrics (METRICS_PORT) and OpenTelemetry traces (OTEL_*), each a no-op when off. */
  telemetry: Telemetry;
  /** Writes buffered usage, then closes the shared store and the database; the HTTP server is closed before this. */
  close(): Promise<void>;
}

export interface DepsOptions {
  clock?: Clock;
  log?: Logger;
  /** Prefix for shared-store keys (tests use one per server so they can share a Redis). */
  keyPrefix?: string;
  /** DNS for webhook targets; tests inject one to simulate rebinding (the system resolver when unset). */
  hostResolver?: HostResolver;
  /** Wraps the metering the data API uses (tests record what the routes report: testing/metering.ts). */
  metering?: (real: Metering) => Metering;
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
  const metered = meteringSettings(config);
  const telemetry = await openTelemetry(config, VERSION);
  const { tracing } = telemetry;
  const { db, dialect, close: closeDb } = openDatabase(config.databaseUrl, { tracing });
  let store: SharedStore;
  try {
    store = await openSharedStore({ redisUrl: config.redisUrl, redisClusterNodes: config.redisClusterNodes, redisLimits: config.redisLimits, keyPrefix: options.keyPrefix, clock, log, tracing });
  } catch (error) {
    await closeDb();
    await telemetry.close();
    throw error;
  }
  const limiter = new RateLimiter(store);
  let invalidations: InvalidationBus;
  try {
    invalidations = await InvalidationBus.open(store, log);
  } catch (error) {
    await store.close();
    await closeDb();
    await telemetry.close();
    throw error;
  }
  const cursors = createCursorSeal(secrets.session);
  const accounts = authSettings(config);
  const credentials = new CredentialCache(invalidations, { ttlMs: accounts.credentialCacheMs });
  const auth = createAuthEnv(config, accounts, { db, clock, log, otpPepper: secrets.otpPepper, revocations: credentials, limiter });
  const ledger = new UsageLedger(db, log, invalidations, { flushIntervalMs: metered.usageFlushIntervalMs });
  const realMetering = createMetering({ clock, limiter, ledger, settings: metered });
  const datasetMeta = createDatasetMetaSource(db);
  const lifecycle: Lifecycle = { shuttingDown: false };
  const webhooks = createWebhookEnv({
    config,
    secrets,
    db,
    clock,
    log,
    cursors,
    invalidations,
    hostResolver: options.hostResolver,
    telemetry: { metrics: telemetry.metrics, tracing },
    catalogVersion: async () => (await datasetMeta.current()).dataset_version,
  });
  return {
    config,
    clock,
    log,
    db,
    dialect,
    store,
    secrets,
    lifecycle,
    datasetMeta,
    cursors,
    invalidations,
    credentials,
    access: createAccessResolver({
      apiKeys: createApiKeyVerifier(db, clock, credentials),
      sessions: createSessionLookup(db, clock, auth.settings.session, credentials),
    }),
    metering: options.metering ? options.metering(realMetering) : realMetering,
    meteringSettings: metered,
    limiter,
    ledger,
    auth,
    console: { db, clock, log, settings: consoleSettings(config), revocations: credentials, plans: metered, ledger },
    contact: { db, clock, limiter, ...contactSettings(config) },
    catalog: {
      db,
      dialect,
      clock,
      log,
      config,
      settings: catalogSettings(config.env),
      datasetMeta,
      lookupIndexes: new LookupIndexes(db, { log }),
      snapshotUrl: `${config.publicOrigins[0]}/v1/snapshot`,
      telemetry: { metrics: telemetry.metrics, tracing },
    },
    webhooks,
    listenHub: new ListenHub(webhooks, listenSettings(config), lifecycle),
    telemetry,
    async close() {
      await ledger.close();
      await invalidations.close();
      await store.close();
      await closeDb();
      // Last: the spans of the closing statements go out too.
      await telemetry.close();
    },
  };
}

/** What the data API needs to serve the catalogue's routes (data-api/answer.ts), from the graph. */
export function catalogApi(deps: AppDeps): DataApi<CatalogRouteEnv> {
  return {
    env: { db: deps.db, clock: deps.clock, lookupIndexes: deps.catalog.lookupIndexes },
    versions: deps.catalog.datasetMeta,
    access: deps.access,
    metering: deps.metering,
    cursors: deps.cursors,
    config: deps.config,
    log: deps.log,
    metrics: deps.telemetry.metrics,
  };
}
