import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer } from "../../../../testing/index.ts";
import { runNanpaImport } from "../../../app/commands/catalog.ts";
import { currentVersion } from "../../model/versions.ts";
import { demoDataset } from "./demo.ts";
import { readNanpa, withNanpa } from "./nanpa.ts";

/**
 * NANPA reports (docs/catalog.md "NANP coverage"): fixtures/nanpa/ holds a hand-written code report
 * (allutlzd.txt, tab-separated) and block report (AllBlocksAugmentedReport.csv) in NANPA's column
 * layouts; the expected holders below are read off those files by hand.
 */

const folder = fileURLToPath(new URL("../../../../fixtures/nanpa/", import.meta.url));
const coPath = join(folder, "allutlzd.txt");
const blocksPath = join(folder, "AllBlocksAugmentedReport.csv");
const file = (path: string) => ({ path, content: readFileSync(path) });

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nanpa-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("NANPA reports", () => {
  it("reads assigned codes and thousands blocks as fixed_line_or_mobile ranges of source nanpa", () => {
    const nanpa = readNanpa(file(coPath), file(blocksPath));
    expect(nanpa.ranges.map((r) => [r.id, r.prefix, r.country_iso2, r.range_holder]).sort()).toEqual([
      ["e164-1201200", "1201200", "US", "EXAMPLE TELEPHONE CO. OF NEW JERSEY"],
      ["e164-1201201", "1201201", "US", "EXAMPLE WIRELESS LLC - NJ"],
      ["e164-12012015", "12012015", "US", "EXAMPLE CABLE PHONE OF NJ, LLC"],
      ["e164-1212203", "1212203", "US", "EXAMPLE NEW YORK TELEPHONE"],
    ]);
    expect(new Set(nanpa.ranges.map((r) => `${r.kind} ${r.source} ${r.plan} ${r.operator_id}`))).toEqual(new Set(["fixed_line_or_mobile nanpa e164 null"]));
    expect(nanpa.source).toMatchObject({ id: "nanpa", version: "2026-10-01", published_at: "2026-10-01T00:00:00.000Z", sample: false });
    expect(nanpa.source.files.map((f) => f.path)).toEqual(["allutlzd.txt", "AllBlocksAugmentedReport.csv"]);
  });

  it("files Canadian provinces and US territories under their own region", () => {
    const co = Buffer.from("State\tNPA-NXX\tOCN\tCompany\tRateCenter\tEffectiveDate\tUse\nON\t416-200\t1\tEXAMPLE ONTARIO\tTORONTO\t\tAS\nPR\t787-200\t2\tEXAMPLE PUERTO RICO\tSAN JUAN\t\tAS\n");
    expect(readNanpa({ path: "co.txt", content: co }, null).ranges.map((r) => [r.id, r.country_iso2])).toEqual([
      ["e164-1416200", "CA"],
      ["e164-1787200", "PR"],
    ]);
  });

  it("refuses a malformed report listing every problem, and stores nothing", async () => {
    const bad = join(dir, "bad.txt");
    writeFileSync(bad, "State\tNPA-NXX\tOCN\tCompany\tRateCenter\tUse\nNJ\t20-1200\t1\tX\tY\tAS\nNJ\t201-200\t1\tX\tY\tAS\nNJ\t201-200\t1\tX\tY\tAS\n");
    const noColumns = join(dir, "blocks.csv");
    writeFileSync(noColumns, "Region,State,NPA\nEast,NJ,201\n");
    expect(() => readNanpa(file(bad), file(noColumns))).toThrow(/bad\.txt:2: NPA-NXX "20-1200"[\s\S]*bad\.txt:4: NPA-NXX 201-200 is listed twice[\s\S]*blocks\.csv: not the expected report: no column "NXX", "X", "Assigned To"/);
    const server = await startTestServer({ dataset: "demo" });
    try {
      await expect(runNanpaImport(server.deps, bad, null)).rejects.toMatchObject({ code: "INVALID_DATASET" });
      expect(existsSync(join(server.deps.config.dataDir, "catalog-sources", "nanpa"))).toBe(false);
      expect(await server.deps.db.selectFrom("catalog_source_sets").select("digest").execute()).toEqual([]);
      expect(await server.deps.db.selectFrom("catalog_source_current").select("digest").execute()).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("keeps the dataset's own range where it has one", () => {
    const demo = demoDataset();
    const own = { ...demo.numberRanges[0]!, id: "e164-1201200", prefix: "1201200", country_iso2: "US", range_holder: "Reference holder" };
    const merged = withNanpa({ ...demo, numberRanges: [...demo.numberRanges, own] }, readNanpa(file(coPath), null));
    expect(merged.numberRanges.find((r) => r.id === "e164-1201200")!.range_holder).toBe("Reference holder");
    expect(merged.numberRanges.find((r) => r.id === "e164-1212203")!.source).toBe("nanpa");
  });

  it("import nanpa: a new announced version, US numbers answered with their holder, kept by later imports", async () => {
    const server = await startTestServer({ dataset: "demo" });
    try {
      const result = await runNanpaImport(server.deps, coPath, blocksPath);
      expect(result).toMatchObject({ created: true, resetReason: "sources_changed" });
      expect((await currentVersion(server.deps.db))!.sources.map((s) => s.id)).toContain("nanpa");
      const holder = async (number: string) => (await server.json(`/v1/lookup?number=${encodeURIComponent(number)}`)).body.data;
      // Longest prefix: the block's holder inside a pooled code, the code's holder elsewhere in it.
      expect(await holder("+12012015555")).toMatchObject({ range_holder: "EXAMPLE CABLE PHONE OF NJ, LLC", country_iso2: "US" });
      expect(await holder("+12012016555")).toMatchObject({ range_holder: "EXAMPLE WIRELESS LLC - NJ" });
      expect(await holder("+12122031234")).toMatchObject({ range_holder: "EXAMPLE NEW YORK TELEPHONE" });
      // The same files again: nothing changes. The demo re-imported: the stored reports still apply.
      expect(await runNanpaImport(server.deps, coPath, blocksPath)).toMatchObject({ created: false });
      const { runImport } = await import("../../../app/commands/catalog.ts");
      expect(await runImport(server.deps, "demo", [])).toMatchObject({ created: false });
      // Without the block report the blocks go, announced as changes of this version.
      const again = await runNanpaImport(server.deps, coPath, null);
      expect(again).toMatchObject({ created: true, changes: { number_ranges: { removed: 1, added: 0 } } });
      expect(await holder("+12012015555")).toMatchObject({ range_holder: "EXAMPLE WIRELESS LLC - NJ" });
    } finally {
      await server.close();
    }
  }, 60_000);
});

/**
 * Linking NANPA's holders to operators (nanpa-operators.ts): fixtures/nanpa-carriers/ holds hand-written
 * reports in NANPA's layouts (CRLF, tab-separated codes with the "In Service File Updated" column,
 * comma-separated blocks with a quoted company) naming real carriers as NANPA writes them, a wireline
 * affiliate of each group, and unknown companies. Their OCNs are illustrative: the key is the company.
 * The expected operators below are written by hand from the companies' identities, not from the table.
 */
describe("NANPA holders linked to catalogue operators", () => {
  const carriers = fileURLToPath(new URL("../../../../fixtures/nanpa-carriers/", import.meta.url));
  const co = join(carriers, "allutlzd.txt");
  const blocks = join(carriers, "AllBlocksAugmentedReport.csv");
  const expected: [string, string, string | null][] = [
    ["e164-1212910", "US", "us.verizon-wireless"],
    ["e164-12129103", "US", "us.t-mobile-us"], // a block of Verizon's code assigned to T-Mobile
    ["e164-12129104", "US", null], // a block assigned to an unknown cable company
    ["e164-1212920", "US", null], // Verizon New York, Inc.: Verizon's wireline company, not Verizon Wireless
    ["e164-1212921", "US", "us.verizon-wireless"], // the same company without a state suffix
    ["e164-1212929", "US", null],
    ["e164-1206919", "US", "us.t-mobile-us"],
    ["e164-1404917", "US", "us.at-t-mobility"],
    ["e164-1416925", "CA", "ca.bell-mobility"],
    ["e164-1416926", "CA", null], // Bell Canada: wireline, not Bell Mobility
    ["e164-1604927", "CA", "ca.telus-mobility"],
    ["e164-1647928", "CA", "ca.rogers"],
    ["e164-1340690", "VI", null], // the US Virgin Islands are their own region: a US operator's entry does not reach them
    ["e164-1913915", "US", "us.sprint"],
  ];
  let reference: Awaited<ReturnType<typeof import("./reference.ts").referenceDataset>>["candidate"];
  beforeAll(async () => {
    reference = (await (await import("./reference.ts")).referenceDataset()).candidate;
  }, 60_000);

  it("links the companies that are certainly an operator of the reference data, and no other", () => {
    const merged = withNanpa(reference, readNanpa(file(co), file(blocks)));
    const nanpa = merged.numberRanges.filter((r) => r.source === "nanpa");
    expect(nanpa.map((r) => [r.id, r.country_iso2, r.operator_id]).sort()).toEqual([...expected].sort());
    // The holder stays the company the report names.
    expect(nanpa.find((r) => r.id === "e164-1212910")!.range_holder).toBe("CELLCO PARTNERSHIP DBA VERIZON WIRELESS - NY");
    // Every linked operator is active in the reference data or (Sprint) a known inactive one, and of the range's country.
    const operators = new Map(reference.operators.map((o) => [o.id, o]));
    for (const r of nanpa.filter((r) => r.operator_id)) expect(operators.get(r.operator_id!)!.country_iso2, r.id).toBe(r.country_iso2);
  });

  it("every table entry names an operator of the reference data with a reason; without that operator the range stays unlinked", async () => {
    const { NANPA_OPERATORS, nanpaCompanyKey } = await import("./nanpa-operators.ts");
    const ids = new Set(reference.operators.map((o) => o.id));
    for (const entry of NANPA_OPERATORS) {
      expect(ids.has(entry.operator), entry.operator).toBe(true);
      expect(reference.operators.find((o) => o.id === entry.operator)!.country_iso2).toBe(entry.country);
      expect(entry.why.length, entry.company).toBeGreaterThan(30);
    }
    expect(nanpaCompanyKey("Cellco Partnership dba Verizon Wireless - NY")).toBe("CELLCO PARTNERSHIP DBA VERIZON WIRELESS");
    expect(nanpaCompanyKey("T-MOBILE USA, INC.")).toBe("T-MOBILE USA INC");
    // The demo dataset has no US operator: nothing is linked.
    expect(withNanpa(demoDataset(), readNanpa(file(co), file(blocks))).numberRanges.filter((r) => r.source === "nanpa" && r.operator_id)).toEqual([]);
  });

  it("import nanpa over the reference data: lookups answer the operator, the company stays the holder (both databases)", async () => {
    const server = await startTestServer({ dataset: "reference" });
    try {
      await runNanpaImport(server.deps, co, blocks);
      const key = (await createApiKey(server, await signIn(server))).headers;
      const lookup = async (number: string) => (await server.json(`/v1/lookup?number=${encodeURIComponent(number)}`, { headers: key })).body.data;
      expect(await lookup("+12129101234")).toMatchObject({ country_iso2: "US", range_holder: "CELLCO PARTNERSHIP DBA VERIZON WIRELESS - NY", operator: { id: "us.verizon-wireless" } });
      expect(await lookup("+12129103456")).toMatchObject({ range_holder: "T-MOBILE USA, INC.", operator: { id: "us.t-mobile-us" } });
      expect(await lookup("+12129104567")).toMatchObject({ range_holder: "EXAMPLE CABLE TELEPHONY OF NY, LLC", operator: null });
      expect(await lookup("+12129201234")).toMatchObject({ range_holder: "VERIZON NEW YORK, INC.", operator: null });
      expect(await lookup("+14169251234")).toMatchObject({ country_iso2: "CA", range_holder: "BELL MOBILITY INC.", operator: { id: "ca.bell-mobility" } });
      const ranges = await server.json("/v1/number-ranges?operator=us.verizon-wireless", { headers: key });
      expect(ranges.body.data.items.map((r: { id: string }) => r.id).sort()).toEqual(["e164-1212910", "e164-1212921"]);
      // The audit sees the links, and no territory mismatch comes with them.
      const audit = await (await import("../audit.ts")).auditCatalog(server.deps.db, server.clock.now().getTime());
      expect(audit.territory_mismatches.count).toBe(0);
    } finally {
      await server.close();
    }
  }, 180_000);
});
