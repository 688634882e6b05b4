import type { Capability, Country, Network, NumberRange, Operator, SourceDescriptor } from "../contract/catalog.ts";
import type { SourceMode } from "../contract/envelope.ts";

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

/** Iterables so that a large input (a million ranges) can be generated or streamed, not materialised. */
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
