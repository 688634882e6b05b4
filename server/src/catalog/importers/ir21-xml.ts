import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { Ir21DocumentInput } from "./ir21-document.ts";

/**
 * Reads the XML form of an IR.21 document into the JSON document shape (docs/ir21-format.md).
 *
 * GSMA's RAEX IR.21 schema is not public and its versions (8.x … 18.x) move elements around, so this
 * reader matches the known element names wherever they appear rather than following fixed paths:
 * RAEXIR21FileHeader (FileCreationTimestamp, TADIGRAEXIR21SchemaVersion, SenderTADIG),
 * OrganisationInfo (OrganisationName, CountryInitials), Network (TADIGCode, NetworkName, NetworkType,
 * SupportedTechnologies), CCITT_E212_NumberSeries or NetworkProperties (MCC, MNC),
 * MSISDN_NumberRanges/RangeData/NumberRange (CC, NDC, SN_Range), CAMELInfo (CAP_MSCVersion),
 * DataService2G, LTEInfoSection, EffectiveDateOfChange. Capabilities without a public element name
 * (VoLTE, 5G) use this service's extension `<Capabilities><Capability name="volte.s8hr">true</Capability>`.
 * Missing elements stay missing, so validation names them.
 */

type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  // Digits stay strings: MNC "01" is not 1.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
});

const children = (node: unknown): [string, unknown][] =>
  node && typeof node === "object" ? Object.entries(node as XmlNode).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as [string, unknown]) : [[k, v] as [string, unknown]])) : [];

/** Every element named `name` under `node` (not looking inside a match). */
function findAll(node: unknown, name: string): unknown[] {
  const found: unknown[] = [];
  for (const [key, value] of children(node)) {
    if (key.startsWith("@") || key === "#text") continue;
    if (key === name) found.push(value);
    else found.push(...findAll(value, name));
  }
  return found;
}

const find = (node: unknown, name: string): unknown => findAll(node, name)[0];

function text(node: unknown): string | undefined {
  if (node === undefined || node === null) return undefined;
  if (typeof node === "string") return node;
  if (typeof node === "object" && "#text" in (node as XmlNode)) return String((node as XmlNode)["#text"]);
  return undefined;
}

const textOf = (node: unknown, name: string) => text(find(node, name));

function capabilityValue(raw: string): boolean | number | string {
  if (raw === "true" || raw === "false") return raw === "true";
  if (/^-?\d+(?:\.\d+)?$/.test(raw) && !/^0\d/.test(raw)) return Number(raw);
  return raw;
}

const TECH_ELEMENTS: Record<string, string> = { GSM: "GSM", UMTS: "UMTS", LTE: "LTE", NR: "NR", "5G": "NR", CDMA2000: "CDMA2000", NBIOT: "NB-IOT", LTEM: "LTE-M" };

function latest(dates: (string | undefined)[]): string | undefined {
  return dates.filter((d): d is string => Boolean(d)).sort().at(-1);
}

function network(node: unknown): Record<string, unknown> {
  const plmn = find(node, "CCITT_E212_NumberSeries") ?? find(node, "NetworkProperties");
  const technologies = [...new Set(children(find(node, "SupportedTechnologies")).map(([k]) => TECH_ELEMENTS[k.toUpperCase().replace(/[^A-Z0-9]/g, "")] ?? k))];
  const msisdn = findAll(find(node, "MSISDN_NumberRanges"), "RangeData").map((rangeData) => {
    const numberRange = find(rangeData, "NumberRange") ?? rangeData;
    return {
      cc: textOf(numberRange, "CC"),
      ndc: textOf(numberRange, "NDC") ?? "",
      sn_start: textOf(numberRange, "SN_RangeStart"),
      sn_stop: textOf(numberRange, "SN_RangeStop"),
    };
  });
  const capabilities: Record<string, unknown> = {};
  const camel = [...new Set(findAll(find(node, "CAMELInfo"), "CAP_MSCVersion").map(text).filter(Boolean))].sort() as string[];
  if (camel.length) capabilities["camel.phases"] = camel;
  const dataServices = findAll(node, "DataService2G").map(text);
  if (dataServices.includes("GPRS")) capabilities["data.gprs"] = true;
  if (dataServices.includes("EDGE")) capabilities["data.edge"] = true;
  const lte = find(node, "LTEInfoSection");
  if (lte !== undefined && find(lte, "SectionNA") === undefined) capabilities["lte.roaming"] = true;
  for (const capability of findAll(find(node, "Capabilities"), "Capability")) {
    const name = (capability as XmlNode)?.["@name"];
    const value = text(capability) ?? (capability as XmlNode)?.["@value"];
    if (typeof name === "string" && typeof value === "string") capabilities[name] = capabilityValue(value);
  }
  return {
    tadig: textOf(node, "TADIGCode"),
    name: textOf(node, "NetworkName"),
    network_type: textOf(node, "NetworkType")?.toLowerCase(),
    mcc: textOf(plmn, "MCC"),
    mnc: textOf(plmn, "MNC"),
    technologies,
    msisdn_ranges: msisdn,
    capabilities,
    effective_date: latest(findAll(node, "EffectiveDateOfChange").map(text)),
  };
}

/**
 * The document in JSON form, or the XML's syntax problem. The result still has to pass
 * {@link Ir21Document} validation.
 */
export function ir21FromXml(xml: string): { document: Ir21DocumentInput } | { problems: string[] } {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) return { problems: [`not well-formed XML at line ${valid.err.line}: ${valid.err.msg}`] };
  const parsed = parser.parse(xml) as XmlNode;
  const root = find(parsed, "TADIGRAEXIR21");
  if (root === undefined) return { problems: ["not an IR.21 document: no TADIGRAEXIR21 root element"] };
  const header = find(root, "RAEXIR21FileHeader");
  const organisation = find(root, "OrganisationInfo");
  const networkList = find(root, "NetworkList") ?? root;
  const networks = findAll(networkList, "Network").map(network);
  const created = textOf(header, "FileCreationTimestamp");
  const sampleFlag = textOf(header, "Sample") ?? (root as XmlNode)["@sample"];
  return {
    document: {
      format: "ir21-json/1",
      sample: sampleFlag === "true",
      document: {
        sender_tadig: textOf(header, "SenderTADIG") as string,
        created_at: created as string,
        effective_date: (latest(findAll(root, "EffectiveDateOfChange").map(text)) ?? created?.slice(0, 10)) as string,
        schema_version: textOf(header, "TADIGRAEXIR21SchemaVersion"),
      },
      organisation: {
        name: textOf(organisation, "OrganisationName") as string,
        country: textOf(organisation, "CountryInitials") as string,
      },
      networks: networks as never,
    },
  };
}
