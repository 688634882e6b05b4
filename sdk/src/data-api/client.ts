import type {
  BatchLookupItemError,
  Capability,
  Country,
  CountryDetail,
  DataMeta,
  DatasetCounts,
  EventPayload,
  EventType,
  ImsiLookup,
  Network,
  NumberLookup,
  NumberRange,
  Operator,
  OperatorDetail,
  PublicImsiLookup,
  PublicNetwork,
  PublicNumberLookup,
  PublicOperator,
  PublicOperatorDetail,
  SourceDescriptor,
  SourceMode,
} from "../wire.ts";
import { toDownload, type DownloadOptions, type FileDownload } from "./files.ts";
import { createDataHttp, type CallOptions, type DataClientOptions, type DataHttp, type DataResult, type QueryValue } from "./http.ts";

/**
 * The /v1 data API (docs/api.md), typed from the server's contract. Anonymous callers get the public
 * projection of a resource (a subset of its fields); an API key or a session gets the full one. The
 * client's type follows its options: `apiKey: string` (or `cookies`) gives the full types.
 */

/** Which projection the server answers with. */
export type Access = "full" | "public";

/** What each resource looks like in each projection. */
export interface Projections {
  full: { operator: Operator; operatorDetail: OperatorDetail; network: Network; numberLookup: NumberLookup; imsiLookup: ImsiLookup };
  public: { operator: PublicOperator; operatorDetail: PublicOperatorDetail; network: PublicNetwork; numberLookup: PublicNumberLookup; imsiLookup: PublicImsiLookup };
}

/** What a dotted name reaches into: the element of an array, or the value itself. */
type Inner<V> = V extends readonly (infer E)[] ? E : V;

/**
 * A name `fields` may give for an answer `T` (docs/api.md "Lookup fields"): one of its fields, or a
 * dotted path into the object (or each object of an array) a field holds, as deep as the answer goes
 * (`operator.id`, `operator.lineage.successors.operator_id`), as the server takes them.
 */
export type FieldName<T> = {
  [K in keyof T & string]: K | (Inner<NonNullable<T[K]>> extends object ? `${K}.${FieldName<Inner<NonNullable<T[K]>>>}` : never);
}[keyof T & string];

/** The names of a number's answer `fields` may give, in a projection (the public one has fewer). */
export type NumberLookupField<A extends Access = "full"> = FieldName<Projections[A]["numberLookup"]>;
/** The names of an IMSI's answer `fields` may give, in a projection. */
export type ImsiLookupField<A extends Access = "full"> = FieldName<Projections[A]["imsiLookup"]>;

/**
 * An answer `T` narrowed to the names `F` (what the server answers with `fields`): the fields named,
 * and of a field named only by its sub-fields (`operator.id`) an object (each object of an array, or
 * null) narrowed to those in turn, at every depth; a whole field wins over its sub-fields.
 * @example
 * type Small = Selected<NumberLookup, "number" | "number_type" | "operator.id" | "operator.lineage.successors.operator_id">;
 * // { number: string; number_type: string | null; operator: { id: string; lineage: { successors: { operator_id: string }[] | null } | null } | null }
 */
export type Selected<T, F extends string> = {
  [K in keyof T & string as K extends F ? K : F extends `${K}.${string}` ? K : never]: K extends F ? T[K] : Narrowed<T[K], F extends `${K}.${infer S}` ? S : never>;
};
type Narrowed<V, S extends string> = V extends null ? null : V extends readonly (infer E)[] ? Array<Selected<E, S>> : Selected<V, S>;

/** The access a client made with options `O` has: full with a key or a session, else public. */
export type AccessOf<O> = O extends { apiKey: string } ? "full" : O extends { cookies: object } ? "full" : "public";

/** A page of a list: `next_cursor` is null on the last page. */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** Paging parameters of every list: `limit` 1 to 1000 (default 100). */
export interface PageParams {
  cursor?: string;
  limit?: number;
}

export interface OperatorsQuery extends PageParams {
  /** ISO 3166-1 alpha-2, any case. */
  country?: string;
  /** Case-insensitive search in name, brand and local name (at least 2 characters). */
  q?: string;
}

export interface NetworksQuery extends PageParams {
  country?: string;
  operator?: string;
  mcc?: string;
  mnc?: string;
  tadig?: string;
}

export interface NumberRangesQuery extends PageParams {
  country?: string;
  operator?: string;
  kind?: NumberRange["kind"];
  plan?: NumberRange["plan"];
  /** Digits the range starts with, country code included, e.g. `86139`. */
  prefix?: string;
}

export interface CapabilitiesQuery extends PageParams {
  country?: string;
  operator?: string;
  network?: string;
  /** A dotted capability name, e.g. `volte.s8hr`. */
  name?: string;
}

export interface ChangesQuery extends PageParams {
  /** The dataset version you hold (`meta.dataset_version`), or `"none"` for the whole log. */
  since: string;
  /** Narrow per-record events; `ir21.catalog.updated` is always included. */
  types?: readonly EventType[];
  country?: readonly string[];
  operator?: readonly string[];
}

export interface ChangesPage extends Page<EventPayload> {
  /** The version this listing runs up to: the next `since` once `next_cursor` is null. */
  current_version: string;
}

/** The CSV exports, one resource each. */
export const EXPORT_RESOURCES = ["countries", "operators", "networks", "number-ranges", "capabilities"] as const;
export type ExportResource = (typeof EXPORT_RESOURCES)[number];

/** `GET /v1/snapshot`: the whole catalogue of one dataset version. */
export interface Snapshot {
  dataset_version: string;
  previous_version: string | null;
  source_mode: SourceMode;
  source_published_at: string | null;
  ingested_at: string;
  /** The licence terms of the combined sources: reproduce with the data. */
  license_notice: string;
  attribution: string;
  sources: SourceDescriptor[];
  counts: DatasetCounts;
  countries: Country[];
  operators: Operator[];
  networks: Network[];
  number_ranges: NumberRange[];
  capabilities: Capability[];
}

export type SnapshotResult = { notModified: true; etag: string | null } | { notModified: false; etag: string | null; data: Snapshot };

/** One page at a time (`list`) or every item across pages (`iterate`). */
export interface Listing<Q extends PageParams, T> {
  /** One page; pass the previous page's `next_cursor` as `cursor` for the next. */
  list(query?: Q & CallOptions): Promise<DataResult<Page<T>>>;
  /** Every item, following the cursors; all pages come from the dataset version of the first. */
  iterate(query?: Omit<Q, "cursor"> & CallOptions): AsyncIterableIterator<T>;
}

export interface DataClient<A extends Access = "full"> {
  /** The current dataset version, counts, sources and their licences. */
  meta(options?: CallOptions): Promise<DataResult<DataMeta>>;
  /**
   * A phone number (E.164, or national with `country`) by longest-prefix match. With `fields`, only
   * those fields are answered (and only their work done: docs/api.md "Lookup fields"), and the
   * answer's type has only them.
   * @example
   * const { data } = await ir21.lookup("+8613912345678", { fields: ["number", "valid", "range_holder", "operator.id"] });
   * data.operator?.id; // data.formats is not there
   */
  lookup<const F extends NumberLookupField<A>>(number: string, options: { country?: string; fields: readonly F[] } & CallOptions): Promise<DataResult<Selected<Projections[A]["numberLookup"], F>>>;
  lookup(number: string, options?: { country?: string } & CallOptions): Promise<DataResult<Projections[A]["numberLookup"]>>;
  /** An IMSI (6 to 15 digits) by MCC + MNC; `fields` as for {@link DataClient.lookup}. */
  lookupImsi<const F extends ImsiLookupField<A>>(imsi: string, options: { fields: readonly F[] } & CallOptions): Promise<DataResult<Selected<Projections[A]["imsiLookup"], F>>>;
  lookupImsi(imsi: string, options?: CallOptions): Promise<DataResult<Projections[A]["imsiLookup"]>>;
  /**
   * Up to 100 numbers in order; a number that does not parse is an item with `error`. One quota unit
   * per number. `fields` narrows each number's answer (an error item stays whole).
   */
  lookupBatch<const F extends NumberLookupField<A>>(
    numbers: readonly string[],
    options: { country?: string; fields: readonly F[] } & CallOptions,
  ): Promise<DataResult<{ items: Array<Selected<Projections[A]["numberLookup"], F> | BatchLookupItemError> }>>;
  lookupBatch(numbers: readonly string[], options?: { country?: string } & CallOptions): Promise<DataResult<{ items: Array<Projections[A]["numberLookup"] | BatchLookupItemError> }>>;
  countries: {
    list(options?: CallOptions): Promise<DataResult<{ items: Country[] }>>;
    /** The country with the operators serving it (filed under it or one of their territories). */
    get(iso2: string, options?: CallOptions): Promise<DataResult<CountryDetail>>;
  };
  operators: Listing<OperatorsQuery, Projections[A]["operator"]> & {
    /** One operator with its networks (and, with credentials, capabilities and range counts). */
    get(id: string, options?: CallOptions): Promise<DataResult<Projections[A]["operatorDetail"]>>;
  };
  networks: Listing<NetworksQuery, Projections[A]["network"]> & {
    get(id: string, options?: CallOptions): Promise<DataResult<Projections[A]["network"]>>;
  };
  /** Needs an API key or a session. */
  numberRanges: Listing<NumberRangesQuery, NumberRange> & {
    get(id: string, options?: CallOptions): Promise<DataResult<NumberRange>>;
  };
  /** Needs an API key or a session. */
  capabilities: Listing<CapabilitiesQuery, Capability>;
  /** The change log by version (needs an API key or a session); see also `syncChanges`. */
  changes: {
    list(query: ChangesQuery & CallOptions): Promise<DataResult<ChangesPage>>;
    iterate(query: Omit<ChangesQuery, "cursor"> & CallOptions): AsyncIterableIterator<EventPayload>;
  };
  /** A CSV export as a stream (needs an API key or a session). */
  exportCsv(resource: ExportResource, options?: DownloadOptions): Promise<FileDownload>;
  /** The snapshot as a stream, for saving it to a file (needs an API key or a session). */
  downloadSnapshot(options?: DownloadOptions): Promise<FileDownload>;
  /** The snapshot parsed; with `ifNoneMatch` an unchanged version answers `{notModified: true}`. */
  snapshot(options?: { ifNoneMatch?: string } & CallOptions): Promise<SnapshotResult>;
}

/**
 * Creates the data API client.
 * @example
 * const ir21 = createClient({ baseUrl: "https://ir21.example.com", apiKey: process.env.IR21_API_KEY! });
 * const { data, meta } = await ir21.lookup("+8613912345678");
 * console.log(data.range_holder, data.operator?.name, meta.dataset_version);
 */
export function createClient<const O extends DataClientOptions>(options: O): DataClient<AccessOf<O>> {
  const http = createDataHttp(options);
  return dataClientOver(http) as DataClient<AccessOf<O>>;
}

const segment = (value: string) => encodeURIComponent(value);

function listing<Q extends PageParams, T>(http: DataHttp, path: string): Listing<Q, T> {
  const list = ({ signal, timeoutMs, ...query }: Q & CallOptions = {} as Q & CallOptions) => http.json<Page<T>>("GET", path, { query: query as Record<string, QueryValue>, signal, timeoutMs });
  return {
    list,
    iterate: (query = {} as Omit<Q, "cursor"> & CallOptions) => paginate((cursor) => list({ ...query, cursor } as Q & CallOptions)),
  };
}

async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<DataResult<Page<T>>>): AsyncIterableIterator<T> {
  let cursor: string | undefined;
  do {
    const { data } = await fetchPage(cursor);
    yield* data.items;
    cursor = data.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

/** What the lookups' implementations take (their overloads type it; each answers `never`, which both overloads accept). */
type LookupOptions = { country?: string; fields?: readonly string[] } & CallOptions;

function dataClientOver(http: DataHttp): DataClient<Access> {
  const changesList = ({ signal, timeoutMs, ...query }: ChangesQuery & CallOptions) => http.json<ChangesPage>("GET", "/v1/changes", { query: query as Record<string, QueryValue>, signal, timeoutMs });
  return {
    meta: (options = {}) => http.json("GET", "/v1/meta", options),
    // `fields` goes as the query parameter on both routes (an array is sent comma-separated).
    lookup: (number: string, { country, fields, signal, timeoutMs }: LookupOptions = {}) => http.json<never>("GET", "/v1/lookup", { query: { number, country, fields }, signal, timeoutMs }),
    lookupImsi: (imsi: string, { fields, signal, timeoutMs }: LookupOptions = {}) => http.json<never>("GET", "/v1/lookup", { query: { imsi, fields }, signal, timeoutMs }),
    lookupBatch: (numbers: readonly string[], { country, fields, signal, timeoutMs }: LookupOptions = {}) =>
      http.json<never>("POST", "/v1/lookup/batch", { query: { fields }, body: country === undefined ? { numbers } : { numbers, country }, signal, timeoutMs }),
    countries: {
      list: (options = {}) => http.json("GET", "/v1/countries", options),
      get: (iso2, options = {}) => http.json("GET", `/v1/countries/${segment(iso2)}`, options),
    },
    operators: { ...listing(http, "/v1/operators"), get: (id, options = {}) => http.json("GET", `/v1/operators/${segment(id)}`, options) },
    networks: { ...listing(http, "/v1/networks"), get: (id, options = {}) => http.json("GET", `/v1/networks/${segment(id)}`, options) },
    numberRanges: { ...listing(http, "/v1/number-ranges"), get: (id, options = {}) => http.json("GET", `/v1/number-ranges/${segment(id)}`, options) },
    capabilities: listing(http, "/v1/capabilities"),
    changes: {
      list: changesList,
      iterate: (query) => paginate((cursor) => changesList({ ...query, cursor })),
    },
    async exportCsv(resource, options = {}) {
      if (!(EXPORT_RESOURCES as readonly string[]).includes(resource)) throw new TypeError(`resource must be one of ${EXPORT_RESOURCES.join(", ")}`);
      return toDownload(await http.file(`/v1/exports/${resource}.csv`, options), options);
    },
    async downloadSnapshot(options = {}) {
      return toDownload(await http.file("/v1/snapshot", options), options);
    },
    async snapshot(options = {}) {
      const response = await http.file("/v1/snapshot", options);
      const etag = response.headers.get("etag");
      if (response.status === 304) {
        void response.body?.cancel();
        return { notModified: true, etag: etag ?? options.ifNoneMatch ?? null };
      }
      return { notModified: false, etag, data: (await response.json()) as Snapshot };
    },
  };
}
