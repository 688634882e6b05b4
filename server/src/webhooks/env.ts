import { EventEmitter } from "node:events";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/db.ts";
import type { AppDeps } from "../deps.ts";
import type { Logger } from "../log.ts";
import { createSecretBox, type SecretBox } from "./secret-box.ts";
import { createUrlPolicy, systemResolver, type UrlPolicy } from "./url-policy.ts";

/** What the webhook services and workers share, derived once per server from its AppDeps. */
export interface WebhookEnv {
  db: Db;
  clock: Clock;
  log: Logger;
  policy: UrlPolicy;
  box: SecretBox;
  /** Signalled when deliveries are queued, so an in-process worker starts at once instead of at its next poll. */
  queued: EventEmitter;
}

const envs = new WeakMap<AppDeps, WebhookEnv>();

export function webhookEnv(deps: AppDeps): WebhookEnv {
  let env = envs.get(deps);
  if (!env) {
    env = {
      db: deps.db,
      clock: deps.clock,
      log: deps.log,
      policy: createUrlPolicy(deps.config.webhookAllowHosts, deps.hostResolver ?? systemResolver),
      box: createSecretBox(deps.secrets.session),
      queued: new EventEmitter(),
    };
    env.queued.setMaxListeners(100);
    envs.set(deps, env);
  }
  return env;
}
