import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import countriesLib from "i18n-iso-countries";
import type { SourceDescriptor } from "../../../contract/catalog.ts";
import { AppError } from "../../../errors.ts";
import type { CapabilityRecord, NetworkRecord, NumberRangeRecord, OperatorRecord } from "../../model/records.ts";
import type { MaterialisedDataset } from "./demo.ts";
import { Ir21Document } from "./ir21-document.ts";
import { ir21FromXml } from "./ir21-xml.ts";
import { normaliseName, slug } from "../../operators/names.ts";
import { OWN_IR21_SAMPLES } from "../../../package-files.ts";

/**
 * IR.21 documents (docs/ir21-format.md) as datasets: `ir21` mode (only the documents' operators) and
 * `mixed` mode (the documents layered over the reference data, the document winning per operator).
 * Reading is all-or-nothing: every file is parsed and validated first, and if any has a problem the
 * import fails listing every problem of every file, before anything is compared or written.
 */

export interface LoadedDocument {
  file: string;
  sha256: string;
  document: Ir21Document;
  /** ISO 3166 alpha-2 of the organisation. */
  country: string;
  /** Elements of the document no record holds (XML form), by path, for the import report. */
  unmodelled: string[];
  /** What was normalised on the way in (XML form), by path, for the import report. */
  warnings: string[];
  /** How the document marks itself as a sample (`RAEXIR21FileHeader/Sample = "true"` …), when it does. */
  sampleMarker: string | null;
}

/**
 * The document's text: UTF-16 (either byte order) when it starts with a byte-order mark, UTF-8
 * otherwise (a UTF-8 BOM is dropped). Real IR.21 exports from some tools are UTF-16.
 */
export function decodeDocument(raw: Buffer): string {
  if (raw[0] === 0xff && raw[1] === 0xfe) return new TextDecoder("utf-16le").decode(raw.subarray(2));
  if (raw[0] === 0xfe && raw[1] === 0xff) return new TextDecoder("utf-16be").decode(raw.subarray(2));
  const text = raw.toString("utf8");
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** IR.21 CountryInitials that are not ISO alpha-3 but occur in real files. */
const COUNTRY_INITIALS_OVERRIDES: Record<string, string> = { K00: "XK", KOS: "XK" };

function countryFromInitials(code: string): string | null {
  if (code.length === 2) return countriesLib.isValid(code) ? code : null;
  return COUNTRY_INITIALS_OVERRIDES[code] ?? countriesLib.alpha3ToAlpha2(code) ?? null;
}

/** The .json and .xml files named, folders expanded (recursively, in name order). */
export function expandDocumentPaths(paths: string[]): string[] {
  const files: string[] = [];
  const visit = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) throw new AppError("INVALID_DATASET", `${path}: no such file or folder`);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path).sort()) {
        const child = join(path, entry);
        if (statSync(child).isDirectory() || [".json", ".xml"].includes(extname(entry).toLowerCase())) visit(child);
      }
    } else files.push(path);
  };
  paths.forEach(visit);
  return files;
}

/** Parses and validates one document; problems are returned, not thrown. */
export function parseIr21(
  file: string,
  content: string,
): { document: Ir21Document; country: string; unmodelled: string[]; warnings: string[]; sampleMarker: string | null } | { problems: string[] } {
  let input: unknown;
  let unmodelled: string[] = [];
  let warnings: string[] = [];
  let sampleMarker: string | null = null;
  const ext = extname(file).toLowerCase();
  if (ext === ".xml" || content.trimStart().startsWith("<")) {
    // The XML declaration may still say encoding="UTF-16": the text is already decoded.
    const xml = ir21FromXml(content.replace(/^(\s*<\?xml[^>]*?)encoding=["'][^"']*["']/i, "$1"));
    if ("problems" in xml) return xml;
    input = xml.document;
    unmodelled = xml.unmodelled;
    warnings = xml.warnings;
    sampleMarker = xml.sampleMarker;
  } else {
    try {
      input = JSON.parse(content);
    } catch (error) {
      return { problems: [`not valid JSON: ${(error as Error).message}`] };
    }
  }
  const parsed = Ir21Document.safeParse(input);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "(document)"}: ${i.message}`);
  const initials = (input as { organisation?: { country?: unknown } } | null)?.organisation?.country;
  const country = typeof initials === "string" ? countryFromInitials(initials) : null;
  if (typeof initials === "string" && /^[A-Z0-9]{2,3}$/.test(initials) && !country) problems.push(`organisation.country: unknown country code ${initials}`);
  if (!parsed.success || !country || problems.length) return { problems };
  if (parsed.data.sample && sampleMarker === null) sampleMarker = '"sample": true';
  return { document: parsed.data, country, unmodelled, warnings, sampleMarker };
}

/**
 * Reads every document; throws INVALID_DATASET listing every problem of every file when any is bad.
 * @example
 * const docs = readIr21Documents(["samples/ir21"]);
 */
export function readIr21Documents(paths: string[]): LoadedDocument[] {
  const files = expandDocumentPaths(paths);
  if (files.length === 0) throw new AppError("INVALID_DATASET", `No .json or .xml documents in ${paths.join(", ")}`);
  const problems: string[] = [];
  const documents: LoadedDocument[] = [];
  const senders = new Map<string, string>();
  const plmns = new Map<string, string>();
  for (const file of files) {
    const raw = readFileSync(file);
    const result = parseIr21(file, decodeDocument(raw));
    if ("problems" in result) {
      problems.push(...result.problems.map((p) => `${file}: ${p}`));
      continue;
    }
    const { document } = result;
    const sender = document.document.sender_tadig;
    if (senders.has(sender)) problems.push(`${file}: sender ${sender} also sent ${senders.get(sender)}; import one document per operator`);
    senders.set(sender, file);
    for (const n of document.networks) {
      const plmn = `${n.mcc}-${n.mnc}`;
      if (plmns.has(plmn)) problems.push(`${file}: network ${plmn} is also in ${plmns.get(plmn)}`);
      plmns.set(plmn, file);
    }
    documents.push({
      file,
      sha256: createHash("sha256").update(raw).digest("hex"),
      document,
      country: result.country,
      unmodelled: result.unmodelled,
      warnings: result.warnings,
      sampleMarker: result.sampleMarker,
    });
  }
  if (problems.length) {
    throw new AppError("INVALID_DATASET", `IR.21 import refused, nothing was changed. ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
  return documents;
}

const toIsoTime = (value: string) => new Date(value.length === 10 ? `${value}T00:00:00.000Z` : value).toISOString();

/** ir21's own sample documents (server/samples/ir21), by checksum: only these are ir21's CC0 files. */
let ownSamples: Set<string> | null = null;
function ownSampleChecksums(): Set<string> {
  if (ownSamples) return ownSamples;
  ownSamples = new Set();
  const folder = fileURLToPath(OWN_IR21_SAMPLES);
  for (const entry of existsSync(folder) ? readdirSync(folder) : []) {
    if ([".json", ".xml"].includes(extname(entry).toLowerCase())) ownSamples.add(createHash("sha256").update(readFileSync(join(folder, entry))).digest("hex"));
  }
  return ownSamples;
}

/**
 * The source of a document. A sample is attributed as a sample, and as ir21's own CC0 file only when
 * it is byte for byte one of ir21's packaged samples; any other sample keeps its sender's terms (its
 * stated licence, else NOASSERTION) and says how it marked itself.
 */
function sourceOf(doc: LoadedDocument): SourceDescriptor {
  const { document } = doc;
  const sender = document.document.sender_tadig;
  const own = document.sample && ownSampleChecksums().has(doc.sha256);
  return {
    id: `${document.sample ? "ir21-sample" : "ir21"}:${sender}`,
    name: `${document.sample ? "SAMPLE " : ""}IR.21 document of ${document.organisation.name} (${sender})`,
    package: null,
    version: document.document.schema_version ?? null,
    files: [{ path: basename(doc.file), sha256: doc.sha256 }],
    license: document.document.license ?? (own ? "CC0-1.0" : document.sample ? "NOASSERTION" : "LicenseRef-IR21-operator-document"),
    attribution: own
      ? "Synthetic sample document shipped with ir21 for demonstration and tests; the values are NOT the operator's real IR.21 data."
      : document.sample
        ? `Sample IR.21 document of ${document.organisation.name} (${sender}), ${basename(doc.file)}, marked as a sample by ${doc.sampleMarker ?? "its sender"}; not a file of ir21 and not the operator's real IR.21 data; its terms are its author's.`
        : `IR.21 roaming data of ${document.organisation.name} (${sender}); redistribution subject to the operator's and GSMA's terms.`,
    url: null,
    published_at: toIsoTime(document.document.created_at),
    effective_at: toIsoTime(document.document.effective_date),
    sample: document.sample,
    file_version: document.document.file_version ?? null,
  };
}

/** A block start..end that is exactly "every number with prefix P" is stored as that prefix. */
function asPrefix(start: string, end: string): string | null {
  let i = start.length;
  while (i > 0 && start[i - 1] === "0" && end[i - 1] === "9") i--;
  return start.slice(0, i) === end.slice(0, i) ? start.slice(0, i) : null;
}

interface DocumentRecords {
  operator: OperatorRecord;
  networks: NetworkRecord[];
  numberRanges: NumberRangeRecord[];
  capabilities: CapabilityRecord[];
  /** The document declares itself the operator's complete data (mixed mode replaces all of it). */
  complete: boolean;
}

/**
 * The MNC as the reference data writes it for this MCC, so "002" and "02" are one network. An MNC
 * already known keeps its form; otherwise, when every reference MNC of the MCC has one length, the MNC
 * is brought to that length (a leading zero dropped or added); when the MCC mixes lengths, the other
 * form is used only if the reference data knows it. Unknown MCCs keep the document's MNC.
 */
export function normaliseMnc(mcc: string, mnc: string, known: Map<string, Set<string>>): string {
  const mncs = known.get(mcc);
  if (!mncs || mncs.has(mnc)) return mnc;
  const other = mnc.length === 3 && mnc.startsWith("0") ? mnc.slice(1) : mnc.length === 2 ? `0${mnc}` : null;
  if (other === null) return mnc;
  const lengths = new Set([...mncs].map((m) => m.length));
  if (mncs.has(other) || (lengths.size === 1 && lengths.has(other.length))) return other;
  return mnc;
}

/** Two blocks' capabilities: lists (MSRN ranges, MGTs …) are joined, other values keep the first block's. */
function mergeCapabilities(first: Record<string, unknown>, second: Record<string, unknown>): Ir21Document["networks"][number]["capabilities"] {
  const result: Record<string, unknown> = { ...second, ...first };
  for (const [name, value] of Object.entries(second)) {
    const mine = first[name];
    if (Array.isArray(mine) && Array.isArray(value)) {
      const keys = new Set(mine.map((v) => JSON.stringify(v)));
      result[name] = [...mine, ...value.filter((v) => !keys.has(JSON.stringify(v)))];
    }
  }
  return result as never;
}

function knownMncs(base: MaterialisedDataset | null): Map<string, Set<string>> {
  const known = new Map<string, Set<string>>();
  for (const n of base?.networks ?? []) {
    if (!known.has(n.mcc)) known.set(n.mcc, new Set());
    known.get(n.mcc)!.add(n.mnc);
  }
  return known;
}

function recordsOf(doc: LoadedDocument, base: MaterialisedDataset | null, mncs: Map<string, Set<string>>): DocumentRecords {
  const { country } = doc;
  // One network per normalised MCC-MNC: an XML document that writes "002" in one RoutingInfo block
  // and "02" in another describes one network, so the blocks' ranges and capabilities are merged.
  const merged = new Map<string, Ir21Document["networks"][number]>();
  for (const n of doc.document.networks) {
    const mnc = normaliseMnc(n.mcc, n.mnc, mncs);
    const key = `${n.mcc}-${mnc}`;
    const seen = merged.get(key);
    if (!seen) merged.set(key, { ...n, mnc });
    else
      merged.set(key, {
        ...seen,
        msisdn_ranges: [...seen.msisdn_ranges, ...n.msisdn_ranges],
        imsi_ranges: [...seen.imsi_ranges, ...n.imsi_ranges],
        capabilities: mergeCapabilities(seen.capabilities, n.capabilities),
        capability_dates: { ...n.capability_dates, ...seen.capability_dates },
      });
  }
  const document = { ...doc.document, networks: [...merged.values()] };
  const source = sourceOf(doc).id;
  // Keep the reference operator id where the document's networks or name are already known, so ids
  // stay stable across source modes.
  const baseNetworks = new Map(base?.networks.map((n) => [n.id, n]) ?? []);
  const known = document.networks.map((n) => baseNetworks.get(`${n.mcc}-${n.mnc}`)?.operator_id).find(Boolean);
  const byName = base?.operators.find((o) => o.country_iso2 === country && normaliseName(o.name) === normaliseName(document.organisation.name))?.id;
  const operatorId = known ?? byName ?? `${country.toLowerCase()}.${slug(normaliseName(document.organisation.name) || document.organisation.name)}`;
  const baseOperator = base?.operators.find((o) => o.id === operatorId);
  const docEffective = toIsoTime(document.document.effective_date);

  const operator: OperatorRecord = {
    id: operatorId,
    country_iso2: country,
    name: document.organisation.name,
    name_local: document.organisation.name_local ?? baseOperator?.name_local ?? null,
    brand: baseOperator?.brand ?? null,
    tadig: document.document.sender_tadig,
    // An operator that sends its IR.21 runs its network: active, its own successor, listed.
    status: "active",
    successor_id: null,
    lineage: null,
    listed: true,
    // The document speaks for its networks, not for where the operator sells: the reference data's
    // territories stay while the country does.
    territories: baseOperator && baseOperator.country_iso2 === country ? baseOperator.territories : [country],
    register_ids: baseOperator?.register_ids ?? [],
    source,
  };
  const networks: NetworkRecord[] = [];
  const numberRanges: NumberRangeRecord[] = [];
  const capabilities: CapabilityRecord[] = [];
  for (const n of document.networks) {
    const networkId = `${n.mcc}-${n.mnc}`;
    networks.push({
      id: networkId,
      mcc: n.mcc,
      mnc: n.mnc,
      country_iso2: country,
      operator_id: operatorId,
      name: n.name,
      tadig: n.tadig,
      network_type: n.network_type.toLowerCase(),
      status: "operational",
      technologies: [...new Set(n.technologies.map((t) => t.toUpperCase()))].sort(),
      bands: baseNetworks.get(networkId)?.bands ?? [],
      source,
    });
    for (const r of n.msisdn_ranges) {
      const start = r.cc + r.ndc + r.sn_start;
      const end = r.cc + r.ndc + r.sn_stop;
      const prefix = asPrefix(start, end);
      numberRanges.push({
        id: prefix ? `e164-${prefix}` : `e164-${start}-${end}`,
        plan: "e164",
        kind: r.kind,
        country_iso2: country,
        prefix,
        start: prefix ? null : start,
        end: prefix ? null : end,
        mcc: null,
        mnc: null,
        operator_id: operatorId,
        network_id: networkId,
        range_holder: document.organisation.name,
        range_holder_local: operator.name_local,
        source,
        source_date: null,
        status: null,
        range_holder_id: null,
      });
    }
    for (const r of n.imsi_ranges) {
      const start = n.mcc + n.mnc + r.msin_start;
      const end = n.mcc + n.mnc + r.msin_stop;
      numberRanges.push({
        id: `e212-${n.mcc}${n.mnc}-${r.msin_start}-${r.msin_stop}`,
        plan: "e212",
        kind: "mobile",
        country_iso2: country,
        prefix: null,
        start,
        end,
        mcc: n.mcc,
        mnc: n.mnc,
        operator_id: operatorId,
        network_id: networkId,
        range_holder: document.organisation.name,
        range_holder_local: operator.name_local,
        source,
        source_date: null,
        status: null,
        range_holder_id: null,
      });
    }
    for (const [name, value] of Object.entries(n.capabilities)) {
      capabilities.push({
        id: `network:${networkId}:${name}`,
        subject_type: "network",
        subject_id: networkId,
        country_iso2: country,
        operator_id: operatorId,
        network_id: networkId,
        name,
        value,
        // The date of the section the capability comes from, else the network's, else the document's.
        effective_at: toIsoTime(n.capability_dates[name] ?? n.effective_date ?? document.document.effective_date),
        source,
      });
    }
  }
  const duplicates = numberRanges.map((r) => r.id).filter((id, i, all) => all.indexOf(id) !== i);
  if (duplicates.length) throw new AppError("INVALID_DATASET", `${doc.file}: range ${duplicates[0]} is listed twice`);
  const networkIds = networks.map((n) => n.id).filter((id, i, all) => all.indexOf(id) !== i);
  if (networkIds.length) throw new AppError("INVALID_DATASET", `${doc.file}: network ${networkIds[0]} is listed twice (MNCs are compared as the reference data writes them)`);
  return { operator, networks, numberRanges, capabilities, complete: document.document.complete };
}

/** Every document's records; a network claimed by two documents (after MNC normalisation) is refused. */
function recordsOfAll(documents: LoadedDocument[], base: MaterialisedDataset): DocumentRecords[] {
  const known = knownMncs(base);
  const parts = documents.map((d) => recordsOf(d, base, known));
  const owner = new Map<string, string>();
  parts.forEach((p, i) => {
    for (const n of p.networks) {
      if (owner.has(n.id)) throw new AppError("INVALID_DATASET", `IR.21 import refused, nothing was changed: network ${n.id} is in ${documents[i]!.file} and ${owner.get(n.id)}`);
      owner.set(n.id, documents[i]!.file);
    }
  });
  return parts;
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * `ir21` mode: the documents' operators only, with the reference data's countries (and its ids where
 * an operator is already known there).
 */
export function ir21Dataset(documents: LoadedDocument[], reference: MaterialisedDataset): MaterialisedDataset {
  const parts = recordsOfAll(documents, reference);
  const countrySources = reference.sources.filter((s) => s.id === "i18n-iso-countries" || s.id === "libphonenumber-js");
  return {
    sourceMode: "ir21",
    sources: [...documents.map(sourceOf), ...countrySources],
    countries: reference.countries,
    operators: parts.map((p) => p.operator).sort(byId),
    networks: parts.flatMap((p) => p.networks).sort(byId),
    numberRanges: parts.flatMap((p) => p.numberRanges).sort(byId),
    capabilities: parts.flatMap((p) => p.capabilities).sort(byId),
  };
}

/**
 * `mixed` mode: the reference dataset with what each document covers replaced by the document
 * (docs/ir21-format.md "Mixed mode"): its operator record, the networks it lists (with their
 * capabilities) and the ranges it lists (same id). Reference networks, ranges and capabilities of the
 * operator that the document does not mention stay, unless the document declares itself complete, in
 * which case everything the reference data has for the operator is replaced. Every record keeps the
 * source it came from.
 */
export function mixedDataset(documents: LoadedDocument[], reference: MaterialisedDataset): MaterialisedDataset {
  const parts = recordsOfAll(documents, reference);
  const operatorIds = new Set(parts.map((p) => p.operator.id));
  const completeOperators = new Set(parts.filter((p) => p.complete).map((p) => p.operator.id));
  const networkIds = new Set(parts.flatMap((p) => p.networks.map((n) => n.id)));
  const rangeIds = new Set(parts.flatMap((p) => p.numberRanges.map((r) => r.id)));
  const ofComplete = (operatorId: string | null) => operatorId !== null && completeOperators.has(operatorId);
  return {
    sourceMode: "mixed",
    sources: [...reference.sources, ...documents.map(sourceOf)],
    countries: reference.countries,
    operators: [...reference.operators.filter((o) => !operatorIds.has(o.id)), ...parts.map((p) => p.operator)].sort(byId),
    networks: [...reference.networks.filter((n) => !networkIds.has(n.id) && !ofComplete(n.operator_id)), ...parts.flatMap((p) => p.networks)].sort(byId),
    numberRanges: [...reference.numberRanges.filter((r) => !rangeIds.has(r.id) && !ofComplete(r.operator_id)), ...parts.flatMap((p) => p.numberRanges)].sort(byId),
    capabilities: [
      ...reference.capabilities.filter((c) => !(c.network_id && networkIds.has(c.network_id)) && !ofComplete(c.operator_id)),
      ...parts.flatMap((p) => p.capabilities),
    ].sort(byId),
  };
}
