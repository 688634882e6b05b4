import type { Kysely } from "kysely";
import { portableTable } from "../db.ts";

/** Accounts (issue 5): users, agreement evidence, SMS challenges, the per-phone send gate, sessions. */
export async function up(db: Kysely<any>): Promise<void> {
  await portableTable(
    db.schema
      .createTable("users")
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("phone", "varchar(20)", (c) => c.notNull().unique())
      .addColumn("name", "varchar(100)")
      .addColumn("plan", "varchar(32)", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull()),
    db,
  ).execute();

  await portableTable(
    db.schema
      .createTable("user_agreements")
      .addColumn("user_id", "varchar(40)", (c) => c.notNull())
      .addColumn("document", "varchar(16)", (c) => c.notNull())
      .addColumn("version", "varchar(40)", (c) => c.notNull())
      .addColumn("accepted_at", "bigint", (c) => c.notNull())
      .addColumn("ip", "varchar(64)")
      .addColumn("user_agent", "varchar(512)")
      .addPrimaryKeyConstraint("user_agreements_pk", ["user_id", "document", "version"]),
    db,
  ).execute();

  await portableTable(
    db.schema
      .createTable("sms_challenges")
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("phone", "varchar(20)", (c) => c.notNull())
      .addColumn("code_mac", "varchar(64)", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("consumed_at", "bigint")
      .addColumn("superseded_at", "bigint")
      .addColumn("ip", "varchar(64)")
      .addColumn("terms_version", "varchar(40)", (c) => c.notNull())
      .addColumn("privacy_version", "varchar(40)", (c) => c.notNull()),
    db,
  ).execute();
  // The send caps count recent challenges per phone, per address and overall.
  await db.schema.createIndex("sms_challenges_phone").on("sms_challenges").columns(["phone", "created_at"]).execute();
  await db.schema.createIndex("sms_challenges_ip").on("sms_challenges").columns(["ip", "created_at"]).execute();
  await db.schema.createIndex("sms_challenges_created_at").on("sms_challenges").column("created_at").execute();

  await portableTable(
    db.schema
      .createTable("sms_throttle")
      .addColumn("phone", "varchar(20)", (c) => c.primaryKey())
      .addColumn("next_send_at", "bigint", (c) => c.notNull()),
    db,
  ).execute();

  await portableTable(
    db.schema
      .createTable("sessions")
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("user_id", "varchar(40)", (c) => c.notNull())
      .addColumn("secret_hash", "varchar(64)", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("last_seen_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("absolute_expires_at", "bigint", (c) => c.notNull())
      .addColumn("revoked_at", "bigint")
      .addColumn("ip", "varchar(64)")
      .addColumn("user_agent", "varchar(512)"),
    db,
  ).execute();
  await db.schema.createIndex("sessions_user").on("sessions").columns(["user_id", "created_at"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["sessions", "sms_throttle", "sms_challenges", "user_agreements", "users"]) {
    await db.schema.dropTable(table).execute();
  }
}
