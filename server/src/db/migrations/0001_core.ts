import type { Kysely } from "kysely";
import { portableTable } from "../db.ts";

/**
 * Core tables: dataset versions (the envelope's meta comes from the current one), contact inquiries,
 * and the cron coordinator's run ledger. Times are epoch milliseconds in BIGINT columns on both dialects.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await portableTable(
    db.schema
      .createTable("dataset_versions")
      .addColumn("version", "varchar(40)", (c) => c.primaryKey())
      // Apply order; the current version is the one with the highest seq.
      .addColumn("seq", "bigint", (c) => c.notNull().unique())
      .addColumn("previous_version", "varchar(40)")
      .addColumn("source_mode", "varchar(16)", (c) => c.notNull())
      .addColumn("source_published_at", "bigint")
      .addColumn("ingested_at", "bigint", (c) => c.notNull())
      // JSON: package/file names, versions, checksums and licences of every source in this version.
      .addColumn("sources", "text", (c) => c.notNull())
      // JSON: record counts per resource, for /v1/meta.
      .addColumn("counts", "text", (c) => c.notNull()),
    db,
  ).execute();

  await portableTable(
    db.schema
      .createTable("contact_inquiries")
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("name", "varchar(100)", (c) => c.notNull())
      .addColumn("email", "varchar(254)", (c) => c.notNull())
      .addColumn("company", "varchar(200)", (c) => c.notNull())
      .addColumn("message", "text", (c) => c.notNull())
      .addColumn("user_id", "varchar(40)")
      .addColumn("ip", "varchar(64)")
      .addColumn("created_at", "bigint", (c) => c.notNull()),
    db,
  ).execute();
  await db.schema.createIndex("contact_inquiries_created_at").on("contact_inquiries").columns(["created_at", "id"]).execute();

  await portableTable(
    db.schema
      .createTable("cron_runs")
      // "<job name>:<slot ISO time>": the first instance to insert it runs the slot.
      .addColumn("run_key", "varchar(191)", (c) => c.primaryKey())
      .addColumn("owner", "varchar(100)", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull()),
    db,
  ).execute();
  await db.schema.createIndex("cron_runs_expires_at").on("cron_runs").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("cron_runs").execute();
  await db.schema.dropTable("contact_inquiries").execute();
  await db.schema.dropTable("dataset_versions").execute();
}
