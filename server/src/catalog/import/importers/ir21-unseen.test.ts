import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApiKey, signIn, startTestServer } from "../../../../testing/index.ts";
import { runImport } from "../../../app/commands/catalog.ts";
import { auditCatalog } from "../audit.ts";
import { importDataset } from "../import.ts";
import { currentVersion } from "../../model/versions.ts";
import type { MaterialisedDataset } from "./demo.ts";
import { ir21Dataset, readIr21Documents } from "./ir21.ts";
import { referenceDataset } from "./reference.ts";

/**
 * An IR.21 document the reader was not written against (fixtures/ir21/KENSV-unseen.xml, docs/ir21-format.md
 * "Nothing dropped in silence"): every element of it is either in a stored record or named in the import
 * report. What the document holds is computed here by a small XML walk of its own (a tokenizer over the
 * text, entities expanded from the DOCTYPE here), never by the importer under test.
 */

const fixture = fileURLToPath(new URL("../../../../fixtures/ir21/KENSV-unseen.xml", import.meta.url));
const samples = fileURLToPath(new URL("../../../../samples/ir21", import.meta.url));
const xml = readFileSync(fixture, "utf8");

interface Leaf {
  path: string;
  name: string;
  text: string;
}

/** The document's leaf elements with their paths below the root (namespace prefixes dropped) and texts. */
function walk(source: string): Leaf[] {
  const entities = new Map<string, string>();
  for (const m of source.matchAll(/<!ENTITY\s+(\w+)\s+"([^"]*)">/g)) entities.set(m[1]!, m[2]!);
  const expand = (text: string): string => text.replace(/&(\w+);/g, (all, name: string) => (entities.has(name) ? expand(entities.get(name)!) : all));
  const body = source.replace(/<\?xml[^>]*\?>/, "").replace(/<!DOCTYPE[\s\S]*?\]>/, "").replace(/<!--[\s\S]*?-->/g, "");
  const leaves: Leaf[] = [];
  const stack: { name: string; hasChild: boolean; text: string }[] = [];
  for (const m of body.matchAll(/<(\/?)(?:[\w-]+:)?(\w+)[^>]*?(\/?)>|([^<]+)/g)) {
    const [, closing, name, selfClosing, text] = m;
    if (text !== undefined) {
      if (stack.length) stack.at(-1)!.text += text;
      continue;
    }
    if (closing) {
      const el = stack.pop()!;
      if (!el.hasChild) leaves.push({ path: [...stack.slice(1).map((s) => s.name), el.name].join("/"), name: el.name, text: expand(el.text.trim()) });
      continue;
    }
    if (stack.length) stack.at(-1)!.hasChild = true;
    if (selfClosing) leaves.push({ path: [...stack.slice(1).map((s) => s.name), name].join("/"), name: name!, text: "" });
    else stack.push({ name: name!, hasChild: false, text: "" });
  }
  return leaves;
}

const leaves = walk(xml);
const under = (prefix: string) => leaves.filter((l) => l.path.startsWith(`${prefix}/`) || l.path === prefix);
/** An import report path in the walk's form: no `[TADIG]`, no count, no note. */
const plain = (path: string) => path.replace(/\[[^\]]*\]/g, "").replace(/ \(.*\)$/, "");

let dir: string;
let reference: MaterialisedDataset;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ir21-unseen-"));
  reference = (await referenceDataset()).candidate;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string): string {
  const folder = mkdtempSync(join(dir, "doc-"));
  writeFileSync(join(folder, name), content);
  return folder;
}

describe("an unseen IR.21 document loses nothing in silence", () => {
  it("every element is in a stored record or named in the report, and nothing is named that the document lacks", () => {
    const [doc] = readIr21Documents([fixture]);
    const dataset = ir21Dataset([doc!], reference);
    const reported = doc!.unmodelled.map(plain);
    // Each report entry names something the document has.
    for (const path of reported) expect(leaves.some((l) => l.path === path || l.path.startsWith(`${path}/`)), path).toBe(true);

    const stored = JSON.stringify({ operators: dataset.operators, networks: dataset.networks, ranges: dataset.numberRanges, capabilities: dataset.capabilities, sources: dataset.sources }).toLowerCase();
    const msisdn = "OrganisationInfo/NetworkList/Network/NetworkData/RoutingInfoSection/RoutingInfo/CCITT_E164_NumberSeries/MSISDN_NumberRanges";
    let modelled = 0;
    let notModelled = 0;
    for (const leaf of leaves) {
      if (reported.some((r) => leaf.path === r || leaf.path.startsWith(`${r}/`))) {
        notModelled++;
        continue;
      }
      modelled++;
      // "Not applicable" markers carry no data; MSISDN parts are checked as whole ranges below.
      if (leaf.name === "SectionNA" || leaf.path.startsWith(msisdn)) continue;
      // An empty element is a flag named by its element (SupportedTechnologies/GSM).
      let value = (leaf.text === "" ? leaf.name : leaf.text).toLowerCase();
      if (/^[\s+\d]+$/.test(value)) value = value.replace(/[\s+]/g, "");
      if (/^\d{4}-\d\d-\d\dT/.test(leaf.text)) value = new Date(leaf.text).toISOString().toLowerCase();
      expect(stored.includes(value), `${leaf.path} = ${JSON.stringify(leaf.text)} is neither stored nor reported`).toBe(true);
    }
    expect(modelled + notModelled).toBe(leaves.length);
    expect(modelled).toBeGreaterThan(notModelled);

    // MSISDN ranges: CC + NDC + SN start..stop, whitespace and "+" dropped, each a stored range exactly.
    const parts = under(msisdn);
    const at = (name: string) => parts.filter((l) => l.name === name).map((l) => l.text.replace(/[\s+]/g, ""));
    const [cc, ndc, start, stop] = [at("CC"), at("NDC"), at("SN_RangeStart"), at("SN_RangeStop")];
    expect(cc.length).toBeGreaterThan(0);
    const e164 = dataset.numberRanges.filter((r) => r.plan === "e164");
    cc.forEach((c, i) => {
      const [first, last] = [`${c}${ndc[i]}${start[i]}`, `${c}${ndc[i]}${stop[i]}`];
      const covers = e164.some((r) => (r.prefix ? first.startsWith(r.prefix) && last.startsWith(r.prefix) && first.endsWith("0".repeat(first.length - r.prefix.length)) && last.endsWith("9".repeat(last.length - r.prefix.length)) : r.start === first && r.end === last));
      expect(covers, `${first}..${last}`).toBe(true);
    });

    // Personal data and credentials are named in the report, never stored.
    for (const secret of under("OrganisationInfo/NetworkList/Network/NetworkData/ContactInfoSection").concat(leaves.filter((l) => l.name === "Password"))) {
      expect(stored.includes(secret.text.toLowerCase()), secret.path).toBe(false);
    }
  });

  it("keeps network nodes, GT ranges, MAP versions, SMSoverSGs, S9, the S6a realm and the IMS APN whole", () => {
    const [doc] = readIr21Documents([fixture]);
    const dataset = ir21Dataset([doc!], reference);
    const caps = new Map(dataset.capabilities.map((c) => [c.name, c.value]));
    const data = "OrganisationInfo/NetworkList/Network/NetworkData";

    // Network nodes: the walk's NwNode leaves, in document order, grouped at each NwElementType.
    const nodeLeaves = under(`${data}/NetworkElementsInfoSection`).filter((l) => l.path.includes("/NwNode/"));
    const nodes: Record<string, string>[] = [];
    for (const l of nodeLeaves) {
      if (l.name === "NwElementType") nodes.push({});
      nodes.at(-1)![l.name] = l.text;
    }
    expect(nodes.length).toBe(2);
    const elements = caps.get("network.elements") as Record<string, string>[];
    expect(elements).toHaveLength(nodes.length);
    nodes.forEach((n, i) => {
      expect(elements[i]).toMatchObject({ type: n.NwElementType, id: n.NwNodeID, gt: `${n.CC}${n.NDC}${n.SN_RangeStart}`, vendor: n.VendorInfo, location: n.Location, utc_offset: n.UTCTimeOffset });
      // The full GT, not the bare country code and NDC.
      expect(elements[i]!.gt!.length).toBe(n.CC!.length + n.NDC!.length + n.SN_RangeStart!.length);
    });

    const gtRange = under(`${data}/RoutingInfoSection/RoutingInfo/CCITT_E164_NumberSeries/GT_NumberRanges`);
    const gt = Object.fromEntries(gtRange.map((l) => [l.name, l.text]));
    expect(caps.get("routing.gt_ranges")).toEqual([{ cc: gt.CC, ndc: gt.NDC, sn_start: gt.SN_RangeStart, sn_stop: gt.SN_RangeStop }]);

    const map = under(`${data}/MAPGeneralInfoSection/MAPGeneralInfo`).filter((l) => l.name !== "EffectiveDateOfChange");
    expect(caps.get("map.versions")).toEqual(Object.fromEntries(map.map((l) => [l.path.split("/MAPGeneralInfo/")[1]!.replace(/\//g, "."), l.text])));

    const lte = under(`${data}/LTEInfoSection`);
    const text = (name: string) => lte.find((l) => l.name === name)!.text;
    expect(caps.get("lte.sms_over_sgs")).toBe(/^yes$/i.test(text("SMSoverSGs")));
    expect(caps.get("lte.s9")).toBe(/^yes$/i.test(text("IsS9usedForPCC")));
    expect(JSON.stringify(caps.get("lte.s9_details"))).toContain(lte.find((l) => l.path.includes("/S9/") && l.name === "HostName")!.text);
    const realm = lte.find((l) => l.path.includes("/S6a/") && l.name === "DiameterRealm")!.text;
    expect(caps.get("lte.diameter_realms")).toEqual([realm]);
    expect((caps.get("lte.s6a_details") as Record<string, string>).DiameterRealm).toBe(realm);
    expect(caps.get("ims.apn")).toBe(leaves.find((l) => l.name === "IMS_APN")!.text);
  });

  it("expands the DTD entity in the operator name and normalises the mess with a warning each", () => {
    const [doc] = readIr21Documents([fixture]);
    const name = leaves.find((l) => l.name === "OrganisationName")!.text;
    expect(name).not.toContain("&");
    expect(doc!.document.organisation.name).toBe(name);
    expect(doc!.document.document.sender_tadig).toBe(leaves.find((l) => l.name === "SenderTADIG")!.text.toUpperCase());
    const network = doc!.document.networks[0]!;
    expect(network.tadig).toBe(leaves.find((l) => l.name === "TADIGCode")!.text.toUpperCase());
    expect(leaves.some((l) => l.name === "NetworkName")).toBe(false);
    expect(network.name).toBe(leaves.find((l) => l.name === "AbbreviatedMNN")!.text);
    expect(network.msisdn_ranges[0]!.cc).toBe(leaves.find((l) => l.name === "CC")!.text.replace(/[\s+]/g, ""));
    const warnings = doc!.warnings.join("\n");
    expect(warnings).toMatch(/SenderTADIG: TADIG "kensv" read as "KENSV"/);
    expect(warnings).toMatch(/Network\[kensv\]\/TADIGCode: TADIG "kensv" read as "KENSV"/);
    expect(warnings).toMatch(/MSISDN_NumberRanges\/RangeData\/NumberRange\/CC: "\+254" read as "254"/);
    expect(warnings).toMatch(/no NetworkName; the network is named "Savanna" from AbbreviatedMNN/);
  });

  it("attributes a sample that is not ir21's own as a sample with its author's terms, ir21's own samples as CC0", () => {
    const [doc] = readIr21Documents([fixture]);
    expect(doc!.sampleMarker).toMatch(/^the comment <!-- SAMPLE IR\.21 test document/);
    const source = ir21Dataset([doc!], reference).sources.find((s) => s.id === "ir21-sample:KENSV")!;
    expect(source).toMatchObject({ sample: true, license: "NOASSERTION" });
    expect(source.attribution).not.toMatch(/shipped with ir21/);
    expect(source.attribution).toContain("not a file of ir21");

    const own = readIr21Documents([samples]);
    const ownSources = ir21Dataset(own, reference).sources.filter((s) => s.sample);
    expect(ownSources.map((s) => s.license)).toEqual(["CC0-1.0", "CC0-1.0"]);
    // The same sample with one value changed is no longer ir21's file.
    const xmlSample = readFileSync(join(samples, "SAMPLE-CHNCU-china-unicom.xml"), "utf8");
    const edited = readIr21Documents([write("CHNCU.xml", xmlSample.replace("China Unicom (SAMPLE)", "China Unicom (edited SAMPLE)"))]);
    expect(createHash("sha256").update(readFileSync(join(samples, "SAMPLE-CHNCU-china-unicom.xml"))).digest("hex")).not.toBe(edited[0]!.sha256);
    expect(ir21Dataset(edited, reference).sources.find((s) => s.sample)).toMatchObject({ license: "NOASSERTION", sample: true });
    // A document that does not mark itself is not a sample.
    const unmarked = readIr21Documents([write("KENSV.xml", xml.replace("SAMPLE IR.21 test document", "IR.21 document"))]);
    expect(unmarked[0]!.document.sample).toBe(false);
  });
});

describe("entities: internal ones expanded, external and unbounded ones refused", () => {
  const withDoctype = (subset: string, name: string) =>
    xml.replace(/<!DOCTYPE[\s\S]*?\]>/, `<!DOCTYPE tadig-raex-21:TADIGRAEXIR21 [\n${subset}\n]>`).replace("<tadig-raex-21:OrganisationName>&legal;<", `<tadig-raex-21:OrganisationName>${name}<`);
  const refused = (content: string) => {
    try {
      readIr21Documents([write("doc.xml", content)]);
    } catch (error) {
      expect(error).toMatchObject({ code: "INVALID_DATASET" });
      return (error as Error).message;
    }
    throw new Error("accepted");
  };

  it("refuses an external entity without reading it (no XXE), a parameter entity, an undeclared one and an entity bomb", () => {
    const xxe = refused(withDoctype('<!ENTITY secret SYSTEM "file:///etc/hostname">', "&secret;"));
    expect(xxe).toMatch(/external entity &secret; \(SYSTEM\) is refused/);
    expect(xxe).not.toContain(readFileSync("/etc/hostname", "utf8").trim());
    expect(refused(withDoctype('<!ENTITY % p "x">', "Savanna"))).toMatch(/parameter entity %p; is refused/);
    expect(refused(withDoctype('<!ENTITY a "A">', "&nobody; Limited"))).toMatch(/OrganisationName: entity &nobody; is not declared/);
    const bomb = ['<!ENTITY l0 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx">', ...Array.from({ length: 6 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`)].join("\n");
    expect(refused(withDoctype(bomb, "&l6;"))).toMatch(/expands to more than/);
    expect(refused(withDoctype('<!ENTITY a "&b;"><!ENTITY b "&a;">', "&a;"))).toMatch(/refers to itself/);
  });
});

describe("the unseen document through the real server", () => {
  it("serves what it modelled, lists the sample in /v1/meta and the audit, and a refused document changes nothing", async () => {
    const server = await startTestServer({ dataset: "demo" });
    try {
      const dataset = ir21Dataset(readIr21Documents([fixture]), reference);
      await importDataset(server.deps, dataset);
      const alice = await signIn(server);
      const { headers } = await createApiKey(server, alice);

      const [network, caps, meta] = await Promise.all([
        server.json("/v1/networks/639-97", { headers }),
        server.json("/v1/capabilities?network=639-97&limit=100", { headers }),
        server.json("/v1/meta", { headers }),
      ]);
      expect(network.status).toBe(200);
      expect(network.body.data).toMatchObject({ id: "639-97", tadig: leaves.find((l) => l.name === "TADIGCode")!.text.toUpperCase(), name: leaves.find((l) => l.name === "AbbreviatedMNN")!.text });
      const operator = await server.json(`/v1/operators/${network.body.data.operator_id}`, { headers });
      expect(operator.body.data.name).toBe(leaves.find((l) => l.name === "OrganisationName")!.text);
      // Served exactly as stored: every capability of the network with its value.
      const served = new Map((caps.body.data.items as { name: string; value: unknown }[]).map((c) => [c.name, c.value]));
      const expected = dataset.capabilities.filter((c) => c.network_id === "639-97");
      expect(served.size).toBe(expected.length);
      for (const c of expected) expect(served.get(c.name), c.name).toEqual(c.value);
      const elements = served.get("network.elements") as { gt: string }[];
      const gts = leaves.filter((l) => l.path.includes("/NwNode/GTAddressInfo/SN_Range/SN_RangeStart")).map((l) => `254769${l.text}`);
      expect(elements.map((e) => e.gt)).toEqual(gts);

      const source = (meta.body.data.sources as { id: string; license: string; sample: boolean; attribution: string }[]).find((s) => s.id === "ir21-sample:KENSV");
      expect(source).toMatchObject({ license: "NOASSERTION", sample: true });
      const audit = await auditCatalog(server.deps.db, server.deps.clock.now().getTime());
      expect(audit.sources.find((s) => s.id === "ir21-sample:KENSV")).toMatchObject({ license: "NOASSERTION", sample: true });

      // The command's report: every unmodelled path and every warning, each with the file.
      const printed: string[] = [];
      const log = vi.spyOn(console, "log").mockImplementation((line: string) => void printed.push(line));
      const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
      try {
        await runImport(server.deps, "ir21", [fixture]);
      } finally {
        log.mockRestore();
        errors.mockRestore();
      }
      const [doc] = readIr21Documents([fixture]);
      const report = printed.join("\n");
      for (const line of [...doc!.unmodelled, ...doc!.warnings]) expect(report).toContain(`${fixture}: ${line}`);
      expect(report).toMatch(/IR\.21 elements not modelled \(not imported\): \d+/);
      expect(report).toContain(`${fixture}: sample document (the comment <!-- SAMPLE IR.21 test document`);
      expect(report).not.toMatch(/s3cret|Otieno|amina@/);

      const before = (await currentVersion(server.deps.db))!.version;
      expect(() => readIr21Documents([write("doc.xml", xml.replace("&legal;", "&unknown;"))])).toThrow(/nothing was changed/);
      expect((await currentVersion(server.deps.db))!.version).toBe(before);
    } finally {
      await server.close();
    }
  }, 120_000);
});
