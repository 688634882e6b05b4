import type { Kysely } from "kysely";

/**
 * Per-endpoint fairness (docs/webhooks.md "Fairness"): every claim counts the deliveries in flight per
 * subscription (pending rows whose lease still holds). Finished and idle rows have no lease, so this
 * index keeps that count to the handful of rows actually in flight, however long the history is.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("webhook_deliveries_in_flight").on("webhook_deliveries").columns(["lease_until", "subscription_id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("webhook_deliveries_in_flight").on("webhook_deliveries").execute();
}
