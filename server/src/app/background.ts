import { authJobs } from "../auth/retention.ts";
import { catalogChangeFeed } from "../catalog/changes/feed.ts";
import type { ChangeLogReader } from "../catalog/jobs.ts";
import { startCatalog } from "../catalog/start.ts";
import { cronOwner, startCron } from "../jobs/cron.ts";
import { feedPosition } from "../webhooks/fanout/fanout.ts";
import { startWebhookRuntime, type WebhookRuntime } from "../webhooks/runtime.ts";
import type { AppDeps } from "./deps.ts";

/**
 * The background work of `serve` and `worker`, wired from the domains' own start functions: the
 * catalogue's change log is the webhook fan-out's outbox, so the catalogue's retention never prunes
 * past what the fan-out has read, and the fan-out reads the catalogue's feed.
 */
export const changeLogReader = (deps: Pick<AppDeps, "db">): ChangeLogReader => () => feedPosition(deps.db, catalogChangeFeed.name);

/** The catalogue's first-start import and jobs (catalog/start.ts). */
export const startCatalogue = (deps: AppDeps) => startCatalog(deps.catalog, changeLogReader(deps));

/** Sign-in's clean-up jobs (auth/retention.ts); the database elects one instance per slot. */
export const startAuthJobs = (deps: AppDeps) => startCron(authJobs(deps.auth), { db: deps.db, owner: cronOwner(), log: deps.log });

/**
 * Webhook delivery and its periodic jobs (webhooks/runtime.ts) over the catalogue's change log.
 * @example
 * const webhooks = startWebhooks(deps, { worker: true });
 */
export function startWebhooks(deps: AppDeps, options: { worker?: boolean } = {}): WebhookRuntime {
  if (deps.config.production && !deps.config.webhookSecretsKeys.current) {
    deps.log.warn('WEBHOOK_SECRETS_KEY is unset: webhook signing secrets are sealed under SESSION_SECRET (docs/webhooks.md "Secrets at rest")');
  }
  return startWebhookRuntime(deps.webhooks, {
    worker: options.worker,
    feeds: [catalogChangeFeed],
    listen: deps.listenHub.settings,
    endpointConcurrency: deps.config.webhookEndpointConcurrency,
  });
}
