import { EventEmitter } from "node:events";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { CursorSeal } from "../cursors.ts";
import type { Db } from "../db/db.ts";
import type { Logger } from "../log.ts";
import type { InvalidationBus } from "../storage/invalidations.ts";
import { NO_METRICS, type DeliveryMetrics } from "../observability/metrics.ts";
import type { Tracing } from "../observability/tracing.ts";
import { createSecretBox, type SecretBox, type SecretBoxKeys } from "./subscriptions/secret-box.ts";
import { createUrlPolicy, systemResolver, type HostResolver, type UrlPolicy } from "./subscriptions/url-policy.ts";

/** What the webhook services, procedures and workers share, built once per server by the wiring (app/deps.ts). */
export interface WebhookEnv {
  db: Db;
  clock: Clock;
  log: Logger;
  policy: UrlPolicy;
  box: SecretBox;
  /** Signalled when deliveries are queued, so an in-process worker starts at once instead of at its next poll. */
  queued: EventEmitter;
  /** Seals the delivery log's page cursors for their listing (cursors.ts). */
  cursors: CursorSeal;
  /** Tells every instance about waiting listen deliveries (listen/hub.ts), over Redis when there is one. */
  invalidations: Pick<InvalidationBus, "publish" | "on">;
  /** The catalogue's current dataset version, which test events carry (the wiring asks the catalogue). */
  catalogVersion(): Promise<string>;
  /** Deliveries counted and timed (METRICS_PORT) and traced (OTEL_*); no-ops when off. */
  telemetry: { metrics: DeliveryMetrics; tracing: Tracing | null };
}

/**
 * The keys sealing signing secrets (docs/webhooks.md "Secrets at rest"). Without WEBHOOK_SECRETS_KEY
 * the key derives from SESSION_SECRET, as it always did, so existing databases and the development
 * default (a generated SESSION_SECRET) keep working with no new variable. With it, the
 * SESSION_SECRET-derived key stays the last key tried to open (never to seal), so secrets sealed before
 * the variable was set still open until `ir21-server webhooks rekey` re-seals them.
 */
export function webhookSecretsKeys(config: Pick<Config, "webhookSecretsKeys">, secrets: { session: string }): SecretBoxKeys {
  const { current, previous } = config.webhookSecretsKeys;
  if (!current) return { current: secrets.session, previous };
  return { current, previous: [...previous, secrets.session] };
}

/**
 * @example
 * const webhooks = createWebhookEnv({ config, secrets, db, clock, log, cursors, invalidations });
 */
export function createWebhookEnv(deps: {
  config: Pick<Config, "webhookAllowHosts" | "webhookSecretsKeys">;
  secrets: { session: string };
  db: Db;
  clock: Clock;
  log: Logger;
  cursors: CursorSeal;
  invalidations: WebhookEnv["invalidations"];
  catalogVersion: WebhookEnv["catalogVersion"];
  hostResolver?: HostResolver;
  telemetry?: WebhookEnv["telemetry"];
}): WebhookEnv {
  const queued = new EventEmitter();
  queued.setMaxListeners(100);
  return {
    db: deps.db,
    clock: deps.clock,
    log: deps.log,
    policy: createUrlPolicy(deps.config.webhookAllowHosts, deps.hostResolver ?? systemResolver),
    box: createSecretBox(webhookSecretsKeys(deps.config, deps.secrets)),
    queued,
    cursors: deps.cursors,
    invalidations: deps.invalidations,
    catalogVersion: deps.catalogVersion,
    telemetry: deps.telemetry ?? { metrics: NO_METRICS, tracing: null },
  };
}
