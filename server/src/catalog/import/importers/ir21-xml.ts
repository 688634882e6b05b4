import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { Ir21DocumentInput } from "./ir21-document.ts";

/**
 * Reads the XML form of an IR.21 document into the JSON document shape (docs/ir21-format.md).
 *
 * GSMA's RAEX IR.21 schema is not public and its versions (8.x … 18.x) move elements around, so this
 * reader matches the known element names wherever they appear under a section rather than following
 * fixed paths. Every `RoutingInfo` block is read: its MSISDN ranges belong to the block's own E.212
 * series (MCC/MNC), and every further E.212 series is a further network (PLMN) of the same TADIG.
 * Sections this service models become capabilities with their section's `EffectiveDateOfChange`;
 * every other section is reported by name (`unmodelled`) so nothing is dropped in silence.
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
  // Numeric character references (&#243; &#xF3;) and the predefined entities are decoded; without
  // this, "Telef&#243;nica" would be stored literally.
  htmlEntities: true,
});

const children = (node: unknown): [string, unknown][] =>
  node && typeof node === "object" ? Object.entries(node as XmlNode).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as [string, unknown]) : [[k, v] as [string, unknown]])) : [];

const elementChildren = (node: unknown) => children(node).filter(([k]) => !k.startsWith("@") && k !== "#text");

/** Every element named `name` (or matching) under `node` (not looking inside a match). */
function findAll(node: unknown, name: string | RegExp): unknown[] {
  const found: unknown[] = [];
  for (const [key, value] of elementChildren(node)) {
    if (typeof name === "string" ? key === name : name.test(key)) found.push(value);
    else found.push(...findAll(value, name));
  }
  return found;
}

/** Every element (key and value) whose name matches, not looking inside a match. */
function findEntries(node: unknown, name: RegExp): [string, unknown][] {
  const found: [string, unknown][] = [];
  for (const [key, value] of elementChildren(node)) {
    if (name.test(key)) found.push([key, value]);
    else found.push(...findEntries(value, name));
  }
  return found;
}

/** Every element at any depth, as key and value. */
function allEntries(node: unknown): [string, unknown][] {
  return elementChildren(node).flatMap(([key, value]) => [[key, value] as [string, unknown], ...allEntries(value)]);
}

const find = (node: unknown, name: string | RegExp): unknown => findAll(node, name)[0];

function text(node: unknown): string | undefined {
  if (node === undefined || node === null) return undefined;
  if (typeof node === "string") return node;
  if (typeof node === "object" && "#text" in (node as XmlNode)) return String((node as XmlNode)["#text"]);
  return undefined;
}

const textOf = (node: unknown, name: string | RegExp) => text(find(node, name));
const texts = (node: unknown, name: string | RegExp) => [...new Set(findAll(node, name).map(text).filter((t): t is string => Boolean(t)))];

function capabilityValue(raw: string): boolean | number | string {
  if (raw === "true" || raw === "false") return raw === "true";
  if (/^-?\d+(?:\.\d+)?$/.test(raw) && !/^0\d/.test(raw)) return Number(raw);
  return raw;
}

/** An IR.21 flag: "true"/"Yes"/"Supported" (or an empty element) is true, "false"/"No"/"Not supported" false. */
function flag(node: unknown): boolean | undefined {
  const value = text(node);
  if (value === undefined) return node === "" || (typeof node === "object" && node !== null) ? true : undefined;
  if (value === "") return true;
  if (/^(true|yes|y|supported|1)$/i.test(value)) return true;
  if (/^(false|no|n|not supported|unsupported|0)$/i.test(value)) return false;
  return undefined;
}

const TECH_ELEMENTS: Record<string, string> = { GSM: "GSM", UMTS: "UMTS", LTE: "LTE", NR: "NR", "5G": "NR", CDMA2000: "CDMA2000", NBIOT: "NB-IOT", LTEM: "LTE-M" };

function latest(dates: (string | undefined)[]): string | undefined {
  return dates.filter((d): d is string => Boolean(d)).sort().at(-1);
}

/** The sections this reader turns into records; every other `…Section` is reported as not modelled. */
const MODELLED_SECTIONS = new Set([
  "RoutingInfoSection",
  "SCCPProtocolAvailableAtPMNSection",
  "MAPGeneralInfoSection",
  "NetworkElementsInfoSection",
  "CAMELInfoSection",
  "PacketDataServiceInfoSection",
  "LTEInfoSection",
  "VoLTEInfoSection",
]);

/** A section's own effective date (its `EffectiveDateOfChange`), if it states one. */
const sectionDate = (section: unknown) => latest(findAll(section, "EffectiveDateOfChange").map(text));

/** A section holding only `SectionNA` ("not applicable") has no content. */
const notApplicable = (section: unknown) => find(section, "SectionNA") !== undefined && elementChildren(section).every(([k]) => k === "SectionNA" || k === "EffectiveDateOfChange" || k === "ChangeHistory");

interface E164Range {
  cc: string | undefined;
  ndc: string;
  sn_start: string | undefined;
  sn_stop: string | undefined;
}

function numberRange(rangeData: unknown): E164Range {
  const numberRange = find(rangeData, "NumberRange") ?? rangeData;
  return {
    cc: textOf(numberRange, "CC"),
    ndc: textOf(numberRange, "NDC") ?? "",
    sn_start: textOf(numberRange, "SN_RangeStart"),
    sn_stop: textOf(numberRange, "SN_RangeStop"),
  };
}

const rangesIn = (node: unknown, list: string) => findAll(node, list).flatMap((l) => findAll(l, "RangeData")).map(numberRange);

/** A range as stored in a capability: only the present parts. */
const rangeValue = (r: E164Range) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined && v !== "")) as Record<string, string>;

interface Plmn {
  mcc: string | undefined;
  mnc: string | undefined;
}

interface Collected {
  capabilities: Record<string, unknown>;
  dates: Record<string, string>;
}

function put(into: Collected, name: string, value: unknown, date: string | undefined) {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return;
  into.capabilities[name] = value;
  if (date) into.dates[name] = date;
}

/** CAMEL per node: `GSM_SSF_MSC` → MSC, `GPRS_SSF_SGSN` → SGSN, with the inbound and outbound CAP versions. */
function camelNodes(camelInfo: unknown): Record<string, unknown>[] {
  return elementChildren(camelInfo)
    .filter(([k]) => /_SSF_/i.test(k))
    .map(([key, node]) => {
      const inbound = findAll(node, /Inbound$/i).flatMap((n) => texts(n, /^CAP_.*Version$/i));
      const outbound = findAll(node, /Outbound$/i).flatMap((n) => texts(n, /^CAP_.*Version$/i));
      const any = texts(node, /^CAP_.*Version$/i);
      return { node: key.replace(/^.*_SSF_/i, "").toUpperCase(), inbound: inbound.length || outbound.length ? inbound : any, outbound };
    });
}

/** Network elements: type, name, GT, IP address or range, Diameter identity and realm, vendor, UTC offset. */
function networkElements(section: unknown): Record<string, unknown>[] {
  return findAll(section, /^(NwNode|NetworkElement)$/).map((node) => {
    const gt = find(node, "GTAddressInfo");
    const gtRange = gt === undefined ? undefined : numberRange(gt);
    const element: Record<string, unknown> = {
      type: textOf(node, /^(NwElementType|NodeType)$/),
      name: textOf(node, /^(NwElementName|NodeName|NwNodeName)$/),
      gt: gtRange?.cc ? `${gtRange.cc}${gtRange.ndc}${gtRange.sn_start ?? ""}${gtRange.sn_stop && gtRange.sn_stop !== gtRange.sn_start ? `-${gtRange.sn_stop}` : ""}` : undefined,
      ip: textOf(node, "IPAddress"),
      ip_range: textOf(node, "IPAddressRange"),
      diameter_identity: textOf(node, /^(DiameterIdentity|DiameterHostName|OriginHost|HostIdentity)$/i),
      diameter_realm: textOf(node, /^(DiameterRealm|Realm|OriginRealm)$/i),
      vendor: textOf(node, "VendorInfo"),
      utc_offset: textOf(node, "UTCTimeOffset"),
    };
    return Object.fromEntries(Object.entries(element).filter(([, v]) => v !== undefined && v !== ""));
  });
}

/** MAP application contexts and their versions: `{ "networkLocUpContext": "v3", … }`. */
function mapVersions(section: unknown): Record<string, string> | undefined {
  const versions: Record<string, string> = {};
  const visit = (node: unknown) => {
    const entries = elementChildren(node);
    const nameEntry = entries.find(([k]) => /(ContextName|ACName|^Name$|ApplicationContext$)/i.test(k) && text(entries.find(([kk]) => kk === k)?.[1]) !== undefined);
    const versionEntry = entries.find(([k]) => /Version/i.test(k) && text(entries.find(([kk]) => kk === k)?.[1]) !== undefined);
    if (nameEntry && versionEntry) {
      versions[text(nameEntry[1])!] = text(versionEntry[1])!;
      return;
    }
    for (const [key, value] of entries) {
      if (key === "EffectiveDateOfChange" || key === "ChangeHistory") continue;
      const t = text(value);
      if (t !== undefined && /Version|Context|Phase/i.test(key)) versions[key] = t;
      else if (t === undefined) visit(value);
    }
  };
  visit(section);
  return Object.keys(versions).length ? versions : undefined;
}

/**
 * LTE roaming interfaces and VoLTE flags. Their element names differ between schema versions, so an
 * interface counts when an element is named for it (`S6a`, `S6aSupported`, `S8`, `SGs` …) with a true
 * or false value, or when an element's text names it (`<RoamingInterface>S6a</RoamingInterface>`).
 */
function interfaceFlags(section: unknown, names: Record<string, string>): Record<string, boolean> {
  const result: Record<string, boolean> = {};
  const all = allEntries(section);
  for (const [name, label] of Object.entries(names)) {
    const element = new RegExp(`^${label}(?:Supported|Interface|Support)?$`, "i");
    const named = all.filter(([k]) => element.test(k)).map(([, v]) => flag(v)).filter((v): v is boolean => v !== undefined);
    if (named.length) result[name] = named.includes(true);
    else if (all.some(([, v]) => text(v)?.toLowerCase() === label.toLowerCase())) result[name] = true;
  }
  return result;
}

interface NetworkOut {
  networks: Record<string, unknown>[];
  unmodelled: string[];
}

function network(node: unknown, summary: Map<string, Plmn>): NetworkOut {
  const tadig = textOf(node, "TADIGCode");
  const networkData = find(node, "NetworkData") ?? node;
  const technologies = [...new Set(elementChildren(find(node, "SupportedTechnologies")).map(([k]) => TECH_ELEMENTS[k.toUpperCase().replace(/[^A-Z0-9]/g, "")] ?? k))];
  const collected: Collected = { capabilities: {}, dates: {} };
  const unmodelled: string[] = [];
  for (const [key, section] of findEntries(networkData, /Section$/)) {
    if (MODELLED_SECTIONS.has(key) || /^VoLTE/i.test(key)) continue;
    if (notApplicable(section)) continue;
    unmodelled.push(key === "ContactInfoSection" ? `${tadig ?? "?"}: ContactInfoSection (personal data, never read)` : `${tadig ?? "?"}: ${key}`);
  }

  // --- RoutingInfoSection: every RoutingInfo block, every E.212 series -------------------------
  const routingSection = find(networkData, "RoutingInfoSection");
  const routingDate = sectionDate(routingSection);
  const blocks = findAll(routingSection ?? networkData, "RoutingInfo");
  const summaryPlmn = tadig ? summary.get(tadig) : undefined;
  const plmnsOf = (block: unknown): Plmn[] =>
    findAll(block, /^(CCITT_E212_NumberSeries|NetworkProperties)$/).map((s) => ({ mcc: textOf(s, "MCC"), mnc: textOf(s, "MNC") }));
  const ownPlmns = [...findAll(node, "NetworkProperties").map((s) => ({ mcc: textOf(s, "MCC"), mnc: textOf(s, "MNC") }))];
  const firstPlmn = blocks.map(plmnsOf).find((p) => p.length)?.[0] ?? ownPlmns[0] ?? summaryPlmn ?? { mcc: undefined, mnc: undefined };
  const byPlmn = new Map<string, { plmn: Plmn; msisdn: E164Range[]; msrn: E164Range[]; gt: E164Range[]; mgt: Record<string, string>[] }>();
  const entry = (plmn: Plmn) => {
    const key = `${plmn.mcc}-${plmn.mnc}`;
    if (!byPlmn.has(key)) byPlmn.set(key, { plmn, msisdn: [], msrn: [], gt: [], mgt: [] });
    return byPlmn.get(key)!;
  };
  entry(firstPlmn);
  for (const block of blocks.length ? blocks : [undefined]) {
    const plmns = block === undefined ? [firstPlmn] : plmnsOf(block);
    const target = entry(plmns[0] ?? firstPlmn);
    plmns.slice(1).forEach(entry);
    if (block === undefined) continue;
    target.msisdn.push(...rangesIn(block, "MSISDN_NumberRanges"));
    target.msrn.push(...rangesIn(block, "MSRN_NumberRanges"));
    target.gt.push(...rangesIn(block, "GT_NumberRanges"));
    for (const mgt of findAll(block, "CCITT_E214_MGT")) {
      const cc = textOf(mgt, "MGT_CC");
      if (cc) target.mgt.push({ cc, nc: textOf(mgt, "MGT_NC") ?? "" });
    }
  }

  // --- the other modelled sections (shared by every PLMN of this TADIG) --------------------------
  const sccp = find(networkData, "SCCPProtocolAvailableAtPMNSection");
  if (sccp !== undefined && !notApplicable(sccp)) {
    const protocols = elementChildren(find(sccp, "SCCPProtocolAvailableAtPMN") ?? sccp)
      .filter(([k, v]) => !["EffectiveDateOfChange", "ChangeHistory"].includes(k) && flag(v) === true && text(v) !== undefined)
      .map(([k]) => k.replace(/^SCCP_?/, ""));
    put(collected, "sccp.protocols", [...new Set(protocols)], sectionDate(sccp));
  }
  const mapSection = find(networkData, "MAPGeneralInfoSection");
  if (mapSection !== undefined && !notApplicable(mapSection)) put(collected, "map.versions", mapVersions(mapSection), sectionDate(mapSection));
  const elementsSection = find(networkData, "NetworkElementsInfoSection");
  if (elementsSection !== undefined && !notApplicable(elementsSection)) put(collected, "network.elements", networkElements(elementsSection), sectionDate(elementsSection));
  const camelSection = find(networkData, "CAMELInfoSection");
  if (camelSection !== undefined && !notApplicable(camelSection)) {
    const date = sectionDate(camelSection);
    const phases = texts(find(camelSection, "CAMELInfo"), /^CAP_.*Version$/i).sort();
    put(collected, "camel.phases", phases, date);
    put(collected, "camel.nodes", camelNodes(find(camelSection, "CAMELInfo")), date);
  }
  const packet = find(networkData, "PacketDataServiceInfoSection");
  if (packet !== undefined && !notApplicable(packet)) {
    const date = sectionDate(packet);
    const services2g = texts(packet, "DataService2G");
    const services3g = texts(packet, "DataService3G");
    if (services2g.includes("GPRS")) put(collected, "data.gprs", true, date);
    if (services2g.includes("EDGE")) put(collected, "data.edge", true, date);
    if (services3g.some((s) => /^HSPA(\+|_?PLUS|\s*Plus)$/i.test(s))) put(collected, "data.hspa_plus", true, date);
    put(collected, "apn.operator_identifier", texts(packet, "APNOperatorIdentifier"), date);
  }
  const lte = find(networkData, "LTEInfoSection");
  if (lte !== undefined && !notApplicable(lte)) {
    const date = sectionDate(lte);
    put(collected, "lte.roaming", true, date);
    for (const [name, value] of Object.entries(interfaceFlags(lte, { "lte.s6a": "S6a", "lte.s8": "S8", "lte.sgs": "SGs" }))) {
      put(collected, name, value, date);
    }
  }
  for (const [, volte] of findEntries(networkData, /^VoLTE.*Section$/i)) {
    if (notApplicable(volte)) continue;
    const date = sectionDate(volte);
    for (const [name, value] of Object.entries(interfaceFlags(volte, { "volte.s8hr": "S8HR", "volte.lbo": "LBO" }))) put(collected, name, value, date);
  }
  // This service's extension for capabilities without a public element name (5G).
  for (const capability of findAll(find(networkData, "Capabilities"), "Capability")) {
    const name = (capability as XmlNode)?.["@name"];
    const value = text(capability) ?? (capability as XmlNode)?.["@value"];
    if (typeof name === "string" && typeof value === "string") collected.capabilities[name] = capabilityValue(value);
  }
  const networkDate = latest(findAll(networkData, "EffectiveDateOfChange").map(text));

  const networks = [...byPlmn.values()].map(({ plmn, msisdn, msrn, gt, mgt }) => {
    const capabilities = { ...collected.capabilities };
    const dates = { ...collected.dates };
    const routing: Collected = { capabilities, dates };
    put(routing, "routing.msrn_ranges", msrn.map(rangeValue), routingDate);
    put(routing, "routing.gt_ranges", gt.map(rangeValue), routingDate);
    put(routing, "routing.e214_mgt", mgt, routingDate);
    return {
      tadig,
      name: textOf(node, "NetworkName"),
      network_type: textOf(node, "NetworkType")?.toLowerCase(),
      mcc: plmn.mcc,
      mnc: plmn.mnc,
      technologies,
      msisdn_ranges: msisdn,
      capabilities,
      ...(Object.keys(dates).length ? { capability_dates: dates } : {}),
      effective_date: networkDate,
    };
  });
  return { networks, unmodelled };
}

/**
 * The document in JSON form (plus the sections it did not model), or the XML's syntax problem. The
 * result still has to pass {@link Ir21Document} validation.
 */
export function ir21FromXml(xml: string): { document: Ir21DocumentInput; unmodelled: string[] } | { problems: string[] } {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) return { problems: [`not well-formed XML at line ${valid.err.line}: ${valid.err.msg}`] };
  const parsed = parser.parse(xml) as XmlNode;
  const root = find(parsed, "TADIGRAEXIR21");
  if (root === undefined) return { problems: ["not an IR.21 document: no TADIGRAEXIR21 root element"] };
  const header = find(root, "RAEXIR21FileHeader");
  const organisation = find(root, "OrganisationInfo");
  // Newer schemas (18.x) keep TADIG ↔ MCC/MNC in a summary list instead of the routing section.
  const summary = new Map<string, Plmn>();
  for (const item of findAll(organisation, "TADIGSummaryItem")) {
    const code = textOf(item, "TADIGCode");
    const props = find(item, "NetworkProperties");
    if (code && props !== undefined) summary.set(code, { mcc: textOf(props, "MCC"), mnc: textOf(props, "MNC") });
  }
  const networkList = find(root, "NetworkList") ?? root;
  const read = findAll(networkList, "Network").map((n) => network(n, summary));
  const created = textOf(header, "FileCreationTimestamp");
  const sampleFlag = textOf(header, "Sample") ?? (root as XmlNode)["@sample"];
  const complete = textOf(header, "Complete");
  const fileVersion = textOf(header, /^(RAEXIR21)?FileVersion$/i);
  return {
    document: {
      format: "ir21-json/1",
      sample: sampleFlag === "true",
      document: {
        sender_tadig: textOf(header, "SenderTADIG") as string,
        created_at: created as string,
        effective_date: (latest(findAll(root, "EffectiveDateOfChange").map(text)) ?? created?.slice(0, 10)) as string,
        schema_version: textOf(header, "TADIGRAEXIR21SchemaVersion"),
        ...(fileVersion ? { file_version: fileVersion } : {}),
        ...(complete !== undefined ? { complete: flag(complete) === true } : {}),
      },
      organisation: {
        name: textOf(organisation, "OrganisationName") as string,
        country: textOf(organisation, "CountryInitials") as string,
      },
      networks: read.flatMap((r) => r.networks) as never,
    },
    unmodelled: read.flatMap((r) => r.unmodelled),
  };
}
