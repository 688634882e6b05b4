import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer } from "../../../../testing/index.ts";
import { OPEN_VERSION } from "../../model/entities.ts";
import { importDataset } from "../import.ts";
import { currentVersion } from "../../model/versions.ts";
import type { MaterialisedDataset } from "./demo.ts";
import { decodeDocument, ir21Dataset, mixedDataset, normaliseMnc, readIr21Documents } from "./ir21.ts";
import { referenceDataset } from "./reference.ts";

/**
 * IR.21 fidelity (docs/ir21-format.md): the hand-written RAEX document fixtures/ir21/KENSA-fidelity.xml
 * exercises each rule; every expected value below is read off that file by hand.
 */

const fixture = fileURLToPath(new URL("../../../../fixtures/ir21/KENSA-fidelity.xml", import.meta.url));
const xml = readFileSync(fixture, "utf8");

let dir: string;
let reference: MaterialisedDataset;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ir21-fidelity-"));
  reference = (await referenceDataset()).candidate;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  const folder = mkdtempSync(join(dir, "doc-"));
  writeFileSync(join(folder, name), content);
  return folder;
}

const day = (d: string) => `${d}T00:00:00.000Z`;

describe("IR.21 XML reading", () => {
  it("reads every RoutingInfo block and every E.212 series, MNC 002 and 02 being one network", () => {
    const [doc] = readIr21Documents([fixture]);
    const dataset = ir21Dataset([doc!], reference);
    expect(dataset.networks.map((n) => n.id)).toEqual(["639-02", "639-15"]);
    const ranges = dataset.numberRanges.filter((r) => r.plan === "e164").map((r) => [r.id, r.network_id, r.range_holder]);
    expect(ranges).toEqual([
      ["e164-254110000000-254110499999", "639-02", "Safaricom Limited"],
      ["e164-25470", "639-02", "Safaricom Limited"],
      // The second RoutingInfo block's range keeps its holder.
      ["e164-25479", "639-02", "Safaricom Limited"],
    ]);
    expect(dataset.networks.find((n) => n.id === "639-15")).toMatchObject({ tadig: "KENSA", operator_id: "ke.safaricom" });
  });

  it("decodes character references and entities", () => {
    const [doc] = readIr21Documents([fixture]);
    expect(doc!.document.networks[0]!.name).toBe("Safaricom \u2013 Kenya & M-PESA");
  });

  it("accepts UTF-16 with a byte-order mark, either byte order, as the same document", () => {
    const utf16 = xml.replace('encoding="UTF-8"', 'encoding="UTF-16"');
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(utf16, "utf16le")]);
    const be = Buffer.from(le);
    for (let i = 0; i < be.length; i += 2) [be[i], be[i + 1]] = [be[i + 1]!, be[i]!];
    expect(decodeDocument(le)).toBe(utf16);
    expect(decodeDocument(be)).toBe(utf16);
    const [plain] = readIr21Documents([fixture]);
    const [fromLe] = readIr21Documents([write("KENSA.xml", le)]);
    expect(fromLe!.document).toEqual(plain!.document);
  });

  it("models each section with its own effective date and reports the sections it does not model", () => {
    const [doc] = readIr21Documents([fixture]);
    const network = "OrganisationInfo/NetworkList/Network[KENSA]/NetworkData";
    expect(doc!.unmodelled).toEqual([
      "RAEXIR21FileHeader/TADIGGenSchemaVersion",
      `${network}/InternationalSCCPGatewaySection`,
      `${network}/USSDInfoSection`,
      `${network}/IPRoaming_IW_InfoSection`,
      `${network}/ContactInfoSection (personal data, never read)`,
    ]);
    const dataset = ir21Dataset([doc!], reference);
    const caps = new Map(dataset.capabilities.filter((c) => c.network_id === "639-02").map((c) => [c.name, c]));
    const expected: [string, unknown, string][] = [
      [
        "routing.msrn_ranges",
        [
          { cc: "254", ndc: "7229", sn_start: "00000", sn_stop: "49999" },
          { cc: "254", ndc: "7228", sn_start: "50000", sn_stop: "99999" },
        ],
        "2026-09-15",
      ],
      ["routing.gt_ranges", [{ cc: "254", ndc: "722", sn_start: "000000", sn_stop: "000999" }], "2026-09-15"],
      ["routing.e214_mgt", [{ cc: "254", nc: "722" }], "2026-09-15"],
      ["sccp.protocols", ["ETSI"], "2026-02-01"],
      ["map.versions", { networkLocUpContext: "v3", "shortMsgMT-RelayContext": "v2" }, "2026-08-01"],
      [
        "network.elements",
        [
          { type: "HLR", gt: "254722000100", vendor: "Example Vendor", utc_offset: "+03:00" },
          { type: "MME", ip: "192.0.2.10", diameter_identity: "mme01.epc.mnc002.mcc639.3gppnetwork.org", diameter_realm: "epc.mnc002.mcc639.3gppnetwork.org" },
        ],
        "2026-07-01",
      ],
      ["camel.phases", ["CAP2", "CAP3"], "2026-06-01"],
      [
        "camel.nodes",
        [
          { node: "MSC", inbound: ["CAP2", "CAP3"], outbound: ["CAP2"] },
          { node: "SGSN", inbound: ["CAP3"], outbound: [] },
        ],
        "2026-06-01",
      ],
      ["data.gprs", true, "2026-05-01"],
      ["data.edge", true, "2026-05-01"],
      ["data.hspa_plus", true, "2026-05-01"],
      ["data.services", ["GPRS", "EDGE", "HSPA+"], "2026-05-01"],
      ["apn.operator_identifier", ["mnc002.mcc639.gprs"], "2026-05-01"],
      ["lte.roaming", true, "2026-04-01"],
      ["lte.s6a", true, "2026-04-01"],
      ["lte.s8", true, "2026-04-01"],
      ["lte.sgs", false, "2026-04-01"],
      ["volte.s8hr", true, "2026-10-01"],
      ["volte.lbo", false, "2026-10-01"],
    ];
    for (const [name, value, date] of expected) {
      expect(caps.get(name), name).toMatchObject({ value, effective_at: day(date) });
    }
    expect([...caps.keys()].sort()).toEqual(expected.map(([name]) => name).sort());
    // Contact data is never read: nothing of it reaches any record.
    expect(JSON.stringify(dataset)).not.toMatch(/Jane Example|jane@example\.com/);
  });
});

describe("MNC normalisation", () => {
  it("brings an MNC to the length the reference data uses for its MCC", () => {
    const known = new Map([
      ["639", new Set(["02", "03"])],
      ["310", new Set(["260", "410"])],
      ["338", new Set(["05", "180"])],
    ]);
    expect(normaliseMnc("639", "002", known)).toBe("02");
    expect(normaliseMnc("639", "02", known)).toBe("02");
    expect(normaliseMnc("639", "015", known)).toBe("15");
    expect(normaliseMnc("310", "26", known)).toBe("026");
    // A mixed-length MCC only switches form to a network it knows.
    expect(normaliseMnc("338", "005", known)).toBe("05");
    expect(normaliseMnc("338", "070", known)).toBe("070");
    expect(normaliseMnc("999", "001", known)).toBe("001");
  });
});

describe("mixed mode replaces exactly what a document covers", () => {
  it("keeps the operator's other reference networks and ranges; a complete document replaces them all", () => {
    const safaricomRanges = reference.numberRanges.filter((r) => r.operator_id === "ke.safaricom").map((r) => r.id);
    // Independent reference: the reference data's own Safaricom networks and ranges.
    expect(reference.networks.filter((n) => n.operator_id === "ke.safaricom").map((n) => n.id)).toEqual(["639-01", "639-02"]);
    expect(safaricomRanges).toEqual(expect.arrayContaining(["e164-25411", "e164-25470", "e164-25471", "e164-25479"]));

    const docs = readIr21Documents([fixture]);
    const mixed = mixedDataset(docs, reference);
    const networks = new Map(mixed.networks.map((n) => [n.id, n]));
    expect(networks.get("639-01")?.source).toBe(reference.networks.find((n) => n.id === "639-01")!.source);
    expect(networks.get("639-02")).toMatchObject({ source: "ir21:KENSA", tadig: "KENSA" });
    expect(networks.has("639-002")).toBe(false);
    const ranges = new Map(mixed.numberRanges.map((r) => [r.id, r]));
    for (const id of safaricomRanges.filter((id) => !["e164-25470", "e164-25479"].includes(id))) {
      expect(ranges.get(id)?.source, id).toBe("libphonenumber-carrier");
    }
    expect(ranges.get("e164-25470")?.source).toBe("ir21:KENSA");
    // Other operators are untouched.
    expect(mixed.numberRanges.filter((r) => r.operator_id === "ke.bharti-airtel")).toEqual(reference.numberRanges.filter((r) => r.operator_id === "ke.bharti-airtel"));

    const complete = readIr21Documents([write("KENSA.xml", xml.replace("<tadig-raex-21:FileVersion>7</tadig-raex-21:FileVersion>", "<tadig-raex-21:FileVersion>7</tadig-raex-21:FileVersion><tadig-raex-21:Complete>true</tadig-raex-21:Complete>"))]);
    expect(complete[0]!.document.document.complete).toBe(true);
    const whole = mixedDataset(complete, reference);
    expect(whole.networks.filter((n) => n.operator_id === "ke.safaricom").map((n) => n.id)).toEqual(["639-02", "639-15"]);
    expect(whole.numberRanges.filter((r) => r.operator_id === "ke.safaricom" && r.source !== "ir21:KENSA")).toEqual([]);
  });
});

describe("IR.21 end to end", () => {
  it("serves the modelled sections, resolves the IMSI, and a re-sent document with new metadata is announced", async () => {
    const server = await startTestServer({ dataset: "reference" });
    try {
      // The reference candidate is built once per file (it is what the server imported: the same packages).
      await importDataset(server.deps, mixedDataset(readIr21Documents([fixture]), reference));
      const alice = await signIn(server);
      const { headers } = await createApiKey(server, alice);

      const caps = await server.json("/v1/capabilities?network=639-02&limit=100", { headers });
      expect(caps.status).toBe(200);
      const byName = new Map((caps.body.data.items as { name: string; value: unknown; effective_at: string }[]).map((c) => [c.name, c]));
      expect(byName.get("volte.s8hr")).toMatchObject({ value: true, effective_at: day("2026-10-01") });
      expect(byName.get("routing.e214_mgt")).toMatchObject({ value: [{ cc: "254", nc: "722" }], effective_at: day("2026-09-15") });
      expect((byName.get("network.elements")!.value as unknown[]).length).toBe(2);

      const network = await server.json("/v1/networks/639-02", { headers });
      expect(network.body.data).toMatchObject({ id: "639-02", mnc: "02", tadig: "KENSA", operator_id: "ke.safaricom", name: "Safaricom \u2013 Kenya & M-PESA" });
      expect((await server.json("/v1/networks/639-002", { headers })).status).toBe(404);
      const imsi = await server.json("/v1/lookup?imsi=639020123456789", { headers });
      expect(imsi.status).toBe(200);
      expect(JSON.stringify(imsi.body.data)).toContain("639-02");
      const number = await server.json("/v1/lookup?number=%2B254790123456", { headers });
      expect(number.body.data.range_holder).toBe("Safaricom Limited");

      // Only the creation time and file version change: a new version, announced as source metadata.
      const before = (await currentVersion(server.deps.db))!;
      const resent = write(
        "KENSA.xml",
        xml.replace("2026-09-01T10:00:00Z", "2026-09-20T08:30:00Z").replace("<tadig-raex-21:FileVersion>7<", "<tadig-raex-21:FileVersion>8<"),
      );
      const again = await importDataset(server.deps, mixedDataset(readIr21Documents([resent]), reference));
      expect(again).toMatchObject({ created: true, resetReason: "source_metadata" });
      const after = (await currentVersion(server.deps.db))!;
      expect(after.version).not.toBe(before.version);
      expect(after.sourcePublishedAt).toBe(Date.parse("2026-09-20T08:30:00Z"));
      const source = after.sources.find((s) => s.id === "ir21:KENSA")!;
      expect(source.file_version).toBe("8");
      expect(source.files[0]!.sha256).not.toBe(before.sources.find((s) => s.id === "ir21:KENSA")!.files[0]!.sha256);
      const events = await server.deps.db.selectFrom("catalog_changes").select(["type", "data"]).where("dataset_version", "=", after.version).execute();
      expect(events.map((e) => [e.type, JSON.parse(e.data).reason])).toEqual([["ir21.catalog.updated", "source_metadata"]]);
      // The same file again changes nothing.
      expect(await importDataset(server.deps, mixedDataset(readIr21Documents([resent]), reference))).toMatchObject({ created: false });
      const open = await server.deps.db.selectFrom("catalog_networks").select("id").where("valid_to", "=", OPEN_VERSION).where("id", "=", "639-01").execute();
      expect(open).toHaveLength(1);
    } finally {
      await server.close();
    }
  }, 120_000);
});
