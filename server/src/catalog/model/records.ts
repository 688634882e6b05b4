import type { Capability, Country, Network, NumberRange, Operator, SourceDescriptor } from "../../contract/catalog.ts";
import type { SourceMode } from "../../contract/envelope.ts";

/** The catalogue's country for numbers and networks of no single country (non-geographic calling codes, international MCCs). */
export const INTERNATIONAL = "ZZ";

/**
 * Catalogue records as importers produce them and the diff compares them: the wire shapes without
 * `dataset_version`, which the import assigns. Every record names its `source` (a
 * {@link SourceDescriptor} id of the same dataset).
 */
export type CountryRecord = Country;
export type OperatorRecord = Omit<Operator, "dataset_version">;
export type NetworkRecord = Omit<Network, "dataset_version">;
export type NumberRangeRecord = Omit<NumberRange, "dataset_version">;
export type CapabilityRecord = Omit<Capability, "dataset_version">;

/**
 * Iterables so that a large input (a million ranges) can be generated or streamed, not materialised.
 * A re-iterable source (an array, or an object whose [Symbol.iterator] starts over) is read twice by
 * the import, compare then write, and never held in memory; a one-shot generator's changed records
 * are kept between the two phases.
 */
export type RecordSource<T> = Iterable<T> | AsyncIterable<T>;

/**
 * A complete dataset an importer proposes. The import diffs it against the current version: what is
 * not in the candidate is removed.
 */
export interface CandidateDataset {
  sourceMode: SourceMode;
  sources: SourceDescriptor[];
  countries: RecordSource<CountryRecord>;
  operators: RecordSource<OperatorRecord>;
  networks: RecordSource<NetworkRecord>;
  numberRanges: RecordSource<NumberRangeRecord>;
  capabilities: RecordSource<CapabilityRecord>;
}

export type { SourceDescriptor };
