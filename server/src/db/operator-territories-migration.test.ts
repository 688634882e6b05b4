import { Migrator, type Migration } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contentHash, OPEN_VERSION, operators } from "../catalog/model/entities.ts";
import { demoDataset } from "../catalog/import/importers/demo.ts";
import { createTestDatabase, type TestDatabase } from "../../testing/databases.ts";
import { openDatabase, type DatabaseHandle } from "./db.ts";
import { migrateToLatest } from "./migrate.ts";
import { migrations } from "./migrations/index.ts";

/**
 * 0107_operator_territories on a database that already holds operators: each gets its own country as
 * its territories and a content hash that equals the one a re-import computes, so the next import of
 * the same data announces no operator change (docs/catalog.md "Territories"); and 0110 then indexes
 * them by the countries they serve.
 */
let database: TestDatabase;
let handle: DatabaseHandle;
beforeAll(async () => {
  database = await createTestDatabase();
  handle = openDatabase(database.url);
  const { "0107_operator_territories": _later, "0110_operator_territory_index": _index, ...before } = migrations;
  const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async (): Promise<Record<string, Migration>> => before }, allowUnorderedMigrations: true });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
});
afterAll(async () => {
  await handle.close();
  await database.drop();
});

describe("migration 0107_operator_territories", () => {
  it("backfills [country] and rehashes the current rows, closed rows keep their hash", async () => {
    const db = handle.db as any;
    const demo = demoDataset().operators;
    const stored = demo.map((o, i) => ({
      id: o.id,
      source: o.source,
      dataset_version: "2026-01-01.000001",
      content_hash: `old-hash-${i}`,
      valid_from: 1,
      valid_to: i === 0 ? 2 : OPEN_VERSION,
      country_iso2: o.country_iso2,
      name: o.name,
      name_local: o.name_local,
      brand: o.brand,
      tadig: o.tadig,
      status: o.status,
    }));
    await db.insertInto("catalog_operators").values(stored).execute();
    await migrateToLatest(handle.db);
    const rows = await db.selectFrom("catalog_operators").selectAll().orderBy("id").execute();
    expect(rows).toHaveLength(demo.length);
    for (const row of rows) {
      const original = demo.find((o) => o.id === row.id)!;
      expect(JSON.parse(row.territories)).toEqual([original.country_iso2]);
      if (Number(row.valid_to) === OPEN_VERSION) expect(row.content_hash).toBe(contentHash(operators, original));
      else expect(row.content_hash).toBe("old-hash-0");
    }
  });

  it("0110_operator_territory_index indexes every stored incarnation, closed ones too, under its country", async () => {
    const db = handle.db as any;
    const indexed = await db.selectFrom("catalog_operator_territories").selectAll().orderBy("operator_id").execute();
    expect(indexed.map((t: any) => [t.country_iso2, t.operator_id, Number(t.valid_from)])).toEqual([
      ["CN", "cn.china-mobile", 1],
      ["CN", "cn.china-telecom", 1],
      ["CN", "cn.china-unicom", 1],
      ["GB", "gb.ee", 1],
    ]);
  });
});
