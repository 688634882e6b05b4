import { sql, type Kysely } from "kysely";
import { contentHash, operators, OPEN_VERSION } from "../../catalog/model/entities.ts";
import { dialectOf } from "../db.ts";

/**
 * Operators' territories (docs/catalog.md "Territories"): a JSON array of the ISO codes an operator
 * serves, its own country included. Stored rows get `["<country_iso2>"]`, what an operator of one
 * territory has, and the current rows' content hashes are recomputed with the new field: otherwise the
 * next import would announce every operator as updated with no changed field; this way only the
 * operators that really serve several territories change.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("catalog_operators").addColumn("territories", "varchar(255)", (c) => c.notNull().defaultTo("[]")).execute();
  const own = dialectOf(db) === "mysql" ? sql`concat('["', country_iso2, '"]')` : sql`'["' || country_iso2 || '"]'`;
  await db.updateTable("catalog_operators").set({ territories: own }).execute();
  const current = await db.selectFrom("catalog_operators").selectAll().where("valid_to", "=", OPEN_VERSION).execute();
  for (const row of current) {
    // The hash is the current code's: if a later migration adds another operator column, these rows
    // do not have it yet and that migration must rehash (as this one does); skip rather than store a
    // hash of a half record.
    let record: ReturnType<typeof operators.fromRow>;
    try {
      record = operators.fromRow(row as never);
    } catch {
      return;
    }
    if (!Object.keys(operators.toRow(record)).every((column) => column in row)) return;
    await db
      .updateTable("catalog_operators")
      .set({ content_hash: contentHash(operators, record) })
      .where("id", "=", row.id)
      .where("valid_from", "=", row.valid_from)
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("catalog_operators").dropColumn("territories").execute();
}
