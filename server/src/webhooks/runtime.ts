import { cronOwner, startCron, type CronHandle } from "../jobs/cron.ts";
import type { WebhookEnv } from "./env.ts";
import { fanOutAll, type ChangeFeed } from "./fanout/fanout.ts";
import { purgeFinishedDeliveries, releaseExpiredLeases } from "./delivery/queue.ts";
import { purgeExpiredPreviousSecrets } from "./subscriptions/subscriptions.ts";
import { DeliveryWorker, type DeliveryWorkerOptions } from "./delivery/worker.ts";
import { fanOutAllToListenSessions } from "./listen/fanout.ts";
import { announceListenDeliveries } from "./listen/hub.ts";
import type { ListenSettings } from "./listen/settings.ts";
import { sweepListenSessions } from "./listen/sweep.ts";

export interface WebhookRuntime {
  worker: DeliveryWorker | null;
  /** Stops cron and the worker; in-flight deliveries finish and record their attempts. */
  stop(): Promise<void>;
}

export interface WebhookRuntimeOptions {
  /** Run a delivery worker in this process (default true). */
  worker?: boolean;
  /** Run the periodic jobs in this process (default true; the database elects one instance per slot). */
  cron?: boolean;
  /** Change feeds to fan out: the catalogue's change log, handed over by the wiring. */
  feeds: ChangeFeed[];
  /** Listen sessions' settings (listen/settings.ts). */
  listen: ListenSettings;
  /** Deliveries in flight per subscription over all workers (WEBHOOK_ENDPOINT_CONCURRENCY). */
  endpointConcurrency: number;
  workerOptions?: DeliveryWorkerOptions;
}

/**
 * The background half of webhooks: a delivery worker and the periodic jobs (fan-out pump every 5 s,
 * lease sweep every 30 s, previous-secret purge every minute, hourly purge of deliveries
 * finished more than 30 days ago; for listen sessions, a fan-out every 2 s and a sweep every 30 s). `serve` starts it beside the HTTP
 * server and stops it before the database closes; `ir21-server worker` runs it alone.
 */
export function startWebhookRuntime(env: WebhookEnv, options: WebhookRuntimeOptions): WebhookRuntime {
  const owner = cronOwner();
  const worker = options.worker === false ? null : new DeliveryWorker(env, { owner, endpointConcurrency: options.endpointConcurrency, ...options.workerOptions });
  worker?.start();
  let cron: CronHandle | null = null;
  if (options.cron !== false) {
    const now = () => env.clock.now().getTime();
    const listen = options.listen;
    cron = startCron(
      [
        ...options.feeds.map((feed) => ({ name: `webhooks.fanout.${feed.name}`, schedule: "*/5 * * * * *", run: () => fanOutAll(env, feed) })),
        {
          name: "webhooks.lease-sweep",
          schedule: "*/30 * * * * *",
          run: async () => {
            const released = await releaseExpiredLeases(env.db, now());
            if (released > 0) env.log.warn({ released }, "webhook deliveries with expired leases released (a worker died or stalled)");
          },
        },
        { name: "webhooks.previous-secret-purge", schedule: "0 * * * * *", run: () => purgeExpiredPreviousSecrets(env.db, now()) },
        { name: "webhooks.delivery-retention", schedule: "0 17 * * * *", run: () => purgeFinishedDeliveries(env.db, { now: now() }) },
        // Listen sessions (docs/webhooks.md "Listen sessions"): catalogue changes to open sessions
        // (cheap when none is open: one indexed read), and their clean-up.
        ...options.feeds.map((feed) => ({
          name: `webhooks.listen-fanout.${feed.name}`,
          schedule: "*/2 * * * * *",
          run: async () => {
            const { sessionIds } = await fanOutAllToListenSessions(env, feed);
            await announceListenDeliveries(env, sessionIds);
          },
        })),
        { name: "webhooks.listen-sweep", schedule: "*/30 * * * * *", run: () => sweepListenSessions(env, listen) },
      ],
      { db: env.db, owner, log: env.log },
    );
  }
  return {
    worker,
    async stop() {
      await cron?.stop();
      await worker?.stop();
    },
  };
}
