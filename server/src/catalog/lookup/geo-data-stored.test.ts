import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../clock.ts";
import { openDatabase, type DatabaseHandle } from "../../db/db.ts";
import { migrateToLatest } from "../../db/migrate.ts";
import { createTestDatabase, type TestDatabase } from "../../../testing/databases.ts";
import { captureLogs } from "../../../testing/index.ts";
import { handDigest } from "../../../testing/libphonenumber-archives.ts";
import { geoDataOf } from "./number-geo.ts";
import { storeSourceSet } from "../import/source-sets.ts";

/**
 * The geo data a lookup index is built with comes from the libphonenumber files stored in the
 * database (docs/catalog.md "Loaded source files"). When the stored set cannot be read back whole,
 * lookups go on from the packaged data, and the operator is told why in the log.
 */

let database: TestDatabase;
let handle: DatabaseHandle;
beforeAll(async () => {
  database = await createTestDatabase();
  handle = openDatabase(database.url);
  await migrateToLatest(handle.db);
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});


describe("geoDataOf with stored libphonenumber files", () => {
  // A hand-written set in Google's layout: one carrier file and a geocoding file for +86.
  const files = new Map([
    ["carrier/en/86.txt", Buffer.from("86139|China Mobile\n")],
    ["geocoding/en/86.txt", Buffer.from("861391234|Nanjing, Jiangsu\n")],
  ]);
  const digest = handDigest(files);

  it("reads an intact set: location from its geocoding file, nothing logged", async () => {
    await storeSourceSet(handle.db, new ManualClock(), { kind: "libphonenumber", digest, version: "9.0.20", release: "9.0.20", files });
    const capture = captureLogs();
    const geo = await geoDataOf(handle.db, capture.log);
    expect(geo.imported?.digest).toBe(digest);
    expect(geo.locationOf("86", "13912345678", "MOBILE", true)).toEqual({ en: "Nanjing, Jiangsu", zh: null });
    expect(capture.entries().filter((entry) => entry.level === "warn")).toEqual([]);
  });

  it("a stored part that no longer matches its checksum: the packaged data, and a warning naming the set", async () => {
    // Another set made current whose geocoding file was damaged in storage after it was stored.
    const other = new Map([...files, ["geocoding/en/86.txt", Buffer.from("861391234|Suzhou, Jiangsu\n")]]);
    const otherDigest = handDigest(other);
    await storeSourceSet(handle.db, new ManualClock(), { kind: "libphonenumber", digest: otherDigest, version: "9.0.21", release: "9.0.21", files: other });
    await handle.db
      .updateTable("catalog_source_files")
      .set({ content: gzipSync(Buffer.from("861391234|Somewhere else\n")) })
      .where("digest", "=", otherDigest)
      .where("path", "=", "geocoding/en/86.txt")
      .execute();

    const capture = captureLogs();
    const geo = await geoDataOf(handle.db, capture.log);
    expect(geo.imported).toBeNull();
    // The package's geocoding: +86 139 1234 is Changzhou there (libphonenumber 9.0.27), not the set's Suzhou.
    expect(geo.locationOf("86", "13912345678", "MOBILE", true)?.en).toBe("Changzhou, Jiangsu");
    const warnings = capture.entries().filter((entry) => entry.level === "warn");
    expect(warnings, capture.text()).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ digest: otherDigest, msg: expect.stringMatching(/packaged data/) });
    expect(JSON.stringify(warnings[0]!.err)).toMatch(/checksum/);
  });
});
