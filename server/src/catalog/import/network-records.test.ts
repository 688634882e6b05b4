import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { brotliDecompressSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../../testing/index.ts";
import { FIXTURE_ROOT } from "../../../testing/libphonenumber-archives.ts";
import { runCarriersImport } from "../../app/commands/catalog.ts";
import { OPEN_VERSION } from "../model/entities.ts";
import { buildCandidate } from "./sources.ts";

/**
 * The networks through the real server (docs/catalog.md "Networks"): the mcc-mnc-list package, the
 * newer list and ARCEP's MAJMNC packaged with ir21. Every expectation is computed here from the files
 * themselves (JSON.parse, the CSV split by hand), never from the importer: every pair each file names
 * is a network served, every entry is accounted for in the import report (0 silent drops), ARCEP's
 * IMSI blocks answer their IMSIs, an IMSI whose MCC is known answers its country, and a network's or
 * operator's country does not move when carrier data is loaded.
 */

const require = createRequire(import.meta.url);
const PACKAGED = new URL("../../../data/registers/", import.meta.url);
const packaged = (path: string) => brotliDecompressSync(readFileSync(new URL(path, PACKAGED)));

interface Entry {
  mcc: string;
  mnc: string;
  countryCode: string | null;
  operator: string | null;
}
const packageList: Entry[] = require("mcc-mnc-list/mcc-mnc-list.json");
const newerList: Entry[] = JSON.parse(packaged("MCCMNC/cavoq_mcc-mnc-list_2024-09-09.json.br").toString("utf8"));
/** MAJMNC as ARCEP writes it: Latin-1, `;`, a header line; `MCC-MNC;Mnémo;Nom;Date_Attribution;Décision_Attribution`. */
const majmncLines = new TextDecoder("windows-1252").decode(packaged("FR/2026-04-20/MAJMNC.csv.br")).split(/\r?\n/);
if (majmncLines.at(-1) === "") majmncLines.pop();
const majmnc = majmncLines.slice(1).map((line) => {
  const [code, mnemo, name] = line.split(";").map((f) => f.replace(/^"|"$/g, "").trim());
  return { code: code!, mnemo: mnemo!, name: name! };
});

const plain = (e: Entry) => /^\d{3}$/.test(e.mcc) && /^\d{2,3}$/.test(e.mnc);
const pairsOf = (list: Entry[]) => new Set(list.filter(plain).map((e) => `${e.mcc}-${e.mnc}`));

let server: TestServer;
let key: Record<string, string>;
beforeAll(async () => {
  server = await startTestServer({ dataset: "reference" });
  key = (await createApiKey(server, await signIn(server))).headers;
}, 180_000);
afterAll(() => server?.close());

const currentNetworks = async () =>
  (await server.deps.db.selectFrom("catalog_networks").select(["id", "country_iso2", "operator_id"]).where("valid_to", "=", OPEN_VERSION).execute()) as { id: string; country_iso2: string; operator_id: string | null }[];
const imsi = async (digits: string) => {
  const res = await server.json(`/v1/lookup?imsi=${digits}`, { headers: key });
  expect(res.status).toBe(200);
  return res.body.data;
};

describe("networks from the MCC/MNC sources", () => {
  it("every pair of every file is a network served; nothing else is", async () => {
    const arcepPairs = new Set(majmnc.filter((r) => /^\d{5,6}$/.test(r.code)).map((r) => `${r.code.slice(0, 3)}-${r.code.slice(3)}`));
    const expected = new Set([...pairsOf(packageList), ...pairsOf(newerList), ...arcepPairs]);
    const served = new Set((await currentNetworks()).map((n) => n.id));
    expect([...expected].filter((p) => !served.has(p))).toEqual([]);
    expect([...served].filter((p) => !expected.has(p))).toEqual([]);
    expect((await server.json("/v1/meta")).body.data.counts.networks).toBe(expected.size);
    // Pairs only the newer list has (187 of them, e.g. Austria's 232-28) answer over HTTP.
    const onlyNewer = [...pairsOf(newerList)].filter((p) => !pairsOf(packageList).has(p));
    expect(onlyNewer.length).toBeGreaterThan(100);
    for (const id of onlyNewer.slice(0, 5)) expect((await server.json(`/v1/networks/${id}`, { headers: key })).status, id).toBe(200);
  });

  it("the import report accounts for every entry of every file: 0 silent drops", async () => {
    const { report, networks } = await buildCandidate("reference", [], server.deps);
    const files = [report!.networkAccounting, ...networks!.files];
    const bySource = new Map(files.map((f) => [f.source, f]));
    const total = (f: (typeof files)[number]) => f.networks + f.updated + f.confirmed + f.merged + f.imsiBlocks + f.listed.length;
    for (const f of files) {
      expect(f.silentDrops, f.file).toBe(0);
      expect(total(f), f.file).toBe(f.entries);
    }
    // Counted from the files: entries, the odd MNCs (IMSI blocks: 4 to 7 digits; listed: the rest).
    for (const [source, list] of [["mcc-mnc-list", packageList], ["register:intl-mcc-mnc-list", newerList]] as const) {
      const f = bySource.get(source)!;
      expect(f.entries).toBe(list.length);
      expect(f.imsiBlocks).toBe(list.filter((e) => /^\d{4,7}$/.test(e.mnc)).length);
      expect(f.listed.length).toBe(list.filter((e) => !plain(e) && !/^\d{4,7}$/.test(e.mnc)).length);
      // A pair repeated under other territories is merged into one network, and said so.
      expect(f.merged).toBe(list.filter(plain).length - pairsOf(list).size);
    }
    const arcep = bySource.get("register:fr-arcep-majmnc")!;
    expect(arcep.entries).toBe(majmncLines.length);
    expect(arcep.listed.map((l) => l.reason)).toEqual(["header"]);
    expect(arcep.imsiBlocks).toBe(majmnc.filter((r) => /^\d{8}$/.test(r.code)).length);
    // The package's 8 pairs that used to vanish: 6 IMSI blocks under 208, the 314 range and the two `?`.
    expect(report!.networkAccounting).toMatchObject({ imsiBlocks: 6, listed: [{ reason: "mnc_range" }, { reason: "malformed" }, { reason: "malformed" }] });
  });

  it("ARCEP's IMSI blocks answer their IMSIs with their holder; an unknown network's IMSI answers its MCC's country", async () => {
    const blocks = majmnc.filter((r) => /^\d{8}$/.test(r.code));
    expect(blocks.length).toBeGreaterThan(10);
    for (const block of blocks) {
      const answer = await imsi(`${block.code}1234567`);
      expect(answer, block.code).toMatchObject({ mcc: "208", mnc: block.code.slice(3, 5), country_iso2: "FR", range: { plan: "e212", prefix: block.code, range_holder: block.name, range_holder_id: block.mnemo } });
    }
    // The IMSI, anonymously too (public projection: the country, no range).
    expect(await imsi("208501440000001")).toMatchObject({ country_iso2: "FR", range: { prefix: "20850144" } });
    expect((await server.json("/v1/lookup?imsi=208501440000001")).body.data).toMatchObject({ imsi: "208501440000001", mcc: "208", country_iso2: "FR" });
    // An MNC under 208 that no file names: no network, but France.
    const named = new Set([...pairsOf(packageList), ...pairsOf(newerList), ...majmnc.map((r) => `${r.code.slice(0, 3)}-${r.code.slice(3, 5)}`)]);
    const free = Array.from({ length: 100 }, (_, i) => String(99 - i).padStart(2, "0")).find((mnc) => ![...named].some((p) => p.startsWith(`208-${mnc}`)))!;
    expect(free).toBeDefined();
    expect(await imsi(`208${free}0000000000`)).toMatchObject({ mcc: "208", mnc: null, country_iso2: "FR", network: null, operator: null, range: null });
    // An MCC nobody lists: nothing.
    expect(await imsi("000010000000000")).toMatchObject({ mcc: null, country_iso2: null, network: null });
  });

  it("a network's and an operator's country do not move when carrier data is loaded", async () => {
    const operators = async () =>
      new Map(
        ((await server.deps.db.selectFrom("catalog_operators").select(["id", "country_iso2"]).where("valid_to", "=", OPEN_VERSION).execute()) as { id: string; country_iso2: string }[]).map((o) => [o.id, o.country_iso2]),
      );
    const networksBefore = new Map((await currentNetworks()).map((n) => [n.id, n.country_iso2]));
    const operatorsBefore = await operators();
    // The example: the list files 340-02 under GF on its own (and under BL/GF/GP/MF/MQ).
    expect(packageList.filter((e) => e.mcc === "340" && e.mnc === "02").map((e) => e.countryCode)).toContain("GF");
    expect(networksBefore.get("340-02")).toBe("GF");
    expect(operatorsBefore.get("bl.outremer-telecom")).toBe("GF");

    await runCarriersImport(server.deps, FIXTURE_ROOT);
    try {
      const networksAfter = new Map((await currentNetworks()).map((n) => [n.id, n.country_iso2]));
      const operatorsAfter = await operators();
      expect(networksAfter.size).toBe(networksBefore.size);
      expect([...networksAfter].filter(([id, country]) => networksBefore.get(id) !== country)).toEqual([]);
      expect([...operatorsAfter].filter(([id, country]) => operatorsBefore.has(id) && operatorsBefore.get(id) !== country)).toEqual([]);
    } finally {
      await runCarriersImport(server.deps, null);
    }
    // Two whole imports (carriers loaded, then back): over a minute on MariaDB.
  }, 240_000);
});
