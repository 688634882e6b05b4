import type { CapabilityRecord, NetworkRecord, NumberRangeRecord } from "../../model/records.ts";
import { compactKey } from "../../operators/names.ts";
import { survivingOperatorId } from "../../operators/lineage.ts";
import { networkCountries } from "../network-countries.ts";
import { imsiBlockRange, newAccounting, settle, type NetworkFileAccounting } from "../network-records.ts";
import type { ReferenceCountries } from "./reference-countries.ts";
import { addAlias, derivedOperatorId, mostCommon, newOperatorAliases, type OperatorAliases, type OperatorDraft } from "./reference-operators.ts";

/**
 * The reference dataset's networks and operators, from mcc-mnc-list (Wikipedia's "Mobile country code"
 * list: one row per MCC-MNC and territory), and, once the number ranges are known, where each network
 * and operator is placed.
 */

/** A row of mcc-mnc-list.json. */
export interface MccMncRow {
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

export interface ReferenceNetworks {
  /** MCC-MNC → network, in the order the rows were kept (primary country's rows first). */
  networks: Map<string, NetworkRecord>;
  operators: Map<string, OperatorDraft>;
  /** The names of each operator, for linking range holders (reference-operators.ts operatorLinker). */
  aliases: OperatorAliases;
  /** What became of each row: networks, merged repeats, IMSI blocks, listed. */
  accounting: NetworkFileAccounting;
  /** ARCEP's IMSI blocks inside MNC 50 (`208 50144`) as e212 ranges. */
  imsiBlocks: NumberRangeRecord[];
  /** Network id → every territory whose rows list it. */
  networkTerritories: Map<string, Set<string>>;
  /** Country → the MCCs its rows use, sorted: every territory a row lists uses its MCC (340 is Guadeloupe's, Martinique's, Guyane's …). */
  countryMccs: Map<string, string[]>;
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
 * Countries whose mcc-mnc-list rows carry the licence area (e.g. India's telecom circles: "Punjab")
 * in the operator column: there the brand names the operator.
 */
const BRAND_IS_OPERATOR = new Set(["IN"]);

const operatorNameOf = (row: MccMncRow, country: string) => ((BRAND_IS_OPERATOR.has(country) ? row.brand : null) ?? row.operator ?? row.brand ?? "").trim();

/** A row of one MCC + 2- or 3-digit MNC (a PLMN); the others are IMSI blocks or listed. */
const isPlmn = (row: MccMncRow) => /^\d{3}$/.test(row.mcc) && /^\d{2,3}$/.test(row.mnc);

export function referenceNetworks(rows: MccMncRow[], places: ReferenceCountries): ReferenceNetworks {
  const accounting = newAccounting("mcc-mnc-list", "mcc-mnc-list/mcc-mnc-list.json", rows.length);
  const { networks, operators, aliases, territoryRows, oddRows } = networksOfRows(rows, places, accounting);
  const imsiBlocks = imsiBlocksOf(oddRows, rows, places, networks, operators, accounting);
  settle(accounting);
  countTerritoryStatuses(territoryRows, places, networks, operators);
  return { networks, operators, aliases, accounting, imsiBlocks, ...rowTerritories(rows, places, networks) };
}

/** The PLMN rows as networks and operator drafts, each operator's names filed in the alias indexes. */
function networksOfRows(rows: MccMncRow[], { countryOf, territoriesOf }: ReferenceCountries, accounting: NetworkFileAccounting) {
  const mccCountries = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const country = countryOf(row.countryCode);
    const counts = mccCountries.get(row.mcc) ?? new Map<string, number>();
    counts.set(country, (counts.get(country) ?? 0) + 1);
    mccCountries.set(row.mcc, counts);
  }
  const primaryCountry = new Map([...mccCountries].map(([mcc, counts]) => [mcc, mostCommon(counts)!]));

  const operators = new Map<string, OperatorDraft>();
  const aliases = newOperatorAliases();
  const networks = new Map<string, NetworkRecord>();
  /** Rows of a PLMN already kept under another territory's row (their statuses: countTerritoryStatuses). */
  const territoryRows: MccMncRow[] = [];
  /** Entries that are no MCC + 2- or 3-digit MNC: IMSI blocks (208 50144) or listed (imsiBlocksOf). */
  const oddRows: MccMncRow[] = [];
  // Rows of the MCC's primary country first, so a PLMN listed under several territories (234-03 under
  // GB, GG and JE) is kept once, under its main country.
  const ordered = [...rows].sort((a, b) => {
    const pa = countryOf(a.countryCode) === primaryCountry.get(a.mcc) ? 0 : 1;
    const pb = countryOf(b.countryCode) === primaryCountry.get(b.mcc) ? 0 : 1;
    return pa - pb;
  });
  for (const row of ordered) {
    const id = `${row.mcc}-${row.mnc}`;
    if (!isPlmn(row)) {
      oddRows.push(row);
      continue;
    }
    const kept = networks.get(id);
    if (kept) {
      accounting.merged++;
      territoryRows.push(row);
      // The same PLMN listed again under another territory: its names there lead to the kept operator.
      for (const territory of territoriesOf(row.countryCode)) {
        if (!kept.operator_id || territory === kept.country_iso2) continue;
        addAlias(aliases.territory, territory, row.operator, kept.operator_id);
        addAlias(aliases.territory, territory, row.brand, kept.operator_id);
      }
      continue;
    }
    const country = countryOf(row.countryCode);
    const operatorName = operatorNameOf(row, country);
    let operatorId: string | null = null;
    if (operatorName) {
      const derivedId = derivedOperatorId(country, operatorName);
      // A duplicate row of one operator (operator-lineage.ts OPERATOR_MERGES) is folded into the
      // survivor: its networks, ranges and statuses; the survivor keeps its own name and brand.
      operatorId = survivingOperatorId(derivedId);
      const draft = operators.get(operatorId) ?? { id: operatorId, country, names: new Map(), brands: new Map(), statuses: new Set() };
      const brand = row.brand?.trim();
      if (derivedId === operatorId) {
        draft.names.set(operatorName, (draft.names.get(operatorName) ?? 0) + 1);
        if (brand) draft.brands.set(brand, (draft.brands.get(brand) ?? 0) + 1);
      }
      draft.statuses.add(snake(row.status ?? "unknown"));
      operators.set(operatorId, draft);
      addAlias(aliases.operator, country, operatorName, operatorId);
      // "The Bahamas Telecommunications Company Ltd (BaTelCo)": the short name is how others write it.
      // So is a brand's: "Al Jawal (STC)".
      for (const name of [operatorName, row.brand ?? ""]) for (const [, inner] of name.matchAll(/\(([^)]+)\)/g)) addAlias(aliases.brand, country, inner!, operatorId);
      addAlias(aliases.brand, country, row.brand, operatorId);
      addAlias(aliases.compact, country, operatorName, operatorId, compactKey);
      addAlias(aliases.compact, country, row.brand, operatorId, compactKey);
      for (const territory of territoriesOf(row.countryCode)) {
        if (territory === country) continue;
        addAlias(aliases.territory, territory, operatorName, operatorId);
        addAlias(aliases.territory, territory, row.brand, operatorId);
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
    accounting.networks++;
  }
  return { networks, operators, aliases, territoryRows, oddRows };
}

/**
 * ARCEP's IMSI blocks inside MNC 50 (the list writes them as 5-digit MNCs, `50144`): e212 ranges that
 * answer their IMSIs. A range of MNCs (`100 - 190`) or a `?` is listed, with its reason (row numbers
 * are the file's, 1-based).
 */
function imsiBlocksOf(
  oddRows: MccMncRow[],
  rows: MccMncRow[],
  { countryOf }: ReferenceCountries,
  networks: Map<string, NetworkRecord>,
  operators: Map<string, OperatorDraft>,
  accounting: NetworkFileAccounting,
): NumberRangeRecord[] {
  const rowNumber = new Map(rows.map((row, i) => [row, i + 1]));
  const imsiBlocks: NumberRangeRecord[] = [];
  for (const row of oddRows.sort((a, b) => rowNumber.get(a)! - rowNumber.get(b)!)) {
    const entry = rowNumber.get(row)!;
    const mnc = String(row.mnc ?? "").trim();
    if (/^\d{3}$/.test(row.mcc) && /^\d{4,7}$/.test(mnc)) {
      const country = countryOf(row.countryCode);
      const name = (row.operator ?? row.brand)?.trim() || null;
      const operatorId = name ? survivingOperatorId(derivedOperatorId(country, name)) : null;
      imsiBlocks.push(
        imsiBlockRange(
          { mcc: row.mcc, mnc: mnc.slice(0, 2), msinPrefix: mnc.slice(2) },
          { country, operatorId: operatorId && operators.has(operatorId) ? operatorId : null, networkId: networks.has(`${row.mcc}-${mnc.slice(0, 2)}`) ? `${row.mcc}-${mnc.slice(0, 2)}` : null, holder: name, holderId: null, source: "mcc-mnc-list", date: null, status: null },
        ),
      );
      accounting.imsiBlocks++;
    } else if (/^\d{2,3}\s*-\s*\d{2,3}$/.test(mnc)) {
      accounting.listed.push({ row: entry, reason: "mnc_range", detail: `${row.mcc}-${mnc} (${row.operator ?? row.brand ?? "no holder"}) is a range of codes, not one network` });
    } else {
      accounting.listed.push({ row: entry, reason: "malformed", detail: `MCC "${row.mcc}" MNC "${mnc}" (${row.operator ?? row.brand ?? "no holder"}) is not an MCC and a 2- or 3-digit MNC` });
    }
  }
  return imsiBlocks;
}

/**
 * A PLMN row kept under another territory still says how its own operator is doing there: 338-05,
 * Jamaica's MCC, is Digicel Jamaica's network, and its Cayman row says "Digicel Cayman Ltd.,
 * Operational" while Digicel Cayman's own row (346-050) is only reserved. The row's status counts
 * towards the operator of the row's country and name when that operator exists (it is not created).
 */
function countTerritoryStatuses(territoryRows: MccMncRow[], { countryOf }: ReferenceCountries, networks: Map<string, NetworkRecord>, operators: Map<string, OperatorDraft>): void {
  for (const row of territoryRows) {
    const country = countryOf(row.countryCode);
    const name = operatorNameOf(row, country);
    if (!name) continue;
    const id = survivingOperatorId(derivedOperatorId(country, name));
    const draft = operators.get(id);
    if (draft && networks.get(`${row.mcc}-${row.mnc}`)?.operator_id !== id) draft.statuses.add(snake(row.status ?? "unknown"));
  }
}

/** Every territory a row lists uses its MCC (the country's `mccs`) and, when the row is a network's, lists that network. */
function rowTerritories(rows: MccMncRow[], { countryOf, territoriesOf }: ReferenceCountries, networks: Map<string, NetworkRecord>) {
  const networkTerritories = new Map<string, Set<string>>();
  const mccs = new Map<string, Set<string>>();
  for (const row of rows) {
    const id = `${row.mcc}-${row.mnc}`;
    for (const iso2 of new Set([countryOf(row.countryCode), ...territoriesOf(row.countryCode)])) {
      mccs.set(iso2, (mccs.get(iso2) ?? new Set()).add(row.mcc));
      if (networks.has(id)) networkTerritories.set(id, (networkTerritories.get(id) ?? new Set()).add(iso2));
    }
  }
  const countryMccs = new Map([...mccs].map(([iso2, set]) => [iso2, [...set].sort()]));
  return { networkTerritories, countryMccs };
}

/**
 * Where each network and operator is placed, once the number ranges are known; moves `country_iso2`
 * of the networks and `country` of the drafts in place and returns the territories each operator serves.
 *
 * A network's country comes from the MCC/MNC list alone, by one rule (network-countries.ts; docs/
 * catalog.md "A network's country"), and an operator's from its networks: loading carrier prefixes
 * or a register never moves them ("BL/GF/GP/MF/MQ" no longer files Guadeloupe's operators under
 * Saint-Barthélemy, nor does a count of ranges decide between Guyane and Martinique).
 */
export function placeNetworksAndOperators(
  rows: MccMncRow[],
  { territoriesOf }: ReferenceCountries,
  { networks, operators, networkTerritories }: Pick<ReferenceNetworks, "networks" | "operators" | "networkTerritories">,
  numberRanges: NumberRangeRecord[],
): Map<string, Set<string>> {
  const pairCountry = networkCountries(
    rows.filter(isPlmn).map((r) => ({ mcc: r.mcc, mnc: r.mnc, countries: territoriesOf(r.countryCode), words: [r.operator, r.brand, r.notes] })),
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
  return served;
}

/** Radio technologies per network: the only capability the public reference data states as fact. */
export function radioCapabilities(networks: Map<string, NetworkRecord>): CapabilityRecord[] {
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
  return capabilities;
}
