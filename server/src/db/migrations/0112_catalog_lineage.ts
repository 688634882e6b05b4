import type { Kysely } from "kysely";

/**
 * National registers and lineage on every range (docs/catalog.md "National registers"): a range's
 * source file date, the register's status of its block and the holder's identifier in the register;
 * an operator's identifiers in registers (JSON array). Existing rows: none of these (null, `[]`), which
 * is what their content hashes already assume, so nothing is announced as changed by the upgrade.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("catalog_number_ranges").addColumn("source_date", "varchar(10)").execute();
  await db.schema.alterTable("catalog_number_ranges").addColumn("block_status", "varchar(16)").execute();
  await db.schema.alterTable("catalog_number_ranges").addColumn("range_holder_id", "varchar(100)").execute();
  await db.schema.alterTable("catalog_operators").addColumn("register_ids", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ["range_holder_id", "block_status", "source_date"]) await db.schema.alterTable("catalog_number_ranges").dropColumn(column).execute();
  await db.schema.alterTable("catalog_operators").dropColumn("register_ids").execute();
}
