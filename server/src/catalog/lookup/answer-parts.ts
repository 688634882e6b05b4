import type { LookupSource, Network, NumberLookup, NumberRange, Operator } from "../../contract/catalog.ts";
import { currentOperator } from "../operators/lineage.ts";
import { networkOfNumber } from "../operators/networks.ts";
import { primaryNetwork } from "./number-geo.ts";

/**
 * A lookup answer in its two parts: the range's (the same for every number of a range, so built once
 * per range and projection, lookup-answers.ts) and the number's own (lookup.ts). Both the answer made
 * as an object (`lookupNumber`) and the serialised one join these parts.
 */

/** What the range part reads of a version's lookup index (lookup-index.ts LookupIndex). */
export interface RangeLookups {
  networksByPlmn: Map<string, Network>;
  operators: Map<string, Operator>;
  networksByOperator: Map<string, Network[]>;
  /** The version's sources by id: their names and dates, for each answer's `source`. */
  sources: Map<string, { name: string; date: string | null }>;
}

/**
 * The fields of a number's answer that depend only on its matched range (and the number's country):
 * what lookup-answers.ts builds once per range. A field added to {@link rangePartOf} must be listed
 * here (RangePart is made from this list); every other field of NumberLookup is the number's own.
 */
export const RANGE_PART_KEYS = [
  "range_holder",
  "range_holder_reason",
  "operator",
  "current_operator",
  "range",
  "network",
  "networks",
  "primary_network",
  "source",
  "holder_successor",
] as const satisfies readonly (keyof NumberLookup)[];
export type RangePart = Pick<NumberLookup, (typeof RANGE_PART_KEYS)[number]>;
/** The fields of a number's answer that are the number's own: everything but {@link RangePart}. */
export type NumberPart = Omit<NumberLookup, keyof RangePart>;

/**
 * A number read and matched, its answer in two parts: the number's own fields, and the range it
 * matched (null with the reason when none is named). `lookupNumber` joins them with
 * {@link rangePartOf}; the /v1/lookup route serves the range part from fragments built once per
 * range (lookup-answers.ts) through the same function.
 */
export type FoundNumber =
  | { own: NumberPart; range: NumberRange; reason: null }
  | { own: NumberPart; range: null; reason: NonNullable<NumberLookup["range_holder_reason"]>; source: LookupSource | null };

/** Network ids are "MCC-MNC"; the index keys networks by the PLMN digits. */
export const networkById = (index: Pick<RangeLookups, "networksByPlmn">, id: string) => index.networksByPlmn.get(id.replace("-", ""));

/**
 * The part of a number's answer that depends only on its range and the number's country (which
 * orders `primary_network`): the holder, the operator and its current successor, the networks.
 */
export function rangePartOf(index: RangeLookups, range: NumberRange, countryIso2: string | null): RangePart {
  const described = index.sources.get(range.source);
  const source: LookupSource = { id: range.source, name: described?.name ?? range.source, date: range.source_date ?? described?.date ?? null, status: range.status };
  // A register's block that is not assigned (free, reserved, …) names no holder: the register says so.
  if (range.status !== null && range.status !== "assigned") return { ...noRangePart("not_assigned", source), range };
  const operator = range.operator_id ? (index.operators.get(range.operator_id) ?? null) : null;
  const networks = operator ? (index.networksByOperator.get(operator.id) ?? []) : [];
  // The lineage's end for the range (a split operator's successor depends on the area code, which
  // every range's prefix holds: Brazil's are 7 to 9 digits, a DDD split names 4), so the range part
  // stays the same for every number of the range and can be prebuilt (lookup-answers.ts).
  const current = operator ? currentOperator(index.operators, operator, range.prefix ?? undefined) : null;
  const network = networkOfNumber({
    rangeNetwork: range.network_id ? (networkById(index, range.network_id) ?? null) : null,
    networks,
    currentNetworks: current && current !== operator ? (index.networksByOperator.get(current.id) ?? []) : [],
    country: countryIso2 ?? range.country_iso2,
  });
  return {
    range_holder: range.range_holder,
    range_holder_reason: range.range_holder ? null : "no_range",
    operator,
    current_operator: current,
    range,
    network,
    networks,
    primary_network: primaryNetwork(network, networks, countryIso2),
    source,
    holder_successor: current,
  };
}

/**
 * The range part of a number no range is named for; `source` is the register that covers the number
 * when the reason is `not_assigned`.
 */
export function noRangePart(reason: NonNullable<NumberLookup["range_holder_reason"]>, source: LookupSource | null = null): RangePart {
  return {
    range_holder: null,
    range_holder_reason: reason,
    operator: null,
    current_operator: null,
    range: null,
    network: null,
    networks: [],
    primary_network: null,
    source,
    holder_successor: null,
  };
}
