import type { Kysely } from "kysely";
import { portableTable } from "../db.ts";

/**
 * Sign-in codes are stored before they are sent (docs/auth.md "Send limits"): a challenge whose SMS
 * the provider refused is marked `send_failed_at` — never verifiable, not counted by the send caps.
 * `sms_address_gate` holds one row per client address that asked for a code: the row a request
 * locks so that the per-address caps are checked and charged by one request at a time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("sms_challenges").addColumn("send_failed_at", "bigint").execute();
  await portableTable(db.schema.createTable("sms_address_gate").addColumn("ip", "varchar(64)", (c) => c.primaryKey()), db).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("sms_address_gate").execute();
  await db.schema.alterTable("sms_challenges").dropColumn("send_failed_at").execute();
}
