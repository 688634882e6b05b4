import type { Kysely } from "kysely";
import { portableTable } from "../db.ts";

/** Webhook subscriptions, the events they receive, the delivery queue and every attempt (docs/webhooks.md). */
export async function up(db: Kysely<any>): Promise<void> {
  await portableTable(
    db.schema
      .createTable("webhook_subscriptions")
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("user_id", "varchar(40)", (c) => c.notNull())
      .addColumn("url", "varchar(2048)", (c) => c.notNull())
      .addColumn("events", "text", (c) => c.notNull())
      .addColumn("countries", "text", (c) => c.notNull())
      .addColumn("operators", "text", (c) => c.notNull())
      .addColumn("enabled", "integer", (c) => c.notNull())
      .addColumn("secret_sealed", "varchar(255)", (c) => c.notNull())
      .addColumn("previous_secret_sealed", "varchar(255)")
      .addColumn("previous_secret_expires_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull()),
    db,
  ).execute();
  await db.schema.createIndex("webhook_subscriptions_user").on("webhook_subscriptions").columns(["user_id", "created_at", "id"]).execute();
  await db.schema.createIndex("webhook_subscriptions_enabled").on("webhook_subscriptions").column("enabled").execute();

  await portableTable(
    db.schema
      .createTable("webhook_events")
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("type", "varchar(64)", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("source_seq", "bigint")
      .addColumn("subscription_id", "varchar(40)")
      .addColumn("created_at", "bigint", (c) => c.notNull()),
    db,
  ).execute();
  await db.schema.createIndex("webhook_events_subscription").on("webhook_events").column("subscription_id").execute();

  await portableTable(
    db.schema
      .createTable("webhook_deliveries")
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("subscription_id", "varchar(40)", (c) => c.notNull())
      .addColumn("user_id", "varchar(40)", (c) => c.notNull())
      .addColumn("event_id", "varchar(40)", (c) => c.notNull())
      .addColumn("event_type", "varchar(64)", (c) => c.notNull())
      .addColumn("status", "varchar(16)", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull())
      .addColumn("max_attempts", "integer", (c) => c.notNull())
      .addColumn("manual_retry", "integer", (c) => c.notNull())
      .addColumn("next_attempt_at", "bigint")
      .addColumn("response_status", "integer")
      .addColumn("last_error", "varchar(1024)")
      .addColumn("lease_owner", "varchar(100)")
      .addColumn("lease_until", "bigint")
      .addColumn("lease_token", "bigint", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull()),
    db,
  ).execute();
  // One delivery per (subscription, event): fan-out can be re-run without duplicating anything.
  await db.schema.createIndex("webhook_deliveries_subscription_event").on("webhook_deliveries").columns(["subscription_id", "event_id"]).unique().execute();
  // The claim query: due pending rows in time order.
  await db.schema.createIndex("webhook_deliveries_due").on("webhook_deliveries").columns(["status", "next_attempt_at"]).execute();
  // The console's list: newest first per subscription.
  await db.schema.createIndex("webhook_deliveries_list").on("webhook_deliveries").columns(["subscription_id", "created_at", "id"]).execute();

  await portableTable(
    db.schema
      .createTable("webhook_attempts")
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("delivery_id", "varchar(40)", (c) => c.notNull())
      .addColumn("attempt_no", "integer", (c) => c.notNull())
      .addColumn("kind", "varchar(16)", (c) => c.notNull())
      .addColumn("attempted_at", "bigint", (c) => c.notNull())
      .addColumn("duration_ms", "integer", (c) => c.notNull())
      .addColumn("response_status", "integer")
      .addColumn("error", "varchar(1024)")
      .addColumn("response_excerpt", "text"),
    db,
  ).execute();
  await db.schema.createIndex("webhook_attempts_delivery").on("webhook_attempts").columns(["delivery_id", "attempt_no"]).unique().execute();

  await portableTable(
    db.schema
      .createTable("webhook_fanout_cursors")
      .addColumn("name", "varchar(64)", (c) => c.primaryKey())
      .addColumn("last_seq", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull()),
    db,
  ).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["webhook_fanout_cursors", "webhook_attempts", "webhook_deliveries", "webhook_events", "webhook_subscriptions"]) {
    await db.schema.dropTable(table).execute();
  }
}
