import { INTERNATIONAL, type NetworkRecord, type NumberRangeRecord, type OperatorRecord } from "../model/records.ts";
import { normaliseName, slug } from "../operators/names.ts";
import type { MaterialisedDataset } from "./importers/demo.ts";
import type { RegisterInput } from "./national-registers.ts";
import { registerSourceId } from "./national-registers.ts";
import { listCountries, mccHomes, networkCountries, type CountryEntry } from "./network-countries.ts";
import type { RegisterId, RegisterNetwork } from "./registers/index.ts";

/**
 * MCC/MNC sources as the catalogue's networks (docs/catalog.md "Networks"), laid over a candidate
 * whose networks came from the mcc-mnc-list package (importers/reference.ts):
 *
 * - the newer MCC/MNC list (packaged, or loaded with `import registers`): a pair the reference lacks
 *   becomes a network; a pair it has takes the list's status, name, type and bands where they differ;
 * - ARCEP's MAJMNC, the regulator of France's MCCs: a code nobody else lists becomes a network held by
 *   its ARCEP holder; an 8-digit code (`20850144`: MNC 50, MSINs from 144) is an IMSI block inside a
 *   shared MNC, an `e212` range held by that holder, and so are the list's 5-digit "MNCs" under 208;
 * - the ITU E.212 list (loaded only: the ITU reserves its rights): a pair nobody else lists.
 *
 * Authority, lowest first: the package, the ITU's (2019), the newer list, ARCEP (for its MCCs). Every
 * entry of every file is accounted for: a network made, a network fed (fields taken) or confirmed
 * (nothing to change), merged into the network an earlier entry of the file made (the same pair under
 * another territory), an IMSI block, or listed with its reason: nothing vanishes silently.
 */

/** What became of one MCC/MNC file's entries (the report's lines; their sum is the entries read). */
export interface NetworkFileAccounting {
  source: string;
  file: string;
  /** Entries (JSON) or lines (CSV, the header included) the reader read. */
  entries: number;
  /** Entries that made a network of their own. */
  networks: number;
  /** Entries whose pair another source already made a network of and that changed some of its fields. */
  updated: number;
  /** Entries whose pair was already a network with the same fields. */
  confirmed: number;
  /** Entries naming a pair an earlier entry of the same file made a network of (another territory, a repeat): merged into it. */
  merged: number;
  /** Entries that are IMSI blocks inside a shared MNC: `e212` ranges. */
  imsiBlocks: number;
  /** Entries not made into anything, each with its reason (the reader's, or the catalogue's). */
  listed: Array<{ row: number; reason: string; detail: string }>;
  /** entries − all of the above: 0 unless an entry was lost. */
  silentDrops: number;
}

export const newAccounting = (source: string, file: string, entries: number): NetworkFileAccounting => ({
  source,
  file,
  entries,
  networks: 0,
  updated: 0,
  confirmed: 0,
  merged: 0,
  imsiBlocks: 0,
  listed: [],
  silentDrops: 0,
});

/** Closes an accounting: the entries not accounted for are silent drops. */
export function settle(a: NetworkFileAccounting): NetworkFileAccounting {
  a.silentDrops = a.entries - (a.networks + a.updated + a.confirmed + a.merged + a.imsiBlocks + a.listed.length);
  return a;
}

/** The registers whose entries are networks (the order is the authority, lowest first). */
export const NETWORK_REGISTERS: readonly RegisterId[] = ["intl-itu-e212", "intl-mcc-mnc-list", "fr-arcep-majmnc"];

export interface NetworkOverlayReport {
  files: NetworkFileAccounting[];
  added: number;
  updated: number;
  imsiBlocks: number;
}

const snake = (s: string) => s.trim().toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "");

/** The list's status words as the reference writes network statuses (`Not operational` → `not_operational`). */
const statusOf = (n: RegisterNetwork) => (n.registerStatus ? snake(n.registerStatus) || "unknown" : n.status);

const bandsOf = (n: RegisterNetwork) =>
  (n.bands ?? "")
    .split("/")
    .map((b) => b.trim())
    .filter(Boolean);

/** The IMSI block of an entry (`208` `50` `144` → `e212-20850144`). */
export function imsiBlockRange(
  block: { mcc: string; mnc: string; msinPrefix: string },
  fields: { country: string; operatorId: string | null; networkId: string | null; holder: string | null; holderId: string | null; source: string; date: string | null; status: NumberRangeRecord["status"] },
): NumberRangeRecord {
  const prefix = `${block.mcc}${block.mnc}${block.msinPrefix}`;
  return {
    id: `e212-${prefix}`,
    plan: "e212",
    kind: "mobile",
    country_iso2: fields.country,
    prefix,
    start: null,
    end: null,
    mcc: block.mcc,
    mnc: block.mnc,
    operator_id: fields.operatorId,
    network_id: fields.networkId,
    range_holder: fields.holder,
    range_holder_local: null,
    source: fields.source,
    source_date: fields.date,
    status: fields.status,
    range_holder_id: fields.holderId,
  };
}

/**
 * The candidate with the MCC/MNC files in use laid over its networks, and what became of each entry.
 * Unchanged when none is in use.
 */
export function withNetworkRegisters(dataset: MaterialisedDataset, inputs: readonly RegisterInput[]): { dataset: MaterialisedDataset; report: NetworkOverlayReport } {
  const report: NetworkOverlayReport = { files: [], added: 0, updated: 0, imsiBlocks: 0 };
  const files = inputs.filter((i) => NETWORK_REGISTERS.includes(i.file.register)).sort((a, b) => NETWORK_REGISTERS.indexOf(a.file.register) - NETWORK_REGISTERS.indexOf(b.file.register));
  if (files.length === 0) return { dataset, report };

  const networks = new Map(dataset.networks.map((n) => [n.id, n]));
  const operators = new Map(dataset.operators.map((o) => [o.id, o]));
  const ranges = new Map(dataset.numberRanges.map((r) => [r.id, r]));
  const known = (iso2: string) => dataset.countries.some((c) => c.iso2 === iso2);
  const countryEntries: CountryEntry[] = files.flatMap((f) =>
    f.file.networks.filter((n) => n.msinPrefix === null && n.mncLast === null).map((n) => ({ mcc: n.mcc, mnc: n.mnc, countries: n.countries.filter(known), words: [n.holder?.name ?? null, n.brand, n.notes] })),
  );
  // New pairs get their country by the rule (network-countries.ts), the MCC homes counting every list in use.
  const homes = mccHomes(countryEntries);
  const countryOfPair = networkCountries(countryEntries, homes);
  /** The ARCEP operator of a holder code: the one the registers' overlay made or linked (register_ids), else a record of its own. */
  const arcepOperators = new Map<string, string>();
  for (const o of operators.values()) for (const r of o.register_ids) if (r.register === "fr-arcep") arcepOperators.set(r.id, o.id);

  for (const input of files) {
    const source = registerSourceId(input.file.register);
    const { file } = input;
    const a = newAccounting(source, input.name, file.report.rows.read);
    a.listed.push(...file.report.listed.map((l) => ({ row: l.row, reason: l.reason, detail: l.detail })));
    // Rows the reader kept as resources (none for these registers) would be listed here too.
    for (const r of file.resources) a.listed.push({ row: r.row, reason: "not_a_network", detail: `${r.kind} ${r.code}` });
    const madeHere = new Map<string, number>();
    const arcep = file.register === "fr-arcep-majmnc";
    const operatorFor = (n: RegisterNetwork, country: string): string | null => {
      if (!n.holder) return null;
      if (arcep) {
        // Codes ARCEP keeps for itself or for shared use are reserved, nobody's.
        if (n.status === "reserved") return null;
        const linked = arcepOperators.get(n.holder.id);
        if (linked) return linked;
        const id = `fr.arcep-${slug(n.holder.id) || "holder"}`;
        if (!operators.has(id)) operators.set(id, operatorRecord(id, country, n.holder.name ?? n.holder.id, "active", source, [{ register: "fr-arcep", id: n.holder.id }]));
        arcepOperators.set(n.holder.id, id);
        return id;
      }
      // The name the reference would file it under: an existing operator of that country and name.
      const name = n.holder.name ?? n.holder.id;
      const id = `${country.toLowerCase()}.${slug(normaliseName(name) || name.toLowerCase())}`;
      if (operators.has(id)) return id;
      operators.set(id, operatorRecord(id, country, name, n.status === "operational" ? "active" : n.status === "not_operational" ? "inactive" : "unknown", source, []));
      return id;
    };

    for (const n of file.networks) {
      if (n.mncLast !== null) {
        a.listed.push({ row: n.row, reason: "mnc_range", detail: `MNC ${n.mnc} to ${n.mncLast} (${n.holder?.name ?? "no holder"}) is a range of codes, not one network` });
        continue;
      }
      const pair = `${n.mcc}-${n.mnc}`;
      if (n.msinPrefix !== null) {
        const country = n.country ?? countryOfPair.get(pair) ?? homes.get(n.mcc) ?? n.countries[0] ?? INTERNATIONAL;
        const id = `e212-${n.mcc}${n.mnc}${n.msinPrefix}`;
        const before = ranges.get(id);
        ranges.set(
          id,
          imsiBlockRange(
            { mcc: n.mcc, mnc: n.mnc, msinPrefix: n.msinPrefix },
            {
              country,
              operatorId: operatorFor(n, country),
              networkId: networks.has(pair) ? pair : null,
              holder: n.holder?.name ?? n.holder?.id ?? null,
              holderId: arcep ? (n.holder?.id ?? null) : null,
              source,
              date: input.date,
              status: arcep ? (n.status === "reserved" ? "reserved" : "assigned") : null,
            },
          ),
        );
        if (!before) report.imsiBlocks++;
        a.imsiBlocks++;
        continue;
      }
      const earlier = madeHere.get(pair);
      if (earlier !== undefined) {
        a.merged++;
        continue;
      }
      madeHere.set(pair, n.row);
      const existing = networks.get(pair);
      if (existing) {
        // ARCEP and the ITU name holders only: they confirm the pair. The newer list states the rest.
        if (file.register !== "intl-mcc-mnc-list") {
          a.confirmed++;
          continue;
        }
        const bands = bandsOf(n);
        const fed: NetworkRecord = {
          ...existing,
          name: (n.brand ?? n.holder?.name)?.trim() || existing.name,
          status: statusOf(n),
          network_type: n.type ? snake(n.type) || existing.network_type : existing.network_type,
          bands: bands.length ? bands : existing.bands,
        };
        if (JSON.stringify(fed) === JSON.stringify(existing)) {
          a.confirmed++;
          continue;
        }
        networks.set(pair, { ...fed, source });
        report.updated++;
        a.updated++;
        continue;
      }
      // Neither the entry nor its MCC names a country: an international code (901-xx), as the reference files them.
      const country = countryOfPair.get(pair) ?? homes.get(n.mcc) ?? INTERNATIONAL;
      const bands = bandsOf(n);
      networks.set(pair, {
        id: pair,
        mcc: n.mcc,
        mnc: n.mnc,
        country_iso2: country,
        operator_id: operatorFor(n, country),
        name: (n.brand ?? n.holder?.name)?.trim() || null,
        tadig: null,
        network_type: n.type ? snake(n.type) || "unknown" : "unknown",
        status: statusOf(n),
        technologies: [],
        bands,
        source,
      });
      report.added++;
      a.networks++;
    }
    report.files.push(settle(a));
  }
  // An IMSI block made before its network (the list's blocks before ARCEP's MNC 50): linked now.
  for (const [id, range] of ranges) if (range.plan === "e212" && range.network_id === null && range.mnc && networks.has(`${range.mcc}-${range.mnc}`)) ranges.set(id, { ...range, network_id: `${range.mcc}-${range.mnc}` });

  const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return {
    dataset: {
      ...dataset,
      networks: [...networks.values()].sort(byId),
      operators: [...operators.values()].sort(byId),
      numberRanges: [...ranges.values()].sort(byId),
    },
    report,
  };
}

function operatorRecord(id: string, country: string, name: string, status: OperatorRecord["status"], source: string, registerIds: OperatorRecord["register_ids"]): OperatorRecord {
  return {
    id,
    country_iso2: country,
    name,
    name_local: null,
    brand: null,
    tadig: null,
    status,
    successor_id: null,
    lineage: null,
    listed: true,
    territories: [country],
    register_ids: registerIds,
    source,
  };
}

export { listCountries };
