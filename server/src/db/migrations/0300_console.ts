import type { Kysely } from "kysely";
import { portableTable } from "../db.ts";

/** Console (issue 6): API keys (hashes only) and daily usage counters. */
export async function up(db: Kysely<any>): Promise<void> {
  await portableTable(
    db.schema
      .createTable("api_keys")
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("user_id", "varchar(40)", (c) => c.notNull())
      .addColumn("name", "varchar(64)", (c) => c.notNull())
      .addColumn("prefix", "varchar(16)", (c) => c.notNull())
      .addColumn("key_hash", "varchar(64)", (c) => c.notNull().unique())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("revoked_at", "bigint")
      .addColumn("last_used_at", "bigint"),
    db,
  ).execute();
  await db.schema.createIndex("api_keys_user").on("api_keys").columns(["user_id", "created_at"]).execute();

  await portableTable(
    db.schema
      .createTable("usage_daily")
      .addColumn("user_id", "varchar(40)", (c) => c.notNull())
      .addColumn("day", "varchar(10)", (c) => c.notNull())
      .addColumn("endpoint", "varchar(100)", (c) => c.notNull())
      .addColumn("successes", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("failures", "bigint", (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint("usage_daily_pk", ["user_id", "day", "endpoint"]),
    db,
  ).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("usage_daily").execute();
  await db.schema.dropTable("api_keys").execute();
}
