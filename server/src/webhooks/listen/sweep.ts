import { writeTransaction } from "../../db/transaction.ts";
import type { WebhookEnv } from "../env.ts";
import { failUnreported } from "./deliveries.ts";
import { endListenSession } from "./sessions.ts";
import type { ListenSettings } from "./settings.ts";

/**
 * The periodic clean-up of listen sessions (cron, every 30 s, one instance): sessions whose holder
 * stopped renewing (the process died) end as `lease_expired`; deliveries whose report is overdue fail,
 * on every session (the holder does this itself for the streams it holds, but a stream that closed
 * leaves its last deliveries to this); sessions that ended more than the retention period ago are
 * deleted with their deliveries and attempts.
 */
export async function sweepListenSessions(env: WebhookEnv, settings: ListenSettings): Promise<{ expired: number; unreported: number; purged: number }> {
  const now = env.clock.now().getTime();
  const stale = await env.db.selectFrom("webhook_listen_sessions").select(["id", "holder"]).where("status", "=", "open").where("lease_until", "<", now).limit(500).execute();
  let expired = 0;
  for (const session of stale) {
    if (await endListenSession(env.db, { id: session.id, reason: "lease_expired", now, holder: session.holder ?? undefined })) expired++;
  }
  const unreported = await failUnreported(env.db, { now, timeoutMs: settings.reportTimeoutMs });
  const old = await env.db
    .selectFrom("webhook_listen_sessions")
    .select("id")
    .where("status", "=", "ended")
    .where("ended_at", "<", now - settings.retentionMs)
    .limit(100)
    .execute();
  if (old.length) {
    const ids = old.map((s) => s.id);
    await writeTransaction(env.db, async (trx) => {
      await trx
        .deleteFrom("webhook_attempts")
        .where("delivery_id", "in", (eb) => eb.selectFrom("webhook_listen_deliveries").select("id").where("session_id", "in", ids))
        .execute();
      await trx.deleteFrom("webhook_listen_deliveries").where("session_id", "in", ids).execute();
      await trx.deleteFrom("webhook_listen_sessions").where("id", "in", ids).execute();
    });
  }
  return { expired, unreported, purged: old.length };
}
