import type { Kysely } from "kysely";
import { TERRITORY_TABLE, insertTerritoryRows } from "../../catalog/operators/territories.ts";
import { portableTable } from "../db.ts";

/**
 * The index of operators by the countries they serve (catalog/operator-territories.ts): a table keyed
 * by country, operator and incarnation, so `GET /v1/operators?country=` and `GET /v1/countries/:iso2`
 * no longer scan every operator row to match the `territories` JSON. Filled here from every stored
 * incarnation, current and closed (a cursor can pin an older version); the import writes it from then on.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await portableTable(
    db.schema
      .createTable(TERRITORY_TABLE)
      .addColumn("country_iso2", "varchar(2)", (c) => c.notNull())
      .addColumn("operator_id", "varchar(100)", (c) => c.notNull())
      .addColumn("valid_from", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("catalog_operator_territories_pk", ["country_iso2", "operator_id", "valid_from"]),
    db,
  ).execute();
  const stored = await db.selectFrom("catalog_operators").select(["id", "country_iso2", "territories", "valid_from"]).execute();
  await insertTerritoryRows(db, stored);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable(TERRITORY_TABLE).execute();
}
