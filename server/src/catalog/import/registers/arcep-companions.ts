import { arcepDate, companionByName, latestDate, openArcep } from "./arcep.ts";
import { nonEmpty } from "./collect.ts";
import { dataRecords, headerMatches, type ColumnSpec, type ReaderInput, type RegisterReader } from "./reader.ts";
import type { NetworkStatus, RegisterFile, RegisterId, ResourceKind } from "./types.ts";

/**
 * ARCEP's companion files, read so that their holders' names and codes are known and nothing is
 * dropped: they name the operator codes (Mnémo) that MAJNUM's blocks carry without names.
 *
 * - MAJRIO (RIO operator codes), MAJCPSN (national signalling point codes), MAJR1R2 (network codes)
 *   and MAJSDT (carrier-selection prefixes) share the header `Ressource;Code Attributaire;
 *   Attributaire;Date d'effet (attribution);N° décision d'attribution`; MAJCPSI (international
 *   signalling point codes) adds `Territoire`. Rows become resources held by the code attributaire.
 * - MAJPORTA `EZABPQM;Mnémo;Date_Attribution`: routing prefixes of ported numbers → resources.
 * - MAJMNC `MCC-MNC;Mnémo;Nom;Date_Attribution;Décision_Attribution` → networks: 5 digits are MCC
 *   and a 2-digit MNC, 6 digits a 3-digit MNC (208 700…), 8 digits an IMSI block of independent
 *   networks inside MNC 50 or 51 (`20850144`: MCC 208, MNC 50, MSIN starting 144).
 */

const RESOURCES = {
  code: { names: ["Ressource"], required: true },
  holder: { names: ["Code Attributaire"], required: true },
  name: { names: ["Attributaire"], required: true },
  territory: { names: ["Territoire"], required: false },
  assigned: { names: ["Date d'effet (attribution)", "Date d'effet"], required: true },
  decision: { names: ["N° décision d'attribution"], required: false },
} satisfies Record<string, ColumnSpec>;

const PORTABILITY = {
  code: { names: ["EZABPQM"], required: true },
  holder: { names: ["Mnémo", "Mnemo"], required: true },
  assigned: { names: ["Date_Attribution"], required: true },
} satisfies Record<string, ColumnSpec>;

const NETWORKS = {
  code: { names: ["MCC-MNC"], required: true },
  holder: { names: ["Mnémo", "Mnemo"], required: true },
  name: { names: ["Nom"], required: true },
  assigned: { names: ["Date_Attribution"], required: true },
  decision: { names: ["Décision_Attribution"], required: false },
} satisfies Record<string, ColumnSpec>;

type ResourceRegister = "fr-arcep-majrio" | "fr-arcep-majcpsn" | "fr-arcep-majcpsi" | "fr-arcep-majr1r2" | "fr-arcep-majsdt";

/** Each resource file's kind and the code shape ARCEP writes. */
const RESOURCE_FILES: Record<ResourceRegister, { kind: ResourceKind; shape: RegExp }> = {
  "fr-arcep-majrio": { kind: "rio_operator_code", shape: /^[A-Z0-9]{2}$/ },
  "fr-arcep-majcpsn": { kind: "signalling_point_code_national", shape: /^\d{5}$/ },
  "fr-arcep-majcpsi": { kind: "signalling_point_code_international", shape: /^\d-\d{3}-\d$/ },
  "fr-arcep-majr1r2": { kind: "network_code_r1r2", shape: /^\d{2}$/ },
  "fr-arcep-majsdt": { kind: "carrier_selection_prefix", shape: /^(?:16\d\d|\d)$/ },
};

/** MCCs ARCEP assigns codes under, and where they are used. */
const FRENCH_MCCS: Record<string, string[]> = {
  "208": ["FR"],
  "308": ["PM"],
  "340": ["GP", "MQ", "GF", "BL", "MF"],
  "647": ["RE", "YT"],
  "742": ["GF"],
};

/** Codes ARCEP gives itself (`ARCEP`, "Usage ARCEP") or sets aside for shared use (`ART`, "Usage collectif"): reserved, not an operator's. */
const REGULATOR_CODES = new Set(["ARCEP", "ART"]);

export const arcepResourcesReader: RegisterReader = {
  ids: Object.keys(RESOURCE_FILES) as RegisterId[],
  headerEncodings: ["windows-1252", "utf-8"],
  recognise(head, fileName) {
    if (head[0] === undefined || !headerMatches(head[0], ";", RESOURCES)) return null;
    const named = companionByName(fileName);
    if (named && named in RESOURCE_FILES) return named;
    if (/territoire/i.test(head[0])) return "fr-arcep-majcpsi";
    // The first rows' codes: each file's shape is distinct (F0 / 00001 / 02 / 1611).
    const codes = head.slice(1).map((l) => l.split(";")[0]?.replace(/"/g, "").trim() ?? "").filter((c) => c !== "");
    for (const id of ["fr-arcep-majcpsn", "fr-arcep-majr1r2", "fr-arcep-majsdt", "fr-arcep-majrio"] as const) {
      if (codes.length > 0 && codes.filter((c) => RESOURCE_FILES[id].shape.test(c)).length > codes.length / 2) return id;
    }
    return null;
  },
  read: readResources,
};

export const arcepPortabilityReader: RegisterReader = {
  ids: ["fr-arcep-majporta"],
  headerEncodings: ["windows-1252", "utf-8"],
  recognise: (head) => (head[0] !== undefined && headerMatches(head[0], ";", PORTABILITY) && !/tranche/i.test(head[0]) ? "fr-arcep-majporta" : null),
  read: readPortability,
};

export const arcepNetworksReader: RegisterReader = {
  ids: ["fr-arcep-majmnc"],
  headerEncodings: ["windows-1252", "utf-8"],
  recognise: (head) => (head[0] !== undefined && headerMatches(head[0], ";", NETWORKS) ? "fr-arcep-majmnc" : null),
  read: readNetworks,
};

function readResources(input: ReaderInput): RegisterFile {
  const opened = openArcep(input, RESOURCES, "resource file");
  if (!("table" in opened)) return opened;
  const { table, header } = opened;
  const { collector, records } = table;
  const headerLength = records[0]!.fields.length;
  collector.columns(header.written(["code", "holder", "name", "territory", "assigned", "decision"]), header.unknown);
  const file = RESOURCE_FILES[input.register as ResourceRegister];
  const assignedColumn = header.written(["assigned"])[0]!;

  for (const record of dataRecords(table, headerLength)) {
    const { fields, line } = record;
    const code = header.get(fields, "code")!.trim();
    if (code === "") {
      collector.list(line, "malformed", "no resource code");
      continue;
    }
    if (!file.shape.test(code)) collector.warn(line, "code_shape", `${code} is not shaped like ${input.register}'s codes; kept`);
    const holderId = nonEmpty(header.get(fields, "holder"))?.trim() ?? null;
    const assigned = arcepDate(collector, line, assignedColumn, header.get(fields, "assigned"));
    latestDate(collector, assigned);
    collector.resource({
      row: line,
      kind: file.kind,
      code,
      holder: holderId === null ? null : { id: holderId, name: nonEmpty(header.get(fields, "name")) },
      status: holderId === null ? "unknown" : "assigned",
      registerType: null,
      region: nonEmpty(header.get(fields, "territory")),
      assignedOn: assigned,
      dates: assigned ? { [assignedColumn]: assigned } : {},
      decision: nonEmpty(header.get(fields, "decision"))?.trim() ?? null,
    });
  }
  return collector.finish();
}

function readPortability(input: ReaderInput): RegisterFile {
  const opened = openArcep(input, PORTABILITY, "MAJPORTA");
  if (!("table" in opened)) return opened;
  const { table, header } = opened;
  const { collector, records } = table;
  const headerLength = records[0]!.fields.length;
  collector.columns(header.written(["code", "holder", "assigned"]), header.unknown);

  for (const record of dataRecords(table, headerLength)) {
    const { fields, line } = record;
    const code = header.get(fields, "code")!.trim();
    if (!/^\d+$/.test(code)) {
      collector.list(line, "malformed", `routing prefix "${code}" is not digits`);
      continue;
    }
    const holderId = nonEmpty(header.get(fields, "holder"))?.trim() ?? null;
    const assigned = arcepDate(collector, line, "Date_Attribution", header.get(fields, "assigned"));
    latestDate(collector, assigned);
    collector.resource({
      row: line,
      kind: "routing_prefix",
      code,
      holder: holderId === null ? null : { id: holderId, name: null },
      status: holderId === null ? "unknown" : "assigned",
      registerType: null,
      region: null,
      assignedOn: assigned,
      dates: assigned ? { Date_Attribution: assigned } : {},
      decision: null,
    });
  }
  return collector.finish();
}

function readNetworks(input: ReaderInput): RegisterFile {
  const opened = openArcep(input, NETWORKS, "MAJMNC");
  if (!("table" in opened)) return opened;
  const { table, header } = opened;
  const { collector, records } = table;
  const headerLength = records[0]!.fields.length;
  collector.columns(header.written(["code", "holder", "name", "assigned", "decision"]), header.unknown);
  const seen = new Map<string, number>();

  for (const record of dataRecords(table, headerLength)) {
    const { fields, line } = record;
    const code = header.get(fields, "code")!.trim();
    const m = /^(\d{3})(?:(\d{2})|(\d{3})|(\d{2})(\d{3}))$/.exec(code);
    if (!m) {
      collector.list(line, "malformed", `MCC-MNC "${code}" is not 5, 6 or 8 digits`);
      continue;
    }
    const mcc = m[1]!;
    const mnc = m[2] ?? m[3] ?? m[4]!;
    const msinPrefix = m[5] ?? null;
    const countries = FRENCH_MCCS[mcc];
    if (!countries) {
      collector.list(line, "outside_numbering", `MCC ${mcc} is not one of France's (${Object.keys(FRENCH_MCCS).join(", ")})`);
      continue;
    }
    const before = seen.get(code);
    if (before !== undefined) {
      collector.list(line, "duplicate", `${code} repeats line ${before}`);
      continue;
    }
    seen.set(code, line);
    const holderId = nonEmpty(header.get(fields, "holder"))?.trim() ?? null;
    const assigned = arcepDate(collector, line, "Date_Attribution", header.get(fields, "assigned"));
    latestDate(collector, assigned);
    const status: NetworkStatus = holderId === null ? "unknown" : REGULATOR_CODES.has(holderId) ? "reserved" : "assigned";
    collector.network({
      row: line,
      mcc,
      mnc,
      mncLast: null,
      msinPrefix,
      country: countries.length === 1 ? countries[0]! : null,
      countries,
      countryName: null,
      holder: holderId === null ? null : { id: holderId, name: nonEmpty(header.get(fields, "name")) },
      brand: null,
      status,
      registerStatus: null,
      type: null,
      bands: null,
      notes: null,
      assignedOn: assigned,
      decision: nonEmpty(header.get(fields, "decision"))?.trim() ?? null,
    });
  }
  return collector.finish();
}
