import type { Kysely } from "kysely";

/**
 * Operator lineage and listing (docs/catalog.md "Lineage"): the successor of an operator that was
 * merged, acquired, renamed or split, the source of that fact (JSON: date, reason, reference, and the
 * per-prefix successors of a split), and whether the record appears in listings (test, unassigned and
 * composite rows do not; they still resolve by id). Existing rows: no successor, listed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("catalog_operators").addColumn("successor_id", "varchar(100)").execute();
  await db.schema.alterTable("catalog_operators").addColumn("lineage", "text").execute();
  await db.schema.alterTable("catalog_operators").addColumn("listed", "integer", (c) => c.notNull().defaultTo(1)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ["listed", "lineage", "successor_id"]) await db.schema.alterTable("catalog_operators").dropColumn(column).execute();
}
