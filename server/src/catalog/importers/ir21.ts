import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import countriesLib from "i18n-iso-countries";
import type { SourceDescriptor } from "../../contract/catalog.ts";
import { AppError } from "../../errors.ts";
import type { CapabilityRecord, NetworkRecord, NumberRangeRecord, OperatorRecord } from "../records.ts";
import type { MaterialisedDataset } from "./demo.ts";
import { Ir21Document } from "./ir21-document.ts";
import { ir21FromXml } from "./ir21-xml.ts";
import { normaliseName, slug } from "./names.ts";

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
export function parseIr21(file: string, content: string): { document: Ir21Document; country: string } | { problems: string[] } {
  let input: unknown;
  const ext = extname(file).toLowerCase();
  if (ext === ".xml" || content.trimStart().startsWith("<")) {
    const xml = ir21FromXml(content);
    if ("problems" in xml) return xml;
    input = xml.document;
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
  return { document: parsed.data, country };
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
    const result = parseIr21(file, raw.toString("utf8"));
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
    documents.push({ file, sha256: createHash("sha256").update(raw).digest("hex"), document, country: result.country });
  }
  if (problems.length) {
    throw new AppError("INVALID_DATASET", `IR.21 import refused, nothing was changed. ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
  return documents;
}

const toIsoTime = (value: string) => new Date(value.length === 10 ? `${value}T00:00:00.000Z` : value).toISOString();

function sourceOf(doc: LoadedDocument): SourceDescriptor {
  const { document } = doc;
  const sender = document.document.sender_tadig;
  return {
    id: `${document.sample ? "ir21-sample" : "ir21"}:${sender}`,
    name: `${document.sample ? "SAMPLE " : ""}IR.21 document of ${document.organisation.name} (${sender})`,
    package: null,
    version: document.document.schema_version ?? null,
    files: [{ path: basename(doc.file), sha256: doc.sha256 }],
    license: document.document.license ?? (document.sample ? "CC0-1.0" : "LicenseRef-IR21-operator-document"),
    attribution: document.sample
      ? "Synthetic sample document shipped with ir21 for demonstration and tests; the values are NOT the operator's real IR.21 data."
      : `IR.21 roaming data of ${document.organisation.name} (${sender}); redistribution subject to the operator's and GSMA's terms.`,
    url: null,
    published_at: toIsoTime(document.document.created_at),
    effective_at: toIsoTime(document.document.effective_date),
    sample: document.sample,
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
  coversRanges: { e164: boolean; e212: boolean };
}

function recordsOf(doc: LoadedDocument, base: MaterialisedDataset | null): DocumentRecords {
  const { document, country } = doc;
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
    status: "active",
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
        effective_at: n.effective_date ? toIsoTime(n.effective_date) : docEffective,
        source,
      });
    }
  }
  const duplicates = numberRanges.map((r) => r.id).filter((id, i, all) => all.indexOf(id) !== i);
  if (duplicates.length) throw new AppError("INVALID_DATASET", `${doc.file}: range ${duplicates[0]} is listed twice`);
  return {
    operator,
    networks,
    numberRanges,
    capabilities,
    coversRanges: { e164: numberRanges.some((r) => r.plan === "e164"), e212: numberRanges.some((r) => r.plan === "e212") },
  };
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * `ir21` mode: the documents' operators only, with the reference data's countries (and its ids where
 * an operator is already known there).
 */
export function ir21Dataset(documents: LoadedDocument[], reference: MaterialisedDataset): MaterialisedDataset {
  const parts = documents.map((d) => recordsOf(d, reference));
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
 * `mixed` mode: the reference dataset with each document's operator replaced by the document. For
 * that operator the document's networks and capabilities replace the reference ones; its ranges
 * replace the reference ranges of the same plan (E.164, E.212) when the document lists any, and the
 * reference ranges stay otherwise. Every record keeps the source it came from.
 */
export function mixedDataset(documents: LoadedDocument[], reference: MaterialisedDataset): MaterialisedDataset {
  const parts = documents.map((d) => recordsOf(d, reference));
  const operatorIds = new Set(parts.map((p) => p.operator.id));
  const networkIds = new Set(parts.flatMap((p) => p.networks.map((n) => n.id)));
  const rangeIds = new Set(parts.flatMap((p) => p.numberRanges.map((r) => r.id)));
  const replacesRanges = new Map(parts.map((p) => [p.operator.id, p.coversRanges]));
  return {
    sourceMode: "mixed",
    sources: [...reference.sources, ...documents.map(sourceOf)],
    countries: reference.countries,
    operators: [...reference.operators.filter((o) => !operatorIds.has(o.id)), ...parts.map((p) => p.operator)].sort(byId),
    networks: [
      ...reference.networks.filter((n) => !networkIds.has(n.id) && !(n.operator_id && operatorIds.has(n.operator_id))),
      ...parts.flatMap((p) => p.networks),
    ].sort(byId),
    numberRanges: [
      ...reference.numberRanges.filter((r) => {
        if (rangeIds.has(r.id)) return false;
        const covers = r.operator_id ? replacesRanges.get(r.operator_id) : undefined;
        return !covers?.[r.plan];
      }),
      ...parts.flatMap((p) => p.numberRanges),
    ].sort(byId),
    capabilities: [
      ...reference.capabilities.filter((c) => !(c.operator_id && operatorIds.has(c.operator_id)) && !(c.network_id && networkIds.has(c.network_id))),
      ...parts.flatMap((p) => p.capabilities),
    ].sort(byId),
  };
}
