import type { ExpressionBuilder, Kysely } from "kysely";

/**
 * Which operators serve a country (docs/catalog.md "Territories"), as an index both databases can use.
 * `territories` is a JSON array, which neither SQLite nor MariaDB indexes by element, so matching it
 * in the operators table scanned every row. `catalog_operator_territories` (migration 0110) holds one
 * row per stored operator incarnation and country it serves (its own country and its territories),
 * written with the incarnation by the import and never changed afterwards, as the incarnation is not.
 */
export const TERRITORY_TABLE = "catalog_operator_territories";

export interface OperatorTerritoryTable {
  country_iso2: string;
  operator_id: string;
  /** The operator incarnation's valid_from: with operator_id, its primary key. */
  valid_from: number;
}

/** The index rows of stored operator incarnations (their table rows: `territories` is JSON). */
export function territoryRows(incarnations: ReadonlyArray<{ id: string; country_iso2: string; territories: string; valid_from: number }>): OperatorTerritoryTable[] {
  return incarnations.flatMap((o) =>
    [...new Set([o.country_iso2, ...(JSON.parse(o.territories) as string[])])].map((country) => ({ country_iso2: country, operator_id: o.id, valid_from: Number(o.valid_from) })),
  );
}

/** Writes the index rows of incarnations just inserted (inside the import's transaction). */
export async function insertTerritoryRows(trx: Kysely<any>, incarnations: Parameters<typeof territoryRows>[0]): Promise<void> {
  const rows = territoryRows(incarnations);
  for (let i = 0; i < rows.length; i += 500) await trx.insertInto(TERRITORY_TABLE).values(rows.slice(i, i + 500)).execute();
}

/**
 * Operator rows of incarnations that serve `country`: filed under it or one of their territories. A
 * semi-join on the index's primary key (country first), so the database reads only that country's rows.
 */
export const servesCountry = (country: string) => (eb: ExpressionBuilder<any, any>) =>
  eb(
    eb.refTuple("id", "valid_from"),
    "in",
    eb.selectFrom(TERRITORY_TABLE).select(["operator_id", "valid_from"]).where("country_iso2", "=", country).$asTuple("operator_id", "valid_from"),
  );
