import { currentVersionStamp } from "../catalog/model/versions.ts";
import { pingDatabase } from "../db/db.ts";
import type { ScrapeReadings } from "../observability/metrics.ts";
import { queueSummary } from "../webhooks/delivery/queue.ts";
import { countOpenListenSessions } from "../webhooks/listen/sessions.ts";
import type { AppDeps } from "./deps.ts";

/**
 * What a scrape reads at the moment it is made (the gauges of docs/operations.md "Metrics and traces"):
 * the database's answer to a SELECT 1, the Redis circuit, the delivery queue, listen sessions and the
 * current dataset version. The database readings are skipped when the database did not answer, so a
 * scrape during an outage is quick and says `ir21_database_up 0`.
 */
export function metricsReadings(deps: Pick<AppDeps, "db" | "clock" | "store" | "listenHub">): () => Promise<ScrapeReadings> {
  return async () => {
    const database = await pingDatabase(deps.db);
    const circuit = deps.store.circuit;
    const redis = circuit ? { up: circuit.state === "closed", ...circuit.counters } : null;
    const streams = deps.listenHub.sessionIds.length;
    if (!database.up) return { database, redis, queue: null, listen: { openSessions: null, streams }, dataset: null };
    const now = deps.clock.now().getTime();
    const [queue, openSessions, dataset] = await Promise.all([
      queueSummary(deps.db, now).catch(() => null),
      countOpenListenSessions(deps.db).catch(() => null),
      currentVersionStamp(deps.db).catch(() => null),
    ]);
    return { database, redis, queue, listen: { openSessions, streams }, dataset };
  };
}
