import type { Kysely } from "kysely";
import { portableTable } from "../db.ts";

/**
 * Delivery workers' heartbeats (docs/webhooks.md "Crash recovery"): a worker is alive while its
 * `alive_until` has not passed. The per-subscription in-flight cap counts only leases held by live
 * workers, so a dead worker's leases stop blocking its subscriptions' other deliveries long before
 * they expire.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await portableTable(
    db.schema
      .createTable("webhook_workers")
      .addColumn("owner", "varchar(128)", (c) => c.primaryKey())
      .addColumn("alive_until", "bigint", (c) => c.notNull())
      .addColumn("started_at", "bigint", (c) => c.notNull()),
    db,
  ).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("webhook_workers").execute();
}
