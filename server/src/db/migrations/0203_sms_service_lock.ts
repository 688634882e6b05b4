import type { Kysely } from "kysely";

/**
 * The `write_locks` row that every SMS send takes last, so the service-wide daily cap is counted and
 * charged by one request at a time (auth/challenges.ts `admitChallenge`, docs/auth.md "Send limits").
 * Created here rather than on first use: on a fresh MySQL database the first sends arrive together,
 * and parallel creators of one row wait on its duplicate key, then all ask to write it and deadlock
 * (1213) — retried, but enough of them at once could use up the retries.
 */
const SMS_SERVICE_LOCK = "sms-service";

export async function up(db: Kysely<any>): Promise<void> {
  await db.insertInto("write_locks").values({ name: SMS_SERVICE_LOCK, seq: 0 }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom("write_locks").where("name", "=", SMS_SERVICE_LOCK).execute();
}
