import { Collector } from "./collect.ts";
import { countryCode } from "./countries.ts";
import { REGISTERS } from "./info.ts";
import type { ReaderInput, RegisterReader } from "./reader.ts";
import { decodeRegisterText } from "./text.ts";
import type { NetworkStatus, RegisterFile, RegisterNetwork } from "./types.ts";

/**
 * Two lists of mobile network codes (E.212), JSON, one entry per network; rows are counted in
 * entries (`report.rows.unit = "entry"`, numbered from 1 in document order).
 *
 * - The mcc-mnc-list package's shape (`[{type, countryName, countryCode, mcc, mnc, brand, operator,
 *   status, bands, notes}]`), here a newer community copy: a pair repeats across the countries and
 *   territories sharing it (234-50 under GB, GG and JE), all kept; some MNCs are odd: a range
 *   (`100 - 190`: kept as one network with `mncLast`), five digits under 208 (`50144`: ARCEP's IMSI
 *   blocks of MNC 50, kept as MNC `50` with `msinPrefix` `144`), `?` (listed as malformed).
 * - The ITU E.212 list as JSON (`{etag, areas: {<area>: [{name, mcc, mnc}]}, areaNames}`): one entry
 *   per assigned code, the area's name mapped to its ISO code.
 *
 * Neither carries a date: the caller states it.
 */

const STATUS: Record<string, NetworkStatus> = {
  operational: "operational",
  "temporary operational": "operational",
  "not operational": "not_operational",
  "returned spare": "not_operational",
  reserved: "reserved",
  allocated: "assigned",
  planned: "assigned",
  upcoming: "assigned",
  "building network": "assigned",
  "implement / design": "assigned",
  ongoing: "assigned",
  testing: "testing",
  "test network": "testing",
  unknown: "unknown",
};

const head = (text: string) => text.replace(/^\uFEFF/, "").slice(0, 65536);

export const mccMncListReader: RegisterReader = {
  ids: ["intl-mcc-mnc-list"],
  headerEncodings: ["utf-8"],
  recognise: (lines) => {
    const text = head(lines.join("\n"));
    return /^\s*\[\s*\{/.test(text) && /"mcc"\s*:/.test(text) && /"countryCode"\s*:/.test(text) ? "intl-mcc-mnc-list" : null;
  },
  read: readMccMncList,
};

export const ituE212Reader: RegisterReader = {
  ids: ["intl-itu-e212"],
  headerEncodings: ["utf-8"],
  recognise: (lines) => {
    const text = head(lines.join("\n"));
    return /^\s*\{/.test(text) && /"areas"\s*:/.test(text) ? "intl-itu-e212" : null;
  },
  read: readItu,
};

function parse(input: ReaderInput): { collector: Collector; value: unknown } | RegisterFile {
  const decoded = decodeRegisterText(input.bytes, REGISTERS[input.register].encoding, "windows-1252");
  const collector = new Collector(input.register, null, input.file, decoded.encoding, "entry", input.recognisedBy);
  if (decoded.warning) collector.warn(null, "encoding", decoded.warning);
  try {
    return { collector, value: JSON.parse(decoded.text) };
  } catch (error) {
    return Collector.refused(input.file, input.register, input.recognisedBy, decoded.encoding, `not valid JSON: ${(error as Error).message}`);
  }
}

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);

function readMccMncList(input: ReaderInput): RegisterFile {
  const parsed = parse(input);
  if (!("collector" in parsed)) return parsed;
  const { collector, value } = parsed;
  if (!Array.isArray(value)) return Collector.refused(input.file, input.register, input.recognisedBy, collector.encoding, "not a JSON array of network entries");
  collector.columns(["type", "countryName", "countryCode", "mcc", "mnc", "brand", "operator", "status", "bands", "notes"], []);
  const exact = new Map<string, number>();
  const pairs = new Map<string, Map<string, number>>();
  const otherKeys = new Set<string>();

  value.forEach((entry: unknown, index) => {
    const row = index + 1;
    collector.seen();
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      collector.list(row, "malformed", "not an object");
      return;
    }
    const e = entry as Record<string, unknown>;
    for (const key of Object.keys(e)) if (!["type", "countryName", "countryCode", "mcc", "mnc", "brand", "operator", "status", "bands", "notes"].includes(key)) otherKeys.add(key);
    const fingerprint = JSON.stringify(e);
    const before = exact.get(fingerprint);
    if (before !== undefined) {
      collector.list(row, "duplicate", `the same entry as entry ${before}`);
      return;
    }
    exact.set(fingerprint, row);
    const mcc = typeof e.mcc === "string" ? e.mcc.trim() : String(e.mcc ?? "");
    const mncText = typeof e.mnc === "string" ? e.mnc.trim() : String(e.mnc ?? "");
    if (!/^\d{3}$/.test(mcc)) {
      collector.list(row, "malformed", `MCC "${mcc}" is not 3 digits`);
      return;
    }
    let mnc: string;
    let mncLast: string | null = null;
    let msinPrefix: string | null = null;
    const range = /^(\d{2,3})\s*-\s*(\d{2,3})$/.exec(mncText);
    if (/^\d{2,3}$/.test(mncText)) mnc = mncText;
    else if (range && range[1]!.length === range[2]!.length && range[1]! < range[2]!) {
      mnc = range[1]!;
      mncLast = range[2]!;
      collector.warn(row, "mnc_range", `MNC "${mncText}" is a range: kept as one entry, MNC ${mnc} to ${mncLast}`);
    } else if (/^\d{4,7}$/.test(mncText)) {
      mnc = mncText.slice(0, 2);
      msinPrefix = mncText.slice(2);
      collector.warn(row, "mnc_imsi_block", `MNC "${mncText}" has ${mncText.length} digits: read as MNC ${mnc} and an IMSI block ${mcc}${mnc}${msinPrefix}… (as ARCEP assigns MNC 50's)`);
    } else {
      collector.list(row, "malformed", `MNC "${mncText}" is not 2 or 3 digits, a range or an IMSI block`);
      return;
    }
    const codes = text(e.countryCode);
    const countries = codes === null ? [] : [...new Set(codes.split("/").map((c) => c.trim().toUpperCase().split("-")[0]!))];
    const bad = countries.filter((c) => !/^[A-Z]{2}$/.test(c));
    if (bad.length > 0) collector.warn(row, "country_code", `countryCode "${codes}" holds ${bad.join(", ")}, not ISO alpha-2 codes; left out`);
    const good = countries.filter((c) => /^[A-Z]{2}$/.test(c));
    const statusWord = text(e.status);
    const status = statusWord === null ? "unknown" : STATUS[statusWord.trim().toLowerCase()];
    if (statusWord !== null && !status) collector.warn(row, "unknown_status", `status "${statusWord}" is not one this module knows; kept as unknown`);
    const operator = text(e.operator);
    const key = `${mcc}-${mnc}${msinPrefix ?? ""}${mncLast ? `..${mncLast}` : ""}`;
    const where = pairs.get(key) ?? new Map<string, number>();
    const sameCountry = where.get(codes ?? "international");
    if (sameCountry !== undefined) collector.warn(row, "repeated_pair", `${key} repeats entry ${sameCountry} in the same country (${codes ?? "international"}) with other details; both kept`);
    else where.set(codes ?? "international", row);
    pairs.set(key, where);
    const network: RegisterNetwork = {
      row,
      mcc,
      mnc,
      mncLast,
      msinPrefix,
      country: good.length === 1 ? good[0]! : null,
      countries: good,
      countryName: text(e.countryName),
      holder: operator === null ? null : { id: operator, name: operator },
      brand: text(e.brand),
      status: status ?? "unknown",
      registerStatus: statusWord,
      type: text(e.type),
      bands: text(e.bands),
      notes: text(e.notes),
      assignedOn: null,
      decision: null,
    };
    collector.network(network);
  });
  const shared = [...pairs].filter(([, where]) => where.size > 1);
  if (shared.length > 0) {
    collector.warn(
      null,
      "shared_pairs",
      `${shared.length} MCC-MNC pairs appear under several countries, each entry kept: ${shared
        .slice(0, 12)
        .map(([pair, where]) => `${pair} (${[...where.keys()].join(", ")})`)
        .join("; ")}${shared.length > 12 ? "; …" : ""}`,
    );
  }
  if (otherKeys.size > 0) collector.columns(["type", "countryName", "countryCode", "mcc", "mnc", "brand", "operator", "status", "bands", "notes"], [...otherKeys]);
  return collector.finish();
}

function readItu(input: ReaderInput): RegisterFile {
  const parsed = parse(input);
  if (!("collector" in parsed)) return parsed;
  const { collector, value } = parsed;
  const doc = value as { areas?: unknown; areaNames?: unknown; etag?: unknown } | null;
  if (doc === null || typeof doc !== "object" || doc.areas === null || typeof doc.areas !== "object" || Array.isArray(doc.areas)) {
    return Collector.refused(input.file, input.register, input.recognisedBy, collector.encoding, 'not an object with "areas" by area name');
  }
  const names = new Map<string, string>();
  if (Array.isArray(doc.areaNames)) for (const n of doc.areaNames) if (typeof n === "string") names.set(n.toLowerCase(), n);
  collector.columns(["areas.<area>", "areaNames", "name", "mcc", "mnc"], Object.keys(doc).filter((k) => k !== "areas" && k !== "areaNames"));
  const seen = new Map<string, number>();
  const pairs = new Map<string, Set<string>>();
  let row = 0;
  for (const [area, entries] of Object.entries(doc.areas as Record<string, unknown>)) {
    const areaName = names.get(area.toLowerCase()) ?? area;
    const country = countryCode(areaName);
    if (!Array.isArray(entries)) {
      row++;
      collector.seen();
      collector.list(row, "malformed", `area "${area}" is not a list of entries`);
      continue;
    }
    if (!country && entries.length > 0) collector.warn(null, "unknown_country", `area "${areaName}" is not a country this module knows; its ${entries.length} networks have no country`);
    for (const entry of entries as unknown[]) {
      row++;
      collector.seen();
      const e = (entry ?? {}) as Record<string, unknown>;
      const mcc = typeof e.mcc === "string" ? e.mcc.trim() : "";
      const mnc = typeof e.mnc === "string" ? e.mnc.trim() : "";
      if (typeof entry !== "object" || entry === null || !/^\d{3}$/.test(mcc) || !/^\d{2,3}$/.test(mnc)) {
        collector.list(row, "malformed", `entry of "${area}" is not {name, mcc (3 digits), mnc (2 or 3 digits)}: ${JSON.stringify(entry)?.slice(0, 120)}`);
        continue;
      }
      const key = `${area}:${mcc}-${mnc}`;
      const before = seen.get(key);
      if (before !== undefined) {
        collector.list(row, "duplicate", `${mcc}-${mnc} repeats entry ${before} of "${area}"`);
        continue;
      }
      seen.set(key, row);
      const where = pairs.get(`${mcc}-${mnc}`) ?? new Set<string>();
      where.add(areaName);
      pairs.set(`${mcc}-${mnc}`, where);
      const name = text(e.name);
      collector.network({
        row,
        mcc,
        mnc,
        mncLast: null,
        msinPrefix: null,
        country,
        countries: country ? [country] : [],
        countryName: areaName,
        holder: name === null ? null : { id: name, name },
        brand: null,
        status: "assigned",
        registerStatus: null,
        type: null,
        bands: null,
        notes: null,
        assignedOn: null,
        decision: null,
      });
    }
  }
  const shared = [...pairs].filter(([, where]) => where.size > 1);
  if (shared.length > 0) {
    collector.warn(null, "shared_pairs", `${shared.length} MCC-MNC pairs appear under several areas, each entry kept: ${shared.map(([pair, where]) => `${pair} (${[...where].join(", ")})`).join("; ")}`);
  }
  return collector.finish();
}
