import { hash } from "node:crypto";
import { sql, type Kysely } from "kysely";
import { dialectOf } from "../db.ts";

/**
 * Operators' territories (docs/catalog.md "Territories"): a JSON array of the ISO codes an operator
 * serves, its own country included. Stored rows get `["<country_iso2>"]`, what an operator of one
 * territory has, and the current rows' content hashes are recomputed with the new field: otherwise the
 * next import would announce every operator as updated with no changed field; this way only the
 * operators that really serve several territories change.
 *
 * Frozen history: the content hash below is the catalogue's as it was when this migration was written
 * (catalog/model/entities.ts `contentHash` of an operator then), copied here so that a later change of
 * the catalogue's code cannot change what this migration does.
 */

/** valid_to of a current row. */
const OPEN_VERSION = Number.MAX_SAFE_INTEGER;

/** An operator's hashed fields at this migration, in order, and the fields added to operators before it with their implicit old value. */
const OPERATOR_FIELDS = ["id", "country_iso2", "name", "name_local", "brand", "tadig", "status", "successor_id", "lineage", "listed", "territories", "source"] as const;
const ADDED_FIELDS: Record<string, unknown> = { successor_id: null, lineage: null, listed: true };

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
}

/** The operator record of a stored row, as the hash saw it. */
function operatorOf(row: Record<string, unknown>): Record<string, unknown> {
  return {
    id: row.id,
    country_iso2: row.country_iso2,
    name: row.name,
    name_local: row.name_local,
    brand: row.brand,
    tadig: row.tadig,
    status: row.status,
    successor_id: row.successor_id ?? null,
    lineage: row.lineage ? JSON.parse(row.lineage as string) : null,
    listed: Number(row.listed ?? 1) !== 0,
    territories: JSON.parse(row.territories as string),
    source: row.source,
  };
}

function contentHash(record: Record<string, unknown>): string {
  const fields = OPERATOR_FIELDS.filter((f) => !(f in ADDED_FIELDS) || canonicalJson(record[f] ?? null) !== canonicalJson(ADDED_FIELDS[f]));
  const values = fields.map((field) => record[field] ?? null);
  const flat = values.every((v) => v === null || typeof v !== "object" || (Array.isArray(v) && v.every((x) => x === null || typeof x !== "object")));
  return hash("sha1", flat ? JSON.stringify(values) : canonicalJson(values), "base64url");
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("catalog_operators").addColumn("territories", "varchar(255)", (c) => c.notNull().defaultTo("[]")).execute();
  const own = dialectOf(db) === "mysql" ? sql`concat('["', country_iso2, '"]')` : sql`'["' || country_iso2 || '"]'`;
  await db.updateTable("catalog_operators").set({ territories: own }).execute();
  const current = await db.selectFrom("catalog_operators").selectAll().where("valid_to", "=", OPEN_VERSION).execute();
  for (const row of current) {
    await db
      .updateTable("catalog_operators")
      .set({ content_hash: contentHash(operatorOf(row)) })
      .where("id", "=", row.id)
      .where("valid_from", "=", row.valid_from)
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("catalog_operators").dropColumn("territories").execute();
}
