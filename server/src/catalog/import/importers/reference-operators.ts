import type { NetworkRecord, OperatorRecord } from "../../model/records.ts";
import { compactKey, linkKey, normaliseName, slug } from "../../operators/names.ts";
import { OPERATOR_LINEAGE, lineageOf } from "../../operators/lineage.ts";
import { unlistedReason } from "../../operators/listing.ts";
import { LINK_AUDIT } from "./link-audit.ts";
import { OPERATOR_ALIASES } from "./operator-aliases.ts";

/**
 * The reference dataset's operators: drafts gathered from the MCC/MNC list's rows (reference-networks.ts),
 * the names that lead a range holder to one of them (alias indexes, the curated table, the link audit),
 * and the records they become.
 */

/** An operator while the list's rows are read: every name, brand and status its rows give. */
export interface OperatorDraft {
  id: string;
  country: string;
  names: Map<string, number>;
  brands: Map<string, number>;
  statuses: Set<string>;
}

/** The value counted most often; ties go to the smallest. */
export function mostCommon(counts: Map<string, number>): string | null {
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

/** The id an operator of a country and name gets (before operator-lineage.ts folds duplicates into survivors). */
export const derivedOperatorId = (country: string, name: string) => `${country.toLowerCase()}.${slug(normaliseName(name) || name.toLowerCase())}`;

/** country → normalised name → operator id (null when ambiguous). */
export type AliasIndex = Map<string, Map<string, string | null>>;

/** The names a range holder may use for an operator, consulted in this order. */
export interface OperatorAliases {
  /** Operator names win over brands: "Global Star Satellite" also uses the brand "China Mobile", which must not steal China Mobile's ranges. */
  operator: AliasIndex;
  brand: AliasIndex;
  /**
   * Names of an operator's networks in the other territories that list them: a shared MCC ("YT/RE",
   * "BL/GF/GP/MF/MQ") files the operator under the first, a PLMN listed again under GG and JE is kept
   * under GB; Réunion's and Jersey's ranges must still find it. Consulted after the home country.
   */
  territory: AliasIndex;
  /** Operator names and brands without spaces ("Tele2" for "Tele 2"), consulted after exact names. */
  compact: AliasIndex;
}

export const newOperatorAliases = (): OperatorAliases => ({ operator: new Map(), brand: new Map(), territory: new Map(), compact: new Map() });

/** Files a name under an operator; a name two operators of one country use leads to neither. */
export function addAlias(index: AliasIndex, country: string, name: string | null, id: string, key = linkKey): void {
  if (!name) return;
  const norm = key(name);
  if (!norm) return;
  const map = index.get(country) ?? new Map<string, string | null>();
  const existing = map.get(norm);
  map.set(norm, existing === undefined || existing === id ? id : null);
  index.set(country, map);
}

/**
 * One-word operator names or brands that are ordinary words: found inside another holder's name they
 * say nothing about the operator (reverse containment in the linking rules skips them).
 */
const GENERIC_WORDS = new Set([
  "sure", "cable", "telecom", "telecommunications", "telecomunicaciones", "telecomunicacoes", "mobile", "mobil", "movil", "cellular", "wireless",
  "liberia", "digital", "net", "network", "networks", "global", "international", "national", "telephone", "phone", "comunicaciones", "services",
]);

/** Links a range holder's name to an operator, and counts the curated table's uses for the report. */
export interface OperatorLinker {
  /** The operator a holder of a country names, or null (none, or more than one). */
  operatorOf(country: string, holder: string): string | null;
  /** The network a curated alias names for this holder and its operator, or null. */
  networkOf(country: string, holder: string, operatorId: string): string | null;
  /** Entries of operator-aliases.ts whose operator does not exist or that have linked no holder yet. */
  unusedAliases(): string[];
}

export function operatorLinker(aliases: OperatorAliases, operatorIds: Set<string>, networks: Map<string, NetworkRecord>): OperatorLinker {
  // The hand-made table (operator-aliases.ts) first; an entry whose operator is missing is reported.
  const curated = new Map<string, string>();
  const aliasUses = new Map<string, number>();
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
  const exactIndexes = [aliases.operator, aliases.brand, aliases.territory];
  return {
    operatorOf(country, holder) {
      const norm = linkKey(holder);
      if (!norm) return null;
      const audit = audited.get(`${country}:${norm}`);
      if (audit !== undefined) return audit;
      const entry = curated.get(`${country}:${norm}`);
      if (entry) {
        aliasUses.set(entry, aliasUses.get(entry)! + 1);
        return curatedTarget.get(entry)!;
      }
      for (const index of exactIndexes) {
        const exact = index.get(country)?.get(norm);
        if (exact) return exact;
      }
      const compact = aliases.compact.get(country)?.get(compactKey(holder));
      if (compact) return compact;
      // "Vodafone" vs "Vodafone Egypt", "Airtel" vs "Bharti Airtel": the one operator of the country
      // whose name or brand contains the holder's name as whole words (or is contained in it).
      const candidates = new Set<string>();
      for (const index of exactIndexes) {
        for (const [alias, id] of index.get(country) ?? []) {
          // The holder inside a longer alias, or (reverse) an alias inside the holder's name unless the
          // alias is a generic word ("Sure", "Cable", "Telecom", "Liberia" inside another company's name).
          if (id && (` ${alias} `.includes(` ${norm} `) || (!GENERIC_WORDS.has(alias) && ` ${norm} `.includes(` ${alias} `)))) candidates.add(id);
        }
      }
      return candidates.size === 1 ? [...candidates][0]! : null;
    },
    networkOf: (country, holder, operatorId) => curatedNetwork.get(`${country}:${linkKey(holder)}:${operatorId}`) ?? null,
    unusedAliases: () => [...aliasUses].filter(([, uses]) => uses === 0).map(([entry]) => entry),
  };
}

/** What the number ranges and the placing of operators add to the drafts. */
export interface OperatorFindings {
  /** Operator id → its ranges' Chinese holder names, counted (the most common becomes `name_local`). */
  localNames: Map<string, Map<string, number>>;
  /** Operator id → the territories it serves (reference-networks.ts placeNetworksAndOperators). */
  served: Map<string, Set<string>>;
}

/**
 * The operator records, sorted by id. Lineage (operator-lineage.ts) is applied only when the operator
 * and every successor exist, so a package update that renames one shows up in the report
 * (`unusedLineage`), not as a dangling id.
 */
export function operatorRecords(operators: Map<string, OperatorDraft>, findings: OperatorFindings): { records: OperatorRecord[]; unusedLineage: string[] } {
  const lineage = new Map<string, ReturnType<typeof lineageOf>>();
  const unusedLineage: string[] = [];
  for (const entry of OPERATOR_LINEAGE) {
    const targets = [entry.successor, ...(entry.successors ?? []).map((s) => s.operator)].filter((id): id is string => id !== null);
    if (!operators.has(entry.operator) || !targets.length || targets.some((id) => !operators.has(id))) unusedLineage.push(entry.operator);
    else lineage.set(entry.operator, lineageOf(entry));
  }
  const records: OperatorRecord[] = [...operators.values()]
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
        name_local: findings.localNames.has(d.id) ? mostCommon(findings.localNames.get(d.id)!) : null,
        brand: mostCommon(d.brands),
        tadig: null,
        status,
        successor_id: lineage.get(d.id)?.successor_id ?? null,
        lineage: lineage.get(d.id)?.lineage ?? null,
        listed: unlistedReason({ name, brand: mostCommon(d.brands) }) === null,
        territories: [...findings.served.get(d.id)!].sort(),
        register_ids: [],
        source: "mcc-mnc-list",
      };
    })
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  return { records, unusedLineage };
}
