import { z } from "zod";
import { IsoDate, IsoTime } from "./common.ts";
import { SourceMode } from "./envelope.ts";

/**
 * Catalogue resources on the wire (docs/catalog.md, docs/api.md). Each resource has a full shape
 * (API key or session) and a public shape for anonymous callers, picked from the full one: a field
 * added to the full shape stays private until it is listed in the public pick. Output is parsed with
 * these schemas (unknown keys are stripped), so the projection is enforced, not merely documented.
 */

/** ISO 3166-1 alpha-2, or `ZZ` for international (non-geographic) networks and numbers. */
export const CountryCode = z.string().regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code such as CN").meta({ example: "CN" });

export const OperatorId = z.string().min(3).max(100).regex(/^[a-z]{2}\.[a-z0-9-]+$/, "must be an operator id such as cn.china-mobile");
export const NetworkId = z.string().regex(/^\d{3}-\d{2,3}$/, "must be MCC-MNC such as 460-00");

export const Country = z
  .object({
    iso2: CountryCode,
    iso3: z.string().nullable(),
    name: z.string(),
    name_zh: z.string().nullable(),
    calling_codes: z.array(z.string()),
    mccs: z.array(z.string()),
  })
  .meta({ id: "Country" });
export type Country = z.infer<typeof Country>;
/** Countries are public reference data: anonymous callers see every field. */
export const PublicCountry = Country;

export const OperatorStatus = z.enum(["active", "inactive", "unknown"]);

/**
 * Why an operator has a successor (docs/catalog.md "Lineage"): merged into, acquired by or renamed as
 * another operator, or split, its subscribers divided among several operators by area code (then
 * `successors` says which numbers went where and `successor_id` is null).
 */
export const OperatorLineage = z
  .object({
    /** When the successor took over: an ISO date as precise as the source (2019-07, 2022-04-20). */
    date: z.string(),
    reason: z.enum(["merged", "acquired", "renamed", "split"]),
    /** The source of the fact, in words a reader can check. */
    reference: z.string(),
    /** For a split: each successor with the E.164 prefixes (calling code + area code) it took over; else null. */
    successors: z.array(z.object({ operator_id: z.string(), prefixes: z.array(z.string()) })).nullable(),
  })
  .meta({ id: "OperatorLineage" });
export type OperatorLineage = z.infer<typeof OperatorLineage>;

/** An operator's identifier in one national register: `{register: "ca-cnac", id: "4727"}`. */
export const RegisterId = z.object({ register: z.string(), id: z.string() }).meta({ id: "RegisterId" });

/**
 * A national register's status of a number block (docs/catalog.md "National registers"): `assigned`
 * (held by an operator), `free`, `reserved`, `protected`, `quarantined`, `frozen`, `special` (service
 * or test codes), `unavailable`, `unknown` (a word the register has that ir21 does not know).
 */
export const BlockStatus = z.enum(["assigned", "free", "reserved", "protected", "quarantined", "frozen", "special", "unavailable", "unknown"]);

export const Operator = z
  .object({
    id: z.string(),
    country_iso2: z.string(),
    name: z.string(),
    /** The name in the country's language where a source has it (e.g. 中国移动). */
    name_local: z.string().nullable(),
    brand: z.string().nullable(),
    /** From an IR.21 document only: TADIG codes are not public reference data. */
    tadig: z.string().nullable(),
    status: OperatorStatus,
    source: z.string(),
    dataset_version: z.string(),
    /**
     * ISO codes of every territory the operator serves, its own country included, sorted: an operator
     * of a shared MCC (340 Guadeloupe/Martinique/Guyane, 647 Réunion/Mayotte, 234 Jersey/Guernsey)
     * serves several. Added after v1 (additive, last so CSV columns before it keep their places); docs/catalog.md "Territories".
     */
    territories: z.array(z.string()),
    // Lineage and listing, added after v1 after territories: CSV columns before them keep their places.
    /** The operator that took this one over (merged, acquired, renamed); null when none or split. */
    successor_id: z.string().nullable(),
    /** The source of successor_id (or of a split); null when the operator has no documented lineage. */
    lineage: OperatorLineage.nullable(),
    /**
     * False for rows of the reference data that are no operator (test networks, "unassigned", a row
     * naming several brands at once): kept out of listings, still served by id.
     */
    listed: z.boolean(),
    /**
     * The operator's identifiers in national numbering registers, as the regulator attests its blocks
     * (docs/catalog.md "National registers"): CNAC's OCN, the Russian register's INN, ARCEP's operator
     * code, Ofcom's provider name. [] when no register names it. Added after v1, last.
     */
    register_ids: z.array(RegisterId),
  })
  .meta({ id: "Operator" });
export type Operator = z.infer<typeof Operator>;
export const PublicOperator = Operator.pick({ id: true, country_iso2: true, name: true }).meta({ id: "PublicOperator" });

export const Network = z
  .object({
    /** MCC-MNC, e.g. 460-00; the MNC keeps its digits (01 is not 001). */
    id: z.string(),
    mcc: z.string(),
    mnc: z.string(),
    country_iso2: z.string(),
    operator_id: z.string().nullable(),
    name: z.string().nullable(),
    tadig: z.string().nullable(),
    network_type: z.string(),
    status: z.string(),
    technologies: z.array(z.string()),
    bands: z.array(z.string()),
    source: z.string(),
    dataset_version: z.string(),
  })
  .meta({ id: "Network" });
export type Network = z.infer<typeof Network>;
export const PublicNetwork = Network.pick({ id: true, mcc: true, mnc: true, country_iso2: true, operator_id: true, name: true }).meta({
  id: "PublicNetwork",
});

export const NumberPlan = z.enum(["e164", "e212"]);
/**
 * What numbers a range holds: libphonenumber's number type of the range's numbers, lower-cased
 * (`fixed` is FIXED_LINE); `other` when the validity metadata knows no valid number in the range.
 * IR.21 ranges are `mobile` unless the document says otherwise.
 */
export const NumberKind = z.enum([
  "mobile",
  "fixed_line_or_mobile",
  "pager",
  "fixed",
  "toll_free",
  "premium_rate",
  "shared_cost",
  "voip",
  "personal_number",
  "uan",
  "voicemail",
  "other",
]);

export const NumberRange = z
  .object({
    id: z.string(),
    /** e164: phone numbers (MSISDN); e212: IMSI ranges of a network. */
    plan: NumberPlan,
    kind: NumberKind,
    country_iso2: z.string(),
    /** Every number starting with these digits (country code included); or null when start..end is given. */
    prefix: z.string().nullable(),
    start: z.string().nullable(),
    end: z.string().nullable(),
    mcc: z.string().nullable(),
    mnc: z.string().nullable(),
    operator_id: z.string().nullable(),
    network_id: z.string().nullable(),
    /**
     * The original holder of the range as the source names it. Not the current carrier of a number:
     * numbers move between operators (China has had number portability since 2019).
     */
    range_holder: z.string().nullable(),
    range_holder_local: z.string().nullable(),
    source: z.string(),
    dataset_version: z.string(),
    // Lineage, added after v1, last (CSV columns before them keep their places).
    /**
     * The date of the source file the range was read from (`YYYY-MM-DD`): a register file's own date or
     * the date stated when it was loaded; a package's data release. Null when the source has none.
     */
    source_date: IsoDate.nullable(),
    /** The register's status of the block; null for sources that list held ranges only (libphonenumber, IR.21). */
    status: BlockStatus.nullable(),
    /** The holder's identifier in the register (OCN, INN, ARCEP code, Ofcom provider name); null elsewhere. */
    range_holder_id: z.string().nullable(),
  })
  .meta({ id: "NumberRange" });
export type NumberRange = z.infer<typeof NumberRange>;

export const Capability = z
  .object({
    /** `<subject_type>:<subject_id>:<name>`, e.g. `network:460-11:volte.s8hr`. */
    id: z.string(),
    subject_type: z.enum(["network", "operator"]),
    subject_id: z.string(),
    country_iso2: z.string(),
    operator_id: z.string().nullable(),
    network_id: z.string().nullable(),
    /** Dotted name: radio.lte, camel.phases, lte.roaming, volte.s8hr, nr.nsa, nr.sa, sms.mt … */
    name: z.string(),
    value: z.unknown(),
    effective_at: IsoTime.nullable(),
    source: z.string(),
    dataset_version: z.string(),
  })
  .meta({ id: "Capability" });
export type Capability = z.infer<typeof Capability>;

/** Where a dataset version's records came from: package or document, version, checksum, terms. */
export const SourceDescriptor = z
  .object({
    /** What records name in `source`, e.g. `mcc-mnc-list` or `ir21:CHNCT`. */
    id: z.string(),
    name: z.string(),
    /** npm package name, or null for a document. */
    package: z.string().nullable(),
    version: z.string().nullable(),
    /** File names and checksums (sha256) of the inputs read. */
    files: z.array(z.object({ path: z.string(), sha256: z.string() })),
    license: z.string(),
    attribution: z.string(),
    url: z.string().nullable(),
    published_at: IsoTime.nullable(),
    /** When the source's content takes effect (an IR.21 document's effective date); events carry it as effective_at. */
    effective_at: IsoTime.nullable(),
    /** True for hand-made sample or demo inputs, never to be mistaken for an operator's real data. */
    sample: z.boolean(),
    /** The sender's own revision of the file (an IR.21 document's file version); absent when the source has none. */
    file_version: z.string().nullable().optional(),
    /**
     * In `/v1/meta` without `?files=true`: how many files the source read and one sha256 over all of them
     * (`files` is then empty, keeping the answer small).
     */
    files_count: z.number().int().optional(),
    files_sha256: z.string().optional(),
    /** The upstream data release behind the package (libphonenumber 9.0.43); null when unknown, absent when not applicable. */
    data_version: z.string().nullable().optional(),
    /**
     * How often the publisher refreshes the source, in days, as documented (docs/catalog.md "Sources
     * and their dates"): past it the source is `stale`. Absent for sources without a schedule (IR.21
     * documents, the demo).
     */
    refresh_interval_days: z.number().int().optional(),
    /** Days from published_at to now (in `/v1/meta` and `data audit`, by the server's clock); null when published_at is. */
    age_days: z.number().int().nullable().optional(),
    /** True when age_days is over refresh_interval_days: a newer file is likely out (compared with today, not with another source). */
    stale: z.boolean().nullable().optional(),
    /** A national register: the E.164 prefixes it is the authority for (its holders win there; unlisted blocks are not assigned). */
    coverage: z.array(z.string()).optional(),
    /** A national register's files: `packaged` with ir21 (redistributable) or `loaded` by the operator (`import registers`). */
    origin: z.enum(["packaged", "loaded"]).optional(),
  })
  .meta({ id: "SourceDescriptor" });
export type SourceDescriptor = z.infer<typeof SourceDescriptor>;

export const DatasetCounts = z
  .object({
    countries: z.number().int(),
    operators: z.number().int(),
    networks: z.number().int(),
    number_ranges: z.number().int(),
    capabilities: z.number().int(),
    /** Number ranges whose holder is linked to an operator record. */
    number_ranges_linked: z.number().int(),
  })
  .meta({ id: "DatasetCounts" });
export type DatasetCounts = z.infer<typeof DatasetCounts>;

export const DatasetVersionInfo = z
  .object({
    version: z.string(),
    previous_version: z.string().nullable(),
    source_mode: SourceMode,
    source_published_at: IsoTime.nullable(),
    ingested_at: IsoTime,
    events: z.number().int(),
    reset_reason: z.string().nullable(),
    counts: DatasetCounts,
    sources: z.array(SourceDescriptor),
  })
  .meta({ id: "DatasetVersion" });
export type DatasetVersionInfo = z.infer<typeof DatasetVersionInfo>;

// --- /v1 responses ------------------------------------------------------------------------------

/** A list page: `next_cursor` is null on the last page. */
export const pageOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next_cursor: z.string().nullable() });

export const NumberRangeCounts = z.object({
  total: z.number().int(),
  e164: z.number().int(),
  e212: z.number().int(),
  mobile: z.number().int(),
  fixed: z.number().int(),
  /** Every kind other than mobile and fixed (fixed_line_or_mobile, pager, toll_free …). */
  other: z.number().int(),
  /** Ranges by kind, only kinds with ranges. */
  by_kind: z.record(z.string(), z.number().int()),
});

export const OperatorDetail = Operator.extend({
  networks: z.array(Network),
  capabilities: z.array(Capability),
  number_range_counts: NumberRangeCounts,
}).meta({ id: "OperatorDetail" });
export const PublicOperatorDetail = PublicOperator.extend({ networks: z.array(PublicNetwork) }).meta({ id: "PublicOperatorDetail" });

/**
 * One country (GET /v1/countries/:iso2) with the operators serving it: those filed under it and those
 * whose `territories` include it (Réunion's operators under YT), public fields. Additive after v1.
 */
export const CountryDetail = Country.extend({ operators: z.array(PublicOperator) }).meta({ id: "CountryDetail" });

export const LOOKUP_NOTE = "range_holder is the original holder of the number's range; numbers ported to another operator are not reflected.";

export const ValidationReason = z.enum(["TOO_SHORT", "TOO_LONG", "INVALID_LENGTH", "INVALID_COUNTRY", "INVALID_NUMBER"]);
export type ValidationReason = z.infer<typeof ValidationReason>;
export const RangeHolderReason = z.enum(["invalid_number", "type_not_served", "no_range", "not_assigned"]);

/**
 * Where a lookup's range holder (or its absence) comes from: the source, its file's date, and for a
 * national register the block's status. `not_assigned` with a register source means the register covers
 * the number and assigns its block to nobody (docs/api.md "Lookup").
 */
export const LookupSource = z
  .object({
    /** The source id, as in `/v1/meta` (`register:gb-ofcom-s7`, `libphonenumber-carrier`). */
    id: z.string(),
    name: z.string(),
    /** The source file's date (`YYYY-MM-DD`), as on the range; null when unknown. */
    date: IsoDate.nullable(),
    /** A register's status of the number's block; null when the source has none or lists no block for the number. */
    status: BlockStatus.nullable(),
  })
  .meta({ id: "LookupSource" });
export type LookupSource = z.infer<typeof LookupSource>;
export const NumberFormats = z
  .object({
    /** +8613912345678 */
    e164: z.string(),
    /** 139 1234 5678 (as dialled inside the country) */
    national: z.string(),
    /** +86 139 1234 5678 */
    international: z.string(),
    /** RFC 3966 URI: tel:+86-139-1234-5678 */
    rfc3966: z.string(),
  })
  .meta({ id: "NumberFormats" });

/** Where a geographic number belongs, from libphonenumber's geocoding data; each language from its own file. */
export const NumberLocation = z
  .object({
    /** e.g. "Changzhou, Jiangsu"; null when the English data has no entry. */
    en: z.string().nullable(),
    /** e.g. "江苏省常州市"; null when the Chinese data has no entry (no fallback to English). */
    zh: z.string().nullable(),
  })
  .meta({ id: "NumberLocation" });

export const NumberLookup = z
  .object({
    /** The number in E.164, e.g. +8613912345678. */
    number: z.string(),
    country_iso2: z.string().nullable(),
    /** Whether libphonenumber considers the number valid for its country. */
    valid: z.boolean(),
    /**
     * Why the number is not valid, from libphonenumber: TOO_SHORT, TOO_LONG, INVALID_LENGTH (a length
     * the region never uses), INVALID_COUNTRY (no such calling code), INVALID_NUMBER (a possible
     * length, but no number pattern of the region matches). Null for a valid number.
     */
    validation_reason: ValidationReason.nullable(),
    /** libphonenumber's type of the number (mobile, fixed_line, fixed_line_or_mobile, …), or null. */
    number_type: z.string().nullable(),
    /** The number written out by libphonenumber; null when it could not be parsed at all. */
    formats: NumberFormats.nullable(),
    /**
     * Place of a valid fixed-line or mobile number from libphonenumber's geocoding data (often only the
     * country, often nothing for mobiles; Chinese mobiles to the city). Null when neither language has data.
     */
    location: NumberLocation.nullable(),
    /** IANA time zones of the number from libphonenumber's time-zone map; [] for an invalid number or when unknown. */
    time_zones: z.array(z.string()),
    /**
     * Named only for a valid number of a type libphonenumber's carrier mapper serves (mobile,
     * fixed_line_or_mobile, pager); see range_holder_reason when null.
     */
    range_holder: z.string().nullable(),
    /**
     * Why range_holder and operator are null: invalid_number, type_not_served (e.g. a toll-free or
     * voicemail number), no_range (no range covers the number). Null when a holder is named.
     */
    range_holder_reason: RangeHolderReason.nullable(),
    operator: Operator.nullable(),
    /**
     * The operator that runs the range holder's business today, through the documented lineage
     * (merged, acquired, renamed): the operator itself when it has no successor. Null with operator.
     */
    current_operator: Operator.nullable(),
    range: NumberRange.nullable(),
    /** The number's network by the documented rule (docs/catalog.md "The number's network", catalog/operator-networks.ts); else null. */
    network: Network.nullable(),
    /** Every network of the operator (an operator often has several PLMNs). */
    networks: z.array(Network),
    /**
     * The primary MCC/MNC of the operator: the number's network when known, else the operator's
     * operational networks, those of the number's country first, lowest MCC then MNC (docs/api.md).
     */
    primary_network: z.object({ mcc: z.string(), mnc: z.string() }).nullable(),
    match: z.object({ prefix: z.string(), length: z.number().int() }).nullable(),
    note: z.string(),
    // Added after v1 (additive).
    /**
     * Where range_holder comes from and when it was true: the matched range's source and file date,
     * or, for a number a national register covers but assigns to nobody, that register
     * (range_holder_reason not_assigned). Null when no source speaks for the number.
     */
    source: LookupSource.nullable(),
    /**
     * The company that runs the range holder's business today (its documented corporate successor,
     * docs/catalog.md "Lineage"), the same value as current_operator under a name that cannot be read as
     * "the operator this number is on": a ported number is served by another operator, and ir21 does
     * not know whether a number was ported (see `ported`). Null with operator.
     */
    holder_successor: Operator.nullable(),
    /**
     * Whether the number was ported away from its range's holder: always null, ir21 consults no
     * number-portability database. range_holder, operator, holder_successor and network describe the
     * number's block, not the subscriber's current network.
     */
    ported: z.null(),
  })
  .meta({ id: "NumberLookup" });
export type NumberLookup = z.infer<typeof NumberLookup>;
export const PublicNumberLookup = NumberLookup.pick({
  number: true,
  country_iso2: true,
  valid: true,
  validation_reason: true,
  number_type: true,
  formats: true,
  location: true,
  time_zones: true,
  range_holder: true,
  range_holder_reason: true,
  source: true,
  ported: true,
})
  .extend({ operator: PublicOperator.nullable() })
  .meta({ id: "PublicNumberLookup" });

export const ImsiLookup = z
  .object({
    imsi: z.string(),
    mcc: z.string().nullable(),
    mnc: z.string().nullable(),
    country_iso2: z.string().nullable(),
    network: Network.nullable(),
    operator: Operator.nullable(),
    /** An IR.21 IMSI sub-range (multi-user MCC-MNC) the IMSI falls in, when known. */
    range: NumberRange.nullable(),
    /** True when both a 2- and a 3-digit MNC match (e.g. 310-59 and 310-590); the 3-digit one is returned. */
    ambiguous: z.boolean(),
  })
  .meta({ id: "ImsiLookup" });
export type ImsiLookup = z.infer<typeof ImsiLookup>;
export const PublicImsiLookup = ImsiLookup.pick({ imsi: true, mcc: true, mnc: true, country_iso2: true })
  .extend({ network: PublicNetwork.nullable(), operator: PublicOperator.nullable() })
  .meta({ id: "PublicImsiLookup" });

/**
 * `fields=` of GET /v1/lookup and POST /v1/lookup/batch (added after v1, additive): a comma-separated
 * list of the answer's top-level fields and dotted sub-fields (`number,valid,operator.id,network.mcc`).
 * Only these are answered and only their work is done (docs/api.md "Lookup fields"); which names exist,
 * and which the caller's projection allows, is checked against the answer's schema
 * (catalog/lookup/answer-fields.ts). Without it the answer is the whole projection.
 */
/** The syntax of {@link LookupFields} (at most 1000 characters). */
export const LOOKUP_FIELDS_SYNTAX = /^\s*[a-z0-9_]+(\.[a-z0-9_]+)*\s*(,\s*[a-z0-9_]+(\.[a-z0-9_]+)*\s*)*$/;

export const LookupFields = z
  .string()
  .max(1000)
  .regex(LOOKUP_FIELDS_SYNTAX, "must be a comma-separated list of answer fields such as number,valid,operator.id")
  .meta({ example: "number,country_iso2,valid,number_type,range_holder" });

export const BatchLookupItemError = z.object({ number: z.string(), error: z.object({ code: z.string(), message: z.string() }) });

export const DataMeta = z
  .object({
    dataset_version: z.string(),
    previous_version: z.string().nullable(),
    source_mode: SourceMode,
    source_published_at: IsoTime.nullable(),
    ingested_at: IsoTime,
    counts: DatasetCounts,
    sources: z.array(SourceDescriptor),
    /** One line naming every source's licence and attribution, to reproduce with the data. */
    attribution: z.string(),
    /**
     * Whether the range holders (libphonenumber carrier data) come from an older libphonenumber release
     * than the validity and type metadata; null when either release is unknown or not in the dataset.
     */
    freshness: z
      .object({
        carrier_data_version: z.string().nullable(),
        validity_data_version: z.string().nullable(),
        carrier_data_older_than_validity: z.boolean().nullable(),
      })
      .optional(),
  })
  .meta({ id: "DataMeta" });
