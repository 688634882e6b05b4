import type { Kysely } from "kysely";

/**
 * Change-log retention (docs/catalog.md "Change-log retention"): when a version's events were pruned
 * from catalog_changes. /v1/changes answers a `since` before the newest pruned version with 400.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("dataset_versions").addColumn("changes_pruned_at", "bigint").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("dataset_versions").dropColumn("changes_pruned_at").execute();
}
