import type { ExpressionBuilder } from "kysely";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/db.ts";
import type { Database } from "../db/schema.ts";
import { writeTransaction } from "../db/transaction.ts";
import type { PeriodicJob } from "../jobs/cron.ts";
import type { Logger } from "../log.ts";

/**
 * Retention of the sign-in code's lock rows (docs/auth.md "Send limits"). `sms_throttle` (one row a
 * phone: its resend interval) and `sms_address_gate` (one row a client address), and on MySQL the
 * address's `write_locks` row `sms-ip:<ip>`, exist only to be locked by the request deciding a send;
 * the caps themselves are counted from `sms_challenges`. So a row can go once its phone or address
 * has been idle for a while, and comes back with the next request (challenges.ts `admitChallenge`):
 * - a phone's row a day after its resend interval ended (a phone may ask again by then anyway);
 * - an address's rows once it has asked for no code for a day (the longest per-address window).
 * Without this, every phone number and address that ever asked for a code kept a row for ever. The
 * challenges themselves go later ({@link CHALLENGE_RETENTION_MS}).
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
 * How long a sign-in code's challenge is kept after its creation (docs/auth.md "Retention"). A
 * challenge is usable for 300 s only (the contract's code validity), but old ones are still read:
 * - the send caps count challenges created in the last 24 h (per phone, per address, service-wide);
 * - the address gate's retention above looks for an address's challenges of the last 24 h;
 * - the per-phone login lockout counts wrong codes on challenges created within
 *   LOGIN_PHONE_FAILURE_WINDOW_SECONDS (at most 7 days) and after the phone's last consumed one.
 * So a challenge goes once it is older than the longest window anything can count it in (7 days,
 * whatever the configuration, so raising the lockout window never finds its history gone) plus a
 * day's grace: by then it is long expired, consumed, superseded or failed, and counts for nothing.
 */
export const CHALLENGE_RETENTION_MS = 8 * 24 * 3_600_000;

/** Deletes the challenges created more than {@link CHALLENGE_RETENTION_MS} before `now`; returns how many. */
export async function purgeOldChallenges(db: Db, now: number): Promise<number> {
  const cutoff = now - CHALLENGE_RETENTION_MS;
  let purged = 0;
  for (;;) {
    // The index on sms_challenges (created_at); the oldest first, in batches.
    const old = await db.selectFrom("sms_challenges").select("id").where("created_at", "<", cutoff).where("expires_at", "<=", now).limit(BATCH).execute();
    if (old.length === 0) break;
    const deleted = await writeTransaction(db, (trx) =>
      trx
        .deleteFrom("sms_challenges")
        .where("id", "in", old.map((c) => c.id))
        .executeTakeFirst(),
    );
    purged += Number(deleted.numDeletedRows);
    if (old.length < BATCH) break;
  }
  return purged;
}

/**
 * The sign-in domain's periodic jobs, run by jobs/cron.ts like every other (one instance per slot,
 * UTC): `auth.send-gate-retention` (hourly) purges idle lock rows of code requests,
 * `auth.challenge-retention` (hourly) the challenges older than {@link CHALLENGE_RETENTION_MS}.
 */
export function authJobs(deps: { db: Db; clock: Clock; log: Logger }): PeriodicJob[] {
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
    {
      name: "auth.challenge-retention",
      schedule: "0 37 * * * *",
      async run() {
        const challenges = await purgeOldChallenges(deps.db, deps.clock.now().getTime());
        if (challenges > 0) deps.log.info({ challenges }, "sign-in: old challenges purged");
        return { challenges };
      },
    },
  ];
}
