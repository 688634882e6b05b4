import type { Kysely } from "kysely";
import { dialectOf } from "../db.ts";

/**
 * Range kinds are libphonenumber's number types (docs/catalog.md "Range kinds"): the longest,
 * `fixed_line_or_mobile`, needs 20 characters. SQLite does not enforce varchar lengths.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === "mysql") await db.schema.alterTable("catalog_number_ranges").modifyColumn("kind", "varchar(24)", (c) => c.notNull()).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === "mysql") await db.schema.alterTable("catalog_number_ranges").modifyColumn("kind", "varchar(8)", (c) => c.notNull()).execute();
}
