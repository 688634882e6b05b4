import { EventEmitter } from "node:events";
import type { Clock } from "../clock.ts";
import { cursorSealOf, type CursorSeal } from "../cursors.ts";
import type { Db } from "../db/db.ts";
import type { AppDeps } from "../app/deps.ts";
import type { Logger } from "../log.ts";
import { createSecretBox, type SecretBox, type SecretBoxKeys } from "./subscriptions/secret-box.ts";
import { createUrlPolicy, systemResolver, type UrlPolicy } from "./subscriptions/url-policy.ts";

/** What the webhook services and workers share, derived once per server from its AppDeps. */
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
}

const envs = new WeakMap<AppDeps, WebhookEnv>();

/**
 * The keys sealing signing secrets (docs/webhooks.md "Secrets at rest"). Without WEBHOOK_SECRETS_KEY
 * the key derives from SESSION_SECRET, as it always did, so existing databases and the development
 * default (a generated SESSION_SECRET) keep working with no new variable. With it, the
 * SESSION_SECRET-derived key stays the last key tried to open (never to seal), so secrets sealed before
 * the variable was set still open until `ir21-server webhooks rekey` re-seals them.
 */
export function webhookSecretsKeys(deps: Pick<AppDeps, "config" | "secrets">): SecretBoxKeys {
  const { current, previous } = deps.config.webhookSecretsKeys;
  if (!current) return { current: deps.secrets.session, previous };
  return { current, previous: [...previous, deps.secrets.session] };
}

export function webhookEnv(deps: AppDeps): WebhookEnv {
  let env = envs.get(deps);
  if (!env) {
    env = {
      db: deps.db,
      clock: deps.clock,
      log: deps.log,
      policy: createUrlPolicy(deps.config.webhookAllowHosts, deps.hostResolver ?? systemResolver),
      box: createSecretBox(webhookSecretsKeys(deps)),
      queued: new EventEmitter(),
      cursors: cursorSealOf(deps.secrets),
    };
    env.queued.setMaxListeners(100);
    envs.set(deps, env);
  }
  return env;
}
