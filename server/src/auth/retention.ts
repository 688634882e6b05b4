import type { ExpressionBuilder } from "kysely";
import type { AppDeps } from "../deps.ts";
import type { Db } from "../db/db.ts";
import type { Database } from "../db/schema.ts";
import { writeTransaction } from "../db/transaction.ts";
import type { PeriodicJob } from "../jobs/cron.ts";

/**
 * Retention of the sign-in code's lock rows (docs/auth.md "Send limits"). `sms_throttle` (one row a
 * phone: its resend interval) and `sms_address_gate` (one row a client address), and on MySQL the
 * address's `write_locks` row `sms-ip:<ip>`, exist only to be locked by the request deciding a send;
 * the caps themselves are counted from `sms_challenges`. So a row can go once its phone or address
 * has been idle for a while, and comes back with the next request (challenges.ts `admitChallenge`):
 * - a phone's row a day after its resend interval ended (a phone may ask again by then anyway);
 * - an address's rows once it has asked for no code for a day (the longest per-address window).
 * Without this, every phone number and address that ever asked for a code kept a row for ever.
 */
export const SEND_GATE_IDLE_MS = 24 * 3_600_000;

/** Rows deleted per transaction, so a large backlog never holds locks for long. */
const BATCH = 500;

export interface PurgedSendGates {
  phones: number;
  addresses: number;
}

/** Deletes the idle lock rows as of `now` (the injected clock's time). */
export async function purgeIdleSendGates(db: Db, now: number): Promise<PurgedSendGates> {
  const cutoff = now - SEND_GATE_IDLE_MS;
  const purged: PurgedSendGates = { phones: 0, addresses: 0 };
  for (;;) {
    const phones = await db.selectFrom("sms_throttle").select("phone").where("next_send_at", "<", cutoff).limit(BATCH).execute();
    if (phones.length === 0) break;
    const deleted = await writeTransaction(db, (trx) =>
      trx
        .deleteFrom("sms_throttle")
        .where("phone", "in", phones.map((p) => p.phone))
        // Again here: a code sent since the read above keeps its phone's row.
        .where("next_send_at", "<", cutoff)
        .executeTakeFirst(),
    );
    purged.phones += Number(deleted.numDeletedRows);
    if (phones.length < BATCH) break;
  }
  for (;;) {
    // No challenge from the address in the last day (the index on sms_challenges (ip, created_at)).
    const idle = (eb: ExpressionBuilder<Database, "sms_address_gate">) =>
      eb.not(eb.exists(eb.selectFrom("sms_challenges").select("sms_challenges.id").whereRef("sms_challenges.ip", "=", "sms_address_gate.ip").where("sms_challenges.created_at", ">", cutoff)));
    const addresses = await db.selectFrom("sms_address_gate").select("ip").where(idle).limit(BATCH).execute();
    if (addresses.length === 0) break;
    const ips = addresses.map((a) => a.ip);
    purged.addresses += await writeTransaction(db, async (trx) => {
      // Again here: an address that asked for a code since the read above keeps its rows.
      const deleted = await trx.deleteFrom("sms_address_gate").where("ip", "in", ips).where(idle).executeTakeFirst();
      const kept = new Set((await trx.selectFrom("sms_address_gate").select("ip").where("ip", "in", ips).execute()).map((a) => a.ip));
      const gone = ips.filter((ip) => !kept.has(ip));
      if (gone.length > 0) await trx.deleteFrom("write_locks").where("name", "in", gone.map((ip) => `sms-ip:${ip}`)).execute();
      return Number(deleted.numDeletedRows);
    });
    if (addresses.length < BATCH) break;
  }
  return purged;
}

/**
 * The sign-in domain's periodic jobs, run by jobs/cron.ts like every other (one instance per slot,
 * UTC): `auth.send-gate-retention` (hourly) purges idle lock rows of code requests.
 */
export function authJobs(deps: Pick<AppDeps, "db" | "clock" | "log">): PeriodicJob[] {
  return [
    {
      name: "auth.send-gate-retention",
      schedule: "0 23 * * * *",
      async run() {
        const purged = await purgeIdleSendGates(deps.db, deps.clock.now().getTime());
        if (purged.phones > 0 || purged.addresses > 0) deps.log.info(purged, "sign-in: idle send-limit rows purged");
        return purged;
      },
    },
  ];
}
