import type { Kysely } from "kysely";
import { portableTable } from "../db.ts";

/**
 * Listen sessions (docs/webhooks.md "Listen sessions"): a signed-in developer's stream that receives the
 * account's events like a subscription, its deliveries and what the forwarder reported. Attempts (of
 * subscriptions and listen sessions alike) also keep the receiver's response headers.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await portableTable(
    db.schema
      .createTable("webhook_listen_sessions")
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("user_id", "varchar(40)", (c) => c.notNull())
      .addColumn("events", "text", (c) => c.notNull())
      .addColumn("countries", "text", (c) => c.notNull())
      .addColumn("operators", "text", (c) => c.notNull())
      .addColumn("forward_to", "varchar(2048)")
      .addColumn("secret_sealed", "varchar(255)", (c) => c.notNull())
      .addColumn("status", "varchar(16)", (c) => c.notNull())
      .addColumn("end_reason", "varchar(255)")
      .addColumn("holder", "varchar(100)")
      .addColumn("lease_until", "bigint")
      .addColumn("last_seq", "bigint", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("connected_at", "bigint", (c) => c.notNull())
      .addColumn("ended_at", "bigint")
      .addColumn("updated_at", "bigint", (c) => c.notNull()),
    db,
  ).execute();
  // The cap and the listing: an account's sessions by state.
  await db.schema.createIndex("webhook_listen_sessions_user").on("webhook_listen_sessions").columns(["user_id", "status", "created_at"]).execute();
  // Fan-out and the sweep: open sessions by lease.
  await db.schema.createIndex("webhook_listen_sessions_open").on("webhook_listen_sessions").columns(["status", "lease_until"]).execute();

  await portableTable(
    db.schema
      .createTable("webhook_listen_deliveries")
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("session_id", "varchar(40)", (c) => c.notNull())
      .addColumn("user_id", "varchar(40)", (c) => c.notNull())
      .addColumn("event_id", "varchar(40)", (c) => c.notNull())
      .addColumn("event_type", "varchar(64)", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("status", "varchar(16)", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull())
      .addColumn("sent_at", "bigint")
      .addColumn("response_status", "integer")
      .addColumn("last_error", "varchar(1024)")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull()),
    db,
  ).execute();
  // One delivery per (session, event): a fan-out rerun writes nothing twice.
  await db.schema.createIndex("webhook_listen_deliveries_session_event").on("webhook_listen_deliveries").columns(["session_id", "event_id"]).unique().execute();
  // The stream's pump (pending per session) and the console's list (newest first per session).
  await db.schema.createIndex("webhook_listen_deliveries_session").on("webhook_listen_deliveries").columns(["session_id", "status", "created_at"]).execute();
  await db.schema.createIndex("webhook_listen_deliveries_list").on("webhook_listen_deliveries").columns(["session_id", "created_at", "id"]).execute();

  await db.schema.alterTable("webhook_attempts").addColumn("response_headers", "text").execute();
  await db.schema.alterTable("webhook_attempts").addColumn("response_body_truncated", "integer").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("webhook_attempts").dropColumn("response_body_truncated").execute();
  await db.schema.alterTable("webhook_attempts").dropColumn("response_headers").execute();
  await db.schema.dropTable("webhook_listen_deliveries").execute();
  await db.schema.dropTable("webhook_listen_sessions").execute();
}
