import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../../testing/index.ts";
import { OPEN_VERSION } from "../../model/entities.ts";
import { importDataset } from "../import.ts";
import { buildCandidate } from "../sources.ts";
import { currentVersion, listVersions } from "../../model/versions.ts";
import { ir21Dataset, mixedDataset, readIr21Documents } from "./ir21.ts";
import { referenceDataset } from "./reference.ts";

const samples = fileURLToPath(new URL("../../../../samples/ir21", import.meta.url));
const sampleJson = readFileSync(join(samples, "SAMPLE-CHNCT-china-telecom.json"), "utf8");
const sampleXml = readFileSync(join(samples, "SAMPLE-CHNCU-china-unicom.xml"), "utf8");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ir21-docs-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));


describe("IR.21 documents", () => {
  it("reads the JSON and XML samples, both marked as samples", () => {
    const docs = readIr21Documents([samples]);
    expect(docs.map((d) => [d.document.document.sender_tadig, d.country, d.document.sample])).toEqual([
      ["CHNCT", "CN", true],
      ["CHNCU", "CN", true],
    ]);
    const unicom = docs[1]!.document;
    expect(unicom.networks[0]).toMatchObject({
      tadig: "CHNCU",
      mcc: "460",
      mnc: "01",
      network_type: "terrestrial",
      technologies: ["GSM", "UMTS", "LTE", "NR"],
      capabilities: { "camel.phases": ["CAP2", "CAP3"], "data.gprs": true, "data.edge": true, "lte.roaming": true, "volte.s8hr": true, "nr.nsa": true },
    });
    expect(unicom.networks[0]!.msisdn_ranges).toContainEqual({ cc: "86", ndc: "176", sn_start: "00000000", sn_stop: "49999999", kind: "mobile" });
  });

  it("lists every problem of every bad document and imports nothing", async () => {
    const bad = JSON.parse(sampleJson);
    bad.document.sender_tadig = "chnct";
    bad.networks[0].mcc = "46";
    bad.networks[0].msisdn_ranges[0].sn_stop = "123";
    bad.networks[0].capabilities["NotDotted"] = true;
    bad.organisation.country = "QQQ";
    writeFileSync(join(dir, "bad.json"), JSON.stringify(bad));
    writeFileSync(join(dir, "broken.xml"), sampleXml.replace("</tadig-raex-21:NetworkName>", "</tadig-raex-21:Oops>"));
    writeFileSync(join(dir, "missing.xml"), sampleXml.replace(/<tadig-gen:MCC>460<\/tadig-gen:MCC>/, ""));
    writeFileSync(join(dir, "good.json"), sampleJson.replace(/CHNCT/g, "CHNCX").replace(/"mnc": "11"/, '"mnc": "99"').replace(/"mnc": "03"/, '"mnc": "98"'));

    const server = await startTestServer({ dataset: "demo" });
    try {
      const before = await currentVersion(server.deps.db);
      let message = "";
      try {
        const { candidate } = await buildCandidate("ir21", [dir]);
        await importDataset(server.deps, candidate);
      } catch (error) {
        expect(error).toMatchObject({ code: "INVALID_DATASET" });
        message = (error as Error).message;
      }
      expect(message).toMatch(/nothing was changed/);
      expect(message).toContain("bad.json: document.sender_tadig: must be a TADIG code");
      expect(message).toContain("bad.json: networks.0.mcc: mcc must be 3 digits");
      expect(message).toContain("bad.json: networks.0.msisdn_ranges.0.sn_stop: sn_stop must have as many digits as sn_start");
      expect(message).toContain("bad.json: networks.0.capabilities.NotDotted");
      expect(message).toContain("bad.json: organisation.country: unknown country code QQQ");
      expect(message).toMatch(/broken\.xml: not well-formed XML at line \d+/);
      expect(message).toMatch(/missing\.xml: networks\.0\.mcc: /);
      expect(message).not.toContain("good.json");
      expect(await listVersions(server.deps.db, { limit: 5 })).toHaveLength(1);
      expect((await currentVersion(server.deps.db))!.version).toBe(before!.version);
    } finally {
      await server.close();
    }
  });

  it("ir21 mode keeps only the documents' operators, with reference ids", async () => {
    const reference = (await referenceDataset()).candidate;
    const dataset = ir21Dataset(readIr21Documents([samples]), reference);
    expect(dataset.sourceMode).toBe("ir21");
    expect(dataset.operators.map((o) => [o.id, o.tadig, o.source])).toEqual([
      ["cn.china-telecom", "CHNCT", "ir21-sample:CHNCT"],
      ["cn.china-unicom", "CHNCU", "ir21-sample:CHNCU"],
    ]);
    expect(dataset.sources.filter((s) => s.sample).map((s) => s.id)).toEqual(["ir21-sample:CHNCT", "ir21-sample:CHNCU"]);
    const unaligned = dataset.numberRanges.find((r) => r.id === "e164-8617600000000-8617649999999")!;
    expect(unaligned).toMatchObject({ prefix: null, start: "8617600000000", end: "8617649999999", network_id: "460-01", operator_id: "cn.china-unicom" });
    const imsi = dataset.numberRanges.find((r) => r.plan === "e212")!;
    expect(imsi).toMatchObject({ id: "e212-46011-0000000000-4999999999", mcc: "460", mnc: "11", start: "460110000000000", end: "460114999999999" });
    expect(dataset.capabilities.find((c) => c.id === "network:460-03:sms.mt")!.effective_at).toBe("2026-06-01T00:00:00.000Z");
  });

  it("mixed mode: the document wins for its operator, the reference data stays for the rest", async () => {
    const server = await startTestServer({ dataset: "reference" });
    try {
      const { candidate } = await buildCandidate("mixed", [samples]);
      const result = await importDataset(server.deps, candidate);
      expect(result).toMatchObject({ created: true, resetReason: "source_mode_changed" });
      const ranges = await server.deps.db
        .selectFrom("catalog_number_ranges")
        .select(["id", "operator_id", "source", "network_id"])
        .where("valid_to", "=", OPEN_VERSION)
        .where("country_iso2", "=", "CN")
        .execute();
      const byId = new Map(ranges.map((r) => [r.id, r]));
      expect(byId.get("e164-86133")).toMatchObject({ operator_id: "cn.china-telecom", source: "ir21-sample:CHNCT", network_id: "460-11" });
      expect(byId.get("e164-86139")).toMatchObject({ operator_id: "cn.china-mobile", source: "libphonenumber-carrier" });
      // The documents are not declared complete: China Telecom's reference ranges they do not list stay
      // (docs/ir21-format.md "Mixed mode"), still linked to the operator.
      expect(byId.get("e164-86191")).toMatchObject({ operator_id: "cn.china-telecom", source: "libphonenumber-carrier" });
      const network = await server.deps.db.selectFrom("catalog_networks").selectAll().where("valid_to", "=", OPEN_VERSION).where("id", "=", "460-11").executeTakeFirstOrThrow();
      expect(network).toMatchObject({ tadig: "CHNCT", source: "ir21-sample:CHNCT", operator_id: "cn.china-telecom" });
      const version = (await currentVersion(server.deps.db))!;
      expect(version.sourceMode).toBe("mixed");
      // The version's date is its newest source's: the document's own date is one of them, and no
      // source is newer than the version says (the packaged libraries are dated too).
      const published = version.sources.flatMap((s) => (s.published_at ? [Date.parse(s.published_at)] : []));
      expect(version.sources.some((s) => s.id.startsWith("ir21-sample:") && s.published_at === "2026-10-15T09:30:00.000Z")).toBe(true);
      expect(version.sourcePublishedAt).toBe(Math.max(...published));
      expect(version.sourcePublishedAt).toBeGreaterThanOrEqual(Date.parse("2026-10-15T09:30:00Z"));
    } finally {
      await server.close();
    }
  });
});
