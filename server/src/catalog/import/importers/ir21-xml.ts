import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { Ir21DocumentInput } from "./ir21-document.ts";
import { resolveDoctype } from "./ir21-entities.ts";

/**
 * Reads the XML form of an IR.21 document into the JSON document shape (docs/ir21-format.md).
 *
 * GSMA's RAEX IR.21 schema is not public and its versions (8.x … 18.x) move elements around, so this
 * reader matches the known element names wherever they appear under a section rather than following
 * fixed paths. Every `RoutingInfo` block is read: its MSISDN ranges belong to the block's own E.212
 * series (MCC/MNC), and every further E.212 series is a further network (PLMN) of the same TADIG.
 *
 * Nothing is dropped in silence: the document becomes a tree whose elements are marked as they are
 * read, and every element (or attribute) that no record took is named by its path in `unmodelled`
 * (a wholly unread subtree once, by its top). Real-world mess that has one obvious reading (a
 * lower-case TADIG, a country code written ` +254 `, a network named only by its abbreviated name)
 * is normalised and named in `warnings` instead of refusing the document.
 */

/** One element of the document; `used` once a record took its text or its presence. */
interface El {
  name: string;
  path: string;
  text: string | undefined;
  attrs: Map<string, string>;
  children: El[];
  used: boolean;
  usedAttrs: Set<string>;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  // Digits stay strings: MNC "01" is not 1.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // Numeric character references (&#243; &#xF3;) and the predefined entities are decoded; the
  // DOCTYPE's own entities are expanded before (ir21-entities.ts).
  htmlEntities: true,
});

function build(name: string, value: unknown, parentPath: string): El[] {
  if (Array.isArray(value)) return value.flatMap((v) => build(name, v, parentPath));
  const el: El = { name, path: "", text: undefined, attrs: new Map(), children: [], used: false, usedAttrs: new Set() };
  if (value === null || value === undefined || typeof value !== "object") el.text = value === null || value === undefined ? "" : String(value);
  else {
    const obj = value as Record<string, unknown>;
    for (const [k, v] of Object.entries(obj)) if (k.startsWith("@") && !/^@xmlns(:|$)/.test(k)) el.attrs.set(k.slice(1), String(v));
    if ("#text" in obj) el.text = String(obj["#text"]);
    else if (!Object.keys(obj).some((k) => !k.startsWith("@"))) el.text = "";
  }
  // A network is named by its TADIG in paths: "…/Network[KENSA]/NetworkData/…".
  const tadig = typeof value === "object" && value !== null && name === "Network" ? (value as Record<string, unknown>)["TADIGCode"] : undefined;
  el.path = `${parentPath ? `${parentPath}/` : ""}${name}${typeof tadig === "string" ? `[${tadig}]` : ""}`;
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (!k.startsWith("@") && k !== "#text") el.children.push(...build(k, v, el.path));
  }
  return [el];
}

type Match = string | RegExp;
const matches = (el: El, name: Match) => (typeof name === "string" ? el.name === name : name.test(el.name));

/** Every element named `name` under `node` (not looking inside a match). */
function findAll(node: El | undefined, name: Match): El[] {
  if (!node) return [];
  return node.children.flatMap((c) => (matches(c, name) ? [c] : findAll(c, name)));
}
const find = (node: El | undefined, name: Match): El | undefined => findAll(node, name)[0];
/** A child of `node` by name, else the first such element deeper down (schema versions nest differently). */
const own = (node: El, name: Match): El | undefined => node.children.find((c) => matches(c, name)) ?? find(node, name);
/** Every element at any depth. */
const descendants = (node: El): El[] => node.children.flatMap((c) => [c, ...descendants(c)]);

/** The element's text, marking it read. */
function read(el: El | undefined): string | undefined {
  if (!el) return undefined;
  el.used = true;
  return el.text;
}
/** The text without marking it read (dates compared to pick the latest, not stored from there). */
const peek = (el: El | undefined) => el?.text;
const readOf = (node: El | undefined, name: Match) => read(find(node, name));
const readAll = (node: El | undefined, name: Match) => [...new Set(findAll(node, name).map(read).filter((t): t is string => Boolean(t)))];
/** Marks an element and everything under it as read (its whole content is in a record). */
function take(el: El | undefined) {
  if (!el) return;
  el.used = true;
  el.attrs.forEach((_, k) => el.usedAttrs.add(k));
  el.children.forEach(take);
}
function attr(el: El | undefined, name: string): string | undefined {
  if (!el || !el.attrs.has(name)) return undefined;
  el.usedAttrs.add(name);
  return el.attrs.get(name);
}

const anyUsed = (el: El): boolean => el.used || el.usedAttrs.size > 0 || el.children.some(anyUsed);

/**
 * What no record took: a wholly unread element once, by its path (its subtree included); inside a
 * partly read element, each unread child and attribute. Repeated paths are counted, not repeated.
 */
function unread(el: El, out: Map<string, number>, note: (el: El) => string = () => "") {
  const add = (path: string) => out.set(path, (out.get(path) ?? 0) + 1);
  if (!anyUsed(el)) {
    add(`${el.path}${note(el)}`);
    return;
  }
  for (const [k] of el.attrs) if (!el.usedAttrs.has(k)) add(`${el.path}/@${k}`);
  if (el.text !== undefined && el.text !== "" && el.children.length > 0 && !el.used) add(`${el.path}/text()`);
  for (const c of el.children) unread(c, out, note);
}

function capabilityValue(raw: string): boolean | number | string {
  if (raw === "true" || raw === "false") return raw === "true";
  if (/^-?\d+(?:\.\d+)?$/.test(raw) && !/^0\d/.test(raw)) return Number(raw);
  return raw;
}

/** An IR.21 flag: "true"/"Yes"/"Supported" (or an empty element) is true, "false"/"No"/"Not supported" false. */
function flagText(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === "") return true;
  if (/^(true|yes|y|supported|available|1)$/i.test(value)) return true;
  if (/^(false|no|n|not supported|unsupported|not available|0)$/i.test(value)) return false;
  return undefined;
}
/** Reads a flag element: a container (with children) counts as present, so true. */
const flag = (el: El | undefined): boolean | undefined => (el === undefined ? undefined : el.children.length ? (el.used = true) : flagText(read(el)));

const TECH_ELEMENTS: Record<string, string> = { GSM: "GSM", UMTS: "UMTS", LTE: "LTE", NR: "NR", "5G": "NR", CDMA2000: "CDMA2000", NBIOT: "NB-IOT", LTEM: "LTE-M" };

function latest(dates: (string | undefined)[]): string | undefined {
  return dates.filter((d): d is string => Boolean(d)).sort().at(-1);
}

/** A section's own effective date (its `EffectiveDateOfChange`), if it states one; read. */
const sectionDate = (section: El | undefined) => latest(findAll(section, "EffectiveDateOfChange").map(read));

/** A section holding only `SectionNA` ("not applicable") has no content; its marker is read. */
function notApplicable(section: El): boolean {
  const na = section.children.every((c) => ["SectionNA", "EffectiveDateOfChange", "ChangeHistory"].includes(c.name)) && section.children.some((c) => c.name === "SectionNA");
  if (na) take(section);
  return na;
}

/** Normalisations, each named with its path so the import report can say what was changed. */
class Warnings {
  readonly list: string[] = [];
  add(el: El | undefined, message: string) {
    this.list.push(`${el?.path ?? "(document)"}: ${message}`);
  }
}

/**
 * Digits as IR.21 means them: spaces dropped, and a country code's `+` (` +254 ` is `254`). Anything
 * else stays as written, so validation names it.
 */
function digitsOf(el: El | undefined, warnings: Warnings): string | undefined {
  const raw = read(el);
  if (raw === undefined) return undefined;
  let value = raw.replace(/\s+/g, "");
  if (/^(CC|MGT_CC)$/.test(el!.name)) value = value.replace(/^\+/, "");
  if (value !== raw && /^\d+$/.test(value)) warnings.add(el, `${JSON.stringify(raw)} read as ${JSON.stringify(value)}`);
  return /^\d+$/.test(value) ? value : raw;
}

/** A TADIG code in upper case (`kensb` → `KENSB`), with a warning when the document wrote it otherwise. */
function tadigOf(el: El | undefined, warnings: Warnings): string | undefined {
  const raw = read(el);
  if (raw === undefined) return undefined;
  const value = raw.replace(/\s+/g, "").toUpperCase();
  if (value !== raw && /^[A-Z]{3}[A-Z0-9]{2}$/.test(value)) {
    warnings.add(el, `TADIG ${JSON.stringify(raw)} read as ${JSON.stringify(value)} (TADIG codes are upper case)`);
    return value;
  }
  return raw;
}

interface E164Range {
  cc: string | undefined;
  ndc: string;
  sn_start: string | undefined;
  sn_stop: string | undefined;
}

/** One number range: `CC`, `NDC`, `SN_Range/SN_RangeStart`, `SN_RangeStop` (or a single `SN`). */
function numberRange(range: El, warnings: Warnings): E164Range {
  const single = digitsOf(find(range, /^(SN|SubscriberNumber)$/), warnings);
  return {
    cc: digitsOf(find(range, "CC"), warnings),
    ndc: digitsOf(find(range, "NDC"), warnings) ?? "",
    sn_start: digitsOf(find(range, "SN_RangeStart"), warnings) ?? single,
    sn_stop: digitsOf(find(range, "SN_RangeStop"), warnings) ?? single,
  };
}

/**
 * The ranges of a list (`MSISDN_NumberRanges`, `GT_NumberRanges` …): each `NumberRange`, inside
 * `RangeData` or not (MSRN lists have no `RangeData` in some schema versions).
 */
function rangesIn(node: El | undefined, list: Match, warnings: Warnings): E164Range[] {
  return findAll(node, list).flatMap((l) => {
    const items = findAll(l, "NumberRange");
    const rows = items.length ? items : findAll(l, "RangeData").length ? findAll(l, "RangeData") : find(l, "CC") ? [l] : [];
    return rows.map((r) => numberRange(r, warnings));
  });
}

/** A range as stored in a capability: only the present parts. */
const rangeValue = (r: E164Range) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined && v !== "")) as Record<string, string>;

type Flat = Record<string, string | string[]>;

/**
 * Every leaf under `node` as `{ "NetworkLocUp.InboundRoamingMSC_VLR": "MAPv3", … }` (paths relative to
 * `node`; a repeated leaf becomes a list). The whole subtree is read: this is how a section is kept
 * whole where its elements have no record of their own.
 */
function flatten(node: El | undefined, skip: Match[] = []): Flat {
  const out: Flat = {};
  const visit = (el: El, prefix: string) => {
    for (const c of el.children) {
      if (skip.some((s) => matches(c, s))) continue;
      const key = prefix ? `${prefix}.${c.name}` : c.name;
      if (c.children.length === 0) {
        const value = read(c) ?? "";
        const seen = out[key];
        out[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
      } else {
        c.used = true;
        visit(c, key);
      }
    }
  };
  if (node) visit(node, "");
  return out;
}

interface Plmn {
  mcc: string | undefined;
  mnc: string | undefined;
}

interface Collected {
  capabilities: Record<string, unknown>;
  dates: Record<string, string>;
}

function put(into: Collected, name: string, value: unknown, date: string | undefined) {
  if (value === undefined || (Array.isArray(value) && value.length === 0) || (typeof value === "object" && value !== null && Object.keys(value).length === 0)) return;
  into.capabilities[name] = value;
  if (date) into.dates[name] = date;
}

/** CAMEL per node: `GSM_SSF_MSC` → MSC, `GPRS_SSF_SGSN` → SGSN, with the inbound and outbound CAP versions. */
function camelNodes(camelInfo: El | undefined): Record<string, unknown>[] {
  return (camelInfo?.children ?? [])
    .filter((c) => /_SSF_/i.test(c.name))
    .map((node) => {
      const inbound = findAll(node, /Inbound$/i).flatMap((n) => readAll(n, /^CAP_.*Version$/i));
      const outbound = findAll(node, /Outbound$/i).flatMap((n) => readAll(n, /^CAP_.*Version$/i));
      const any = readAll(node, /^CAP_.*Version$/i);
      return { node: node.name.replace(/^.*_SSF_/i, "").toUpperCase(), inbound: inbound.length || outbound.length ? inbound : any, outbound };
    });
}

/**
 * Network elements, each whole: type, identifier, name, global title(s) in full (CC + NDC + SN, a
 * range as `gt` … `gt_stop`), IP addresses, Diameter identity and realm, vendor, software/hardware
 * version, dual access, location, UTC offset. An element child not named here is reported.
 */
function networkElements(section: El, warnings: Warnings): Record<string, unknown>[] {
  return findAll(section, /^(NwNode|NetworkElement)$/).map((node) => {
    const gts = findAll(node, /^(GTAddressInfo|GTAddress)$/).map((gt) => {
      const whole = find(gt, /^(GT|GlobalTitle)$/);
      if (whole) return { start: digitsOf(whole, warnings), stop: undefined };
      const r = numberRange(gt, warnings);
      const start = r.cc ? `${r.cc}${r.ndc}${r.sn_start ?? ""}` : undefined;
      const stop = r.cc && r.sn_stop && r.sn_stop !== r.sn_start ? `${r.cc}${r.ndc}${r.sn_stop}` : undefined;
      return { start, stop };
    });
    const ips = readAll(node, /^(IPAddress)$/);
    const element: Record<string, unknown> = {
      type: readOf(node, /^(NwElementType|NodeType)$/),
      id: readOf(node, /^(NwNodeID|NwNodeId|NodeID|NodeId|NwElementID|NodeIdentifier)$/),
      name: readOf(node, /^(NwElementName|NodeName|NwNodeName)$/),
      ...(gts.length === 1 ? { gt: gts[0]!.start, gt_stop: gts[0]!.stop } : gts.length > 1 ? { gts: gts.map((g) => (g.stop ? `${g.start}-${g.stop}` : g.start)) } : {}),
      ...(ips.length > 1 ? { ips } : { ip: ips[0] }),
      ip_range: readAll(node, "IPAddressRange").join(", ") || undefined,
      diameter_identity: readOf(node, /^(DiameterIdentity|DiameterHostName|OriginHost|HostIdentity)$/i),
      diameter_realm: readOf(node, /^(DiameterRealm|Realm|OriginRealm)$/i),
      vendor: readOf(node, /^(VendorInfo|Vendor)$/),
      sw_hw_version: readOf(node, "SwHwVersion"),
      dual_access: readOf(node, "DualAccess"),
      location: readOf(node, /^(Location|NodeLocation)$/),
      utc_offset: readOf(node, "UTCTimeOffset"),
    };
    return Object.fromEntries(Object.entries(element).filter(([, v]) => v !== undefined && v !== ""));
  });
}

/**
 * MAP application contexts and their versions: pairs of `…ContextName` and `…Version`
 * (`{ "networkLocUpContext": "v3" }`), else every leaf by its path under `MAPGeneralInfo`
 * (`{ "NetworkLocUp.InboundRoamingMSC_VLR": "MAPv3", … }`, RAEX 9.x and later).
 */
function mapVersions(info: El | undefined): Flat {
  const versions: Flat = {};
  for (const context of findAll(info, /^(ApplicationContext|MAPApplicationContext)$/)) {
    const name = readOf(context, /(ContextName|ACName|^Name$)/i);
    const version = readOf(context, /Version/i);
    if (name && version) {
      versions[name] = version;
      context.used = true;
    }
  }
  const rest = info ? { ...info, children: info.children.filter((c) => !anyUsed(c)) } : undefined;
  return { ...versions, ...flatten(rest, ["EffectiveDateOfChange", "ChangeHistory"]) };
}

/**
 * An LTE roaming interface (`S6a`, `S6d`, `S8`, `S9`, legacy `SGs`): true or false from its own flags
 * (`IsS9usedForPCC` …) or its element's text, true when present without one, or named in a text
 * (`<RoamingInterface>S6a</RoamingInterface>`); its whole content is kept as `…_details`.
 */
function lteInterface(section: El, label: string, into: Collected, date: string | undefined) {
  const name = label.toLowerCase();
  const elements = findAll(section, new RegExp(`^${label}(?:Supported|Interface|Support)?$`, "i"));
  const values: boolean[] = [];
  for (const el of elements) {
    if (el.children.length) {
      const details = flatten(el);
      el.used = true;
      const flags = Object.entries(details)
        .filter(([k]) => /(^|\.)Is[^.]*$/.test(k))
        .map(([, v]) => flagText(Array.isArray(v) ? v[0] : v))
        .filter((v): v is boolean => v !== undefined);
      values.push(flags.length ? flags.includes(true) : true);
      put(into, `lte.${name}_details`, details, date);
    } else {
      const v = flag(el);
      if (v !== undefined) values.push(v);
    }
  }
  if (!values.length) {
    const naming = descendants(section).filter((d) => d.children.length === 0 && d.text?.toLowerCase() === label.toLowerCase());
    naming.forEach(read);
    if (naming.length) values.push(true);
  }
  if (values.length) put(into, `lte.${name}`, values.includes(true), date);
}

interface NetworkOut {
  networks: Record<string, unknown>[];
}

function network(node: El, summary: Map<string, Plmn>, warnings: Warnings): NetworkOut {
  const tadig = tadigOf(own(node, "TADIGCode"), warnings);
  const networkData = find(node, "NetworkData") ?? node;
  const technologies = [
    ...new Set(
      (find(node, "SupportedTechnologies")?.children ?? []).map((c) => {
        c.used = true;
        return TECH_ELEMENTS[c.name.toUpperCase().replace(/[^A-Z0-9]/g, "")] ?? c.name;
      }),
    ),
  ];
  const supported = find(node, "SupportedTechnologies");
  if (supported) supported.used = true;
  const collected: Collected = { capabilities: {}, dates: {} };
  for (const section of findAll(networkData, /Section$/)) if (section.name !== "ContactInfoSection") notApplicable(section);
  const hosted = find(node, "HostedNetworksInfo");
  if (hosted) notApplicable(hosted);

  // --- RoutingInfoSection: every RoutingInfo block, every E.212 series -------------------------
  const routingSection = find(networkData, "RoutingInfoSection");
  const routingDate = sectionDate(routingSection);
  const blocks = findAll(routingSection ?? networkData, "RoutingInfo");
  const summaryPlmn = tadig ? summary.get(tadig) : undefined;
  const plmnOf = (s: El): Plmn => ({ mcc: digitsOf(find(s, "MCC"), warnings), mnc: digitsOf(find(s, "MNC"), warnings) });
  const plmnsOf = (block: El): Plmn[] => findAll(block, /^(CCITT_E212_NumberSeries|NetworkProperties)$/).map(plmnOf);
  const blockPlmns = blocks.map(plmnsOf);
  const ownPlmns = findAll(node, "NetworkProperties").filter((p) => !blocks.some((b) => descendants(b).includes(p)));
  const routingPlmns = routingSection && !blocks.length ? findAll(routingSection, "CCITT_E212_NumberSeries").map(plmnOf) : [];
  const firstPlmn = blockPlmns.find((p) => p.length)?.[0] ?? routingPlmns[0] ?? ownPlmns.map(plmnOf)[0] ?? summaryPlmn ?? { mcc: undefined, mnc: undefined };
  const byPlmn = new Map<string, { plmn: Plmn; msisdn: E164Range[]; msrn: E164Range[]; gt: E164Range[]; mgt: Record<string, string>[] }>();
  const entry = (plmn: Plmn) => {
    const key = `${plmn.mcc}-${plmn.mnc}`;
    if (!byPlmn.has(key)) byPlmn.set(key, { plmn, msisdn: [], msrn: [], gt: [], mgt: [] });
    return byPlmn.get(key)!;
  };
  entry(firstPlmn);
  routingPlmns.slice(1).forEach(entry);
  // Older schemas put the series straight under RoutingInfoSection, without RoutingInfo blocks.
  const units: (El | undefined)[] = blocks.length ? blocks : [routingSection];
  units.forEach((block, i) => {
    const plmns = blocks.length ? blockPlmns[i]! : [firstPlmn];
    const target = entry(plmns[0] ?? firstPlmn);
    plmns.slice(1).forEach(entry);
    if (block === undefined) return;
    target.msisdn.push(...rangesIn(block, "MSISDN_NumberRanges", warnings));
    target.msrn.push(...rangesIn(block, "MSRN_NumberRanges", warnings));
    target.gt.push(...rangesIn(block, /^(GT_NumberRanges|(Nw|Network)?Node_?GT_?NumberRanges?)$/i, warnings));
    for (const mgt of findAll(block, "CCITT_E214_MGT")) {
      const cc = digitsOf(find(mgt, "MGT_CC"), warnings);
      if (cc) target.mgt.push({ cc, nc: digitsOf(find(mgt, "MGT_NC"), warnings) ?? "" });
    }
  });

  // --- the other modelled sections (shared by every PLMN of this TADIG) --------------------------
  const live = (name: Match) => {
    const section = find(networkData, name);
    return section && !section.used ? section : undefined;
  };
  const sccp = live("SCCPProtocolAvailableAtPMNSection");
  if (sccp) {
    const date = sectionDate(sccp);
    const holder = find(sccp, "SCCPProtocolAvailableAtPMN") ?? sccp;
    const protocols = holder.children.filter((c) => !["EffectiveDateOfChange", "ChangeHistory"].includes(c.name) && c.children.length === 0 && flag(c) === true).map((c) => c.name.replace(/^SCCP_?/, ""));
    holder.used = true;
    put(collected, "sccp.protocols", [...new Set(protocols)], date);
  }
  const mapSection = live("MAPGeneralInfoSection");
  if (mapSection) {
    const date = sectionDate(mapSection);
    put(collected, "map.versions", mapVersions(find(mapSection, "MAPGeneralInfo") ?? mapSection), date);
  }
  const optimal = live("MAPOptimalRoutingSection");
  if (optimal) put(collected, "map.optimal_routing", flatten(find(optimal, "MAPOptimalRouting") ?? optimal, ["EffectiveDateOfChange", "ChangeHistory"]), sectionDate(optimal));
  const smsEnhancement = live("MAPInterOperatorSMSEnhancementSection");
  if (smsEnhancement) put(collected, "map.sms_enhancement", flatten(find(smsEnhancement, "MAPInterOperatorSMSEnhancement") ?? smsEnhancement, ["EffectiveDateOfChange", "ChangeHistory"]), sectionDate(smsEnhancement));
  const elementsSection = live("NetworkElementsInfoSection");
  if (elementsSection) put(collected, "network.elements", networkElements(elementsSection, warnings), sectionDate(elementsSection));
  const camelSection = live("CAMELInfoSection");
  if (camelSection) {
    const date = sectionDate(camelSection);
    const info = find(camelSection, "CAMELInfo");
    const phases = readAll(info, /^CAP_.*Version$/i).sort();
    put(collected, "camel.phases", phases, date);
    put(collected, "camel.nodes", camelNodes(info), date);
  }
  const packet = live("PacketDataServiceInfoSection");
  if (packet) {
    const date = sectionDate(packet);
    const services = readAll(packet, /^DataService(2G|3G|4G|Supported)?$/);
    if (services.includes("GPRS")) put(collected, "data.gprs", true, date);
    if (services.includes("EDGE")) put(collected, "data.edge", true, date);
    if (services.some((s) => /^HSPA(\+|_?PLUS|\s*Plus)$/i.test(s))) put(collected, "data.hspa_plus", true, date);
    put(collected, "data.services", services, date);
    put(collected, "apn.operator_identifier", readAll(packet, "APNOperatorIdentifier"), date);
  }
  const lte = live("LTEInfoSection");
  if (lte) {
    const date = sectionDate(lte);
    put(collected, "lte.roaming", true, date);
    // Realms first: they are also part of their interface's details.
    const realms = [...new Set(findAll(lte, /^(DiameterRealm|Realm|EPCRealm|EPCRealmsForRoaming)$/i).map(peek).filter((t): t is string => Boolean(t)))];
    for (const label of ["S6a", "S6d", "S8", "S9", "SGs"]) lteInterface(lte, label, collected, date);
    findAll(lte, /^(DiameterRealm|Realm|EPCRealm|EPCRealmsForRoaming)$/i).forEach(read);
    put(collected, "lte.diameter_realms", realms, date);
    const sgs = find(lte, "SMSoverSGs");
    if (sgs) put(collected, "lte.sms_over_sgs", flag(sgs), date);
    const smsIp = find(lte, "SMSoverIP");
    if (smsIp) put(collected, "lte.sms_over_ip", flag(smsIp), date);
    put(collected, "lte.dea_ip_addresses", readAll(find(lte, "IPAddressesDiameterEdgeAgent"), "IPAddress"), date);
  }
  for (const volte of findAll(networkData, /^(VoLTE.*|IMS.*)Section$/i)) {
    if (volte.used) continue;
    const date = sectionDate(volte);
    for (const [label, name] of [["S8HR", "volte.s8hr"], ["LBO", "volte.lbo"]] as const) {
      const values = findAll(volte, new RegExp(`^${label}(?:Supported|Support)?$`, "i")).map(flag).filter((v): v is boolean => v !== undefined);
      if (values.length) put(collected, name, values.includes(true), date);
    }
  }
  // The IMS well-known APN, wherever the schema version puts it.
  const imsApns = readAll(networkData, /^(IMS_?APN|IMSWellKnownAPN|WellKnownIMSAPN|IMS_WellKnownAPN)$/i);
  put(collected, "ims.apn", imsApns.length > 1 ? imsApns : imsApns[0], undefined);
  // This service's extension for capabilities without a public element name (5G).
  for (const capability of findAll(find(networkData, "Capabilities"), "Capability")) {
    const name = attr(capability, "name");
    const value = read(capability) || attr(capability, "value");
    if (typeof name === "string" && typeof value === "string") collected.capabilities[name] = capabilityValue(value);
  }
  const capabilitiesList = find(networkData, "Capabilities");
  if (capabilitiesList && anyUsed(capabilitiesList)) capabilitiesList.used = true;
  const networkDate = latest(findAll(networkData, "EffectiveDateOfChange").map(peek));

  // The network's name: NetworkName, else its abbreviated or presentation name (with a warning).
  let name = read(own(node, "NetworkName"));
  if (!name) {
    for (const fallback of ["AbbreviatedMNN", "PresentationOfCountryInitialsAndMNN"]) {
      const el = own(node, fallback);
      const value = read(el);
      if (value) {
        warnings.add(own(node, "NetworkName") ?? node, `no NetworkName; the network is named ${JSON.stringify(value)} from ${fallback}`);
        name = value;
        break;
      }
    }
  }

  const networks = [...byPlmn.values()].map(({ plmn, msisdn, msrn, gt, mgt }) => {
    const capabilities = { ...collected.capabilities };
    const dates = { ...collected.dates };
    const routing: Collected = { capabilities, dates };
    put(routing, "routing.msrn_ranges", msrn.map(rangeValue), routingDate);
    put(routing, "routing.gt_ranges", gt.map(rangeValue), routingDate);
    put(routing, "routing.e214_mgt", mgt, routingDate);
    const type = read(own(node, "NetworkType"));
    return {
      tadig,
      name,
      network_type: type?.toLowerCase(),
      mcc: plmn.mcc,
      mnc: plmn.mnc,
      technologies,
      msisdn_ranges: msisdn,
      capabilities,
      ...(Object.keys(dates).length ? { capability_dates: dates } : {}),
      effective_date: networkDate,
    };
  });
  return { networks };
}

/** How a document says it is a sample (docs/ir21-format.md "Samples"); null when it does not. */
function sampleMarker(prologue: string, root: El, header: El | undefined): string | null {
  const headerFlag = find(header, /^(Sample|SampleDocument|TestDocument|TestFile|TestIndicator)$/);
  if (headerFlag && flag(headerFlag) === true) return `${headerFlag.path} = ${JSON.stringify(headerFlag.text)}`;
  for (const name of ["sample", "test"]) {
    const value = attr(root, name);
    if (value !== undefined && flagText(value) === true) return `${root.path}/@${name} = ${JSON.stringify(value)}`;
  }
  // A comment before the root element or in the file header that opens with SAMPLE (or "sample/test
  // document|file|data"): how hand-made and vendor sample files say it.
  for (const m of prologue.matchAll(/<!--([\s\S]*?)-->/g)) {
    const comment = m[1]!.trim();
    if (/^(SAMPLE\b|(sample|test)\s+(IR\.?21\s+)?(document|file|data)\b)/i.test(comment)) return `the comment <!-- ${comment.split("\n")[0]!.slice(0, 60)} … -->`;
  }
  return null;
}

export interface Ir21Xml {
  document: Ir21DocumentInput;
  /** Paths of what no record holds (`…/USSDInfoSection`, `…/NwNode/SwHwVersion (×2)`). */
  unmodelled: string[];
  /** What was normalised, with its path. */
  warnings: string[];
  /** How the document marks itself as a sample, when it does. */
  sampleMarker: string | null;
}

/**
 * The document in JSON form, what it did not model and what was normalised; or why it is refused. The
 * result still has to pass {@link Ir21Document} validation.
 */
export function ir21FromXml(source: string): Ir21Xml | { problems: string[] } {
  const doctype = resolveDoctype(source);
  if ("problems" in doctype) return doctype;
  const xml = doctype.xml;
  const valid = XMLValidator.validate(xml);
  if (valid !== true) return { problems: [`not well-formed XML at line ${valid.err.line}: ${valid.err.msg}`] };
  let parsed: Record<string, unknown>;
  try {
    parsed = parser.parse(xml) as Record<string, unknown>;
  } catch (error) {
    return { problems: [`not readable XML: ${(error as Error).message}`] };
  }
  const rootKey = Object.keys(parsed).find((k) => k === "TADIGRAEXIR21");
  if (!rootKey) return { problems: ["not an IR.21 document: no TADIGRAEXIR21 root element"] };
  const root = build(rootKey, parsed[rootKey], "")[0]!;
  root.used = true;
  const warnings = new Warnings();
  warnings.list.push(...doctype.warnings.map((w) => `DOCTYPE: ${w}`));

  // A reference left in a text is an entity nobody declared: refused, never stored as a name.
  const undefinedEntities = descendants(root).flatMap((el) => [...(el.text ?? "").matchAll(/&([A-Za-z_:][\w.:-]*);/g)].map((m) => `${el.path}: entity &${m[1]}; is not declared (the DOCTYPE declares ${doctype.entities.length ? doctype.entities.map((e) => `&${e};`).join(", ") : "none"})`));
  if (undefinedEntities.length) return { problems: undefinedEntities };

  const header = find(root, "RAEXIR21FileHeader");
  if (header) header.used = true;
  const organisation = find(root, "OrganisationInfo");
  if (organisation) organisation.used = true;
  // Newer schemas (18.x) keep TADIG ↔ MCC/MNC in a summary list instead of the routing section.
  const summary = new Map<string, Plmn>();
  for (const item of findAll(organisation, "TADIGSummaryItem")) {
    const code = tadigOf(find(item, "TADIGCode"), warnings);
    const props = find(item, "NetworkProperties");
    if (code && props) summary.set(code, { mcc: digitsOf(find(props, "MCC"), warnings), mnc: digitsOf(find(props, "MNC"), warnings) });
  }
  const networkList = find(root, "NetworkList") ?? root;
  networkList.used = true;
  const read_ = findAll(networkList, "Network").map((n) => {
    n.used = true;
    return network(n, summary, warnings);
  });
  const created = readOf(header, "FileCreationTimestamp");
  const sampleFlag = sampleMarker(source.slice(0, Math.max(0, source.search(/<[\w-]*:?OrganisationInfo\b/))), root, header);
  const complete = find(header, "Complete");
  const fileVersion = readOf(header, /^(RAEXIR21)?FileVersion$/i);
  const countryEl = find(organisation, "CountryInitials");
  let country = read(countryEl)?.replace(/\s+/g, "");
  if (country && country !== country.toUpperCase() && /^[a-z]{2,3}$/i.test(country)) {
    warnings.add(countryEl, `${JSON.stringify(country)} read as ${JSON.stringify(country.toUpperCase())}`);
    country = country.toUpperCase();
  }
  const document: Ir21DocumentInput = {
    format: "ir21-json/1",
    sample: sampleFlag !== null,
    document: {
      sender_tadig: tadigOf(find(header, "SenderTADIG"), warnings) as string,
      created_at: created as string,
      effective_date: (latest(findAll(root, "EffectiveDateOfChange").map(peek)) ?? created?.slice(0, 10)) as string,
      schema_version: readOf(header, "TADIGRAEXIR21SchemaVersion"),
      ...(fileVersion ? { file_version: fileVersion } : {}),
      ...(complete !== undefined ? { complete: flag(complete) === true } : {}),
    },
    organisation: {
      name: readOf(organisation, "OrganisationName") as string,
      country: country as string,
    },
    networks: read_.flatMap((r) => r.networks) as never,
  };

  const unmodelled = new Map<string, number>();
  unread(root, unmodelled, (el) => (el.name === "ContactInfoSection" ? " (personal data, never read)" : ""));
  return {
    document,
    // Paths start below the root element, which every document has.
    unmodelled: [...unmodelled].map(([path, n]) => `${path.replace(/^TADIGRAEXIR21\//, "")}${n > 1 ? ` (×${n})` : ""}`),
    warnings: warnings.list.map((w) => w.replace(/^TADIGRAEXIR21\//, "")),
    sampleMarker: sampleFlag,
  };
}
