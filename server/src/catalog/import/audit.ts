import type { Country, Network, NumberRange, Operator, SourceDescriptor } from "../../contract/catalog.ts";
import type { Db } from "../../db/db.ts";
import { countries, networks, numberRanges, operators } from "../model/entities.ts";
import { linkKey } from "../operators/names.ts";
import { currentOperator } from "../operators/lineage.ts";
import { networkOfNumber } from "../operators/networks.ts";
import { streamRecords } from "../model/queries.ts";
import { datedSource } from "../model/source-dates.ts";
import { currentVersion } from "../model/versions.ts";
import { isRegisterSource } from "./national-registers.ts";
import type { RegisterDisagreement } from "./register-records.ts";

/**
 * `ir21-server data audit` (docs/catalog.md "Data audit"): how well the current dataset's ranges
 * are linked, read from the database, not from the importer's own report.
 */
export interface CatalogAudit {
  dataset_version: string | null;
  number_ranges: number;
  linked: number;
  /** Linked to an active operator, directly or through the lineage table (current_operator). */
  linked_active: number;
  linked_active_rate: number;
  /** Linked to an operator whose status is not active and which has no active successor. */
  linked_inactive_without_successor: number;
  /** Linked ranges whose numbers get one `network` (operator-networks.ts networkOfNumber). */
  linked_single_network: number;
  top_unlinked_holders: { country_iso2: string; holder: string; ranges: number }[];
  /**
   * Linked ranges filed under a country that is neither their operator's country nor a documented
   * territory of it: one in the operator's `territories` whose country record lists the MCC of one of
   * the operator's networks (docs/catalog.md "Territories").
   */
  territory_mismatches: { count: number; examples: { range: string; country_iso2: string; operator: string; operator_country: string }[] };
  /** Linked ranges in one of their operator's other documented territories (not mismatches; shown so the rule hides nothing). */
  ranges_in_other_territories: number;
  /** Operators of one country whose names are equal once normalised (near-duplicates). */
  duplicates: { country_iso2: string; key: string; operators: string[] }[];
  /** Every source of the version with its date, age and staleness by the caller's clock (docs/catalog.md "Sources and their dates"). */
  sources: Array<Pick<SourceDescriptor, "id" | "package" | "version" | "published_at" | "refresh_interval_days" | "age_days" | "stale" | "origin" | "coverage" | "license" | "sample">>;
  /** Per national register source: its ranges in the stored version, by block status. */
  registers: Array<{ source: string; date: string | null; origin: string | null; coverage: string[]; ranges: number; by_status: Record<string, number> }>;
  /**
   * The ranges of libphonenumber's carrier data (or another source) inside a register's coverage whose
   * holder the register does not confirm, found by laying the registers in use over the reference data
   * again (register-records.ts); null when not compared.
   */
  register_disagreements: RegisterDisagreement[] | null;
}

/**
 * @example
 * await auditCatalog(db, clock.now().getTime(), overlay.disagreements)
 */

export async function auditCatalog(db: Db, now: number, disagreements: RegisterDisagreement[] | null = null): Promise<CatalogAudit> {
  const version = await currentVersion(db);
  const seq = version?.seq ?? 0;
  const ops = new Map<string, Operator>();
  for await (const o of streamRecords(db, operators, seq)) ops.set(o.id, o as Operator);
  const countryMccs = new Map<string, Set<string>>();
  for await (const c of streamRecords(db, countries, seq)) countryMccs.set((c as Country).iso2, new Set((c as Country).mccs));
  const nets = new Map<string, Network>();
  const netsOf = new Map<string, Network[]>();
  for await (const record of streamRecords(db, networks, seq)) {
    const n = record as Network;
    nets.set(n.id, n);
    if (n.operator_id) netsOf.set(n.operator_id, [...(netsOf.get(n.operator_id) ?? []), n]);
  }
  /** A territory the operator claims that the country's MCC list backs through one of its networks. */
  const documentedTerritory = (operator: Operator, iso2: string) =>
    (operator.territories ?? []).includes(iso2) && (netsOf.get(operator.id) ?? []).some((n) => countryMccs.get(iso2)?.has(n.mcc));
  let singleNetwork = 0;
  let total = 0;
  let linked = 0;
  let active = 0;
  let deadEnd = 0;
  const unlinked = new Map<string, number>();
  const mismatches: CatalogAudit["territory_mismatches"]["examples"] = [];
  let mismatchCount = 0;
  let otherTerritory = 0;
  const registerStatuses = new Map<string, Record<string, number>>();
  for await (const record of streamRecords(db, numberRanges, seq)) {
    const range = record as NumberRange;
    if (range.plan !== "e164") continue;
    total++;
    if (isRegisterSource(range.source)) {
      const statuses = registerStatuses.get(range.source) ?? {};
      statuses[range.status ?? "unknown"] = (statuses[range.status ?? "unknown"] ?? 0) + 1;
      registerStatuses.set(range.source, statuses);
    }
    const operator = range.operator_id ? ops.get(range.operator_id) : undefined;
    if (!operator) {
      const key = `${range.country_iso2}\t${range.range_holder ?? ""}`;
      unlinked.set(key, (unlinked.get(key) ?? 0) + 1);
      continue;
    }
    linked++;
    const current = currentOperator(ops, operator, range.prefix ?? undefined);
    if (current.status === "active") active++;
    else deadEnd++;
    const network = networkOfNumber({
      rangeNetwork: range.network_id ? (nets.get(range.network_id) ?? null) : null,
      networks: netsOf.get(operator.id) ?? [],
      currentNetworks: current !== operator ? (netsOf.get(current.id) ?? []) : [],
      country: range.country_iso2,
    });
    if (network) singleNetwork++;
    if (operator.country_iso2 === range.country_iso2) continue;
    // A register's block is its own evidence: the regulator assigns it to this operator in that territory.
    const attestedByRegister = isRegisterSource(range.source) && operator.territories.includes(range.country_iso2);
    if (documentedTerritory(operator, range.country_iso2) || attestedByRegister) otherTerritory++;
    else {
      mismatchCount++;
      if (mismatches.length < 50) mismatches.push({ range: range.id, country_iso2: range.country_iso2, operator: operator.id, operator_country: operator.country_iso2 });
    }
  }
  const byKey = new Map<string, string[]>();
  for (const o of ops.values()) {
    const key = `${o.country_iso2}\t${linkKey(o.name)}`;
    byKey.set(key, [...(byKey.get(key) ?? []), o.id]);
  }
  return {
    dataset_version: version?.version ?? null,
    number_ranges: total,
    linked,
    linked_active: active,
    linked_active_rate: total ? Math.round((active / total) * 10_000) / 10_000 : 0,
    linked_inactive_without_successor: deadEnd,
    linked_single_network: singleNetwork,
    top_unlinked_holders: [...unlinked]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 25)
      .map(([key, ranges]) => {
        const [country_iso2, holder] = key.split("\t") as [string, string];
        return { country_iso2, holder, ranges };
      }),
    territory_mismatches: { count: mismatchCount, examples: mismatches },
    ranges_in_other_territories: otherTerritory,
    duplicates: [...byKey]
      .filter(([, ids]) => ids.length > 1)
      .map(([key, ids]) => ({ country_iso2: key.split("\t")[0]!, key: key.split("\t")[1]!, operators: ids.sort() })),
    sources: (version?.sources ?? []).map((source) => {
      const s = datedSource(source, now);
      return { id: s.id, package: s.package, version: s.version, published_at: s.published_at, refresh_interval_days: s.refresh_interval_days, age_days: s.age_days, stale: s.stale, origin: s.origin, coverage: s.coverage, license: s.license, sample: s.sample };
    }),
    registers: (version?.sources ?? [])
      .filter((s) => isRegisterSource(s.id))
      .map((s) => {
        const byStatus = registerStatuses.get(s.id) ?? {};
        return { source: s.id, date: s.published_at?.slice(0, 10) ?? null, origin: s.origin ?? null, coverage: s.coverage ?? [], ranges: Object.values(byStatus).reduce((a, b) => a + b, 0), by_status: byStatus };
      }),
    register_disagreements: disagreements,
  };
}
