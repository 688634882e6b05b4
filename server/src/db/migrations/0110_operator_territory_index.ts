import type { Kysely } from "kysely";
import { portableTable } from "../db.ts";

/**
 * The index of operators by the countries they serve (catalog/operators/territories.ts): a table keyed
 * by country, operator and incarnation, so `GET /v1/operators?country=` and `GET /v1/countries/:iso2`
 * no longer scan every operator row to match the `territories` JSON. Filled here from every stored
 * incarnation, current and closed (a cursor can pin an older version); the import writes it from then on.
 *
 * Frozen history: the rows are made here as the catalogue made them when this migration was written
 * (one per incarnation and country it serves, its own country first), not by today's catalogue code.
 */
const TABLE = "catalog_operator_territories";

export async function up(db: Kysely<any>): Promise<void> {
  await portableTable(
    db.schema
      .createTable(TABLE)
      .addColumn("country_iso2", "varchar(2)", (c) => c.notNull())
      .addColumn("operator_id", "varchar(100)", (c) => c.notNull())
      .addColumn("valid_from", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("catalog_operator_territories_pk", ["country_iso2", "operator_id", "valid_from"]),
    db,
  ).execute();
  const stored = await db.selectFrom("catalog_operators").select(["id", "country_iso2", "territories", "valid_from"]).execute();
  const rows = stored.flatMap((o) =>
    [...new Set([o.country_iso2 as string, ...(JSON.parse(o.territories as string) as string[])])].map((country) => ({
      country_iso2: country,
      operator_id: o.id as string,
      valid_from: Number(o.valid_from),
    })),
  );
  for (let i = 0; i < rows.length; i += 500) await db.insertInto(TABLE).values(rows.slice(i, i + 500)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable(TABLE).execute();
}
