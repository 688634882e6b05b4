/**
 * The register readers' output: one `RegisterFile` per input file, in a register-neutral shape the
 * catalogue's import pipeline turns into number ranges, operators and networks (docs/registers.md).
 * Nothing here knows the catalogue: no operator ids, no dataset versions, no database.
 */

/** Every register file this module reads, by a stable id (`<country>-<regulator>-<file>`). */
export const REGISTER_IDS = [
  "ca-cnac-co-codes",
  "us-nanpa-npa",
  "gb-ofcom-s3",
  "gb-ofcom-s5",
  "gb-ofcom-s7",
  "gb-ofcom-s8",
  "gb-ofcom-s9",
  "ru-rossvyaz-def",
  "fr-arcep-majnum",
  "fr-arcep-majnfb",
  "fr-arcep-gelnum",
  "fr-arcep-majrio",
  "fr-arcep-majmnc",
  "fr-arcep-majporta",
  "fr-arcep-majcpsn",
  "fr-arcep-majcpsi",
  "fr-arcep-majr1r2",
  "fr-arcep-majsdt",
  "intl-mcc-mnc-list",
  "intl-itu-e212",
] as const;
export type RegisterId = (typeof REGISTER_IDS)[number];

/** What the module knows about a register before reading a file of it. */
export interface RegisterInfo {
  id: RegisterId;
  /** ISO 3166-1 alpha-2 of the register's country; null for the international MCC/MNC lists. */
  country: string | null;
  /** Who publishes it. */
  publisher: string;
  title: string;
  /** The encoding the publisher uses (a file in another one is read with a warning). */
  encoding: TextEncodingName;
  /**
   * Where a file's date comes from: `file` (a date line), `latest_row_date` (the latest date of its
   * rows, ARCEP), or `caller` (the file carries none: the caller states the download's date).
   */
  dateFrom: FileDateSource | "caller";
}

export type TextEncodingName = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252" | "windows-1251";

export type FileDateSource = "file" | "latest_row_date";

/**
 * A block's status, normalised. The register's own word is kept in `RegisterBlock.registerStatus`;
 * the mapping per register is in docs/registers.md.
 *
 * - `assigned`: held by an operator (allocated, in service or not yet, being recovered from it);
 * - `free`: open for assignment;
 * - `reserved`: set aside for a holder or a future use, not open for assignment;
 * - `protected`: kept out of assignment to keep numbering-plan options open (Ofcom);
 * - `quarantined`: given back or withdrawn, resting before it can be assigned again;
 * - `frozen`: withdrawn and frozen until a stated date, then reopened for requests (ARCEP's GELNUM);
 * - `special`: set aside for a special use: service codes, test codes;
 * - `unavailable`: not assignable (moratorium, stranded, not available);
 * - `unknown`: a status word this module does not know (kept, with a warning).
 */
export const BLOCK_STATUSES = ["assigned", "free", "reserved", "protected", "quarantined", "frozen", "special", "unavailable", "unknown"] as const;
export type BlockStatus = (typeof BLOCK_STATUSES)[number];

/** The holder of a block or resource, as the register writes it. */
export interface HolderRef {
  /**
   * The register's identifier of the holder: OCN (CNAC), INN (Rossvyaz), ARCEP operator code
   * (Mnémo / Code Attributaire), and for Ofcom, which has no identifier, the provider's name.
   */
  id: string;
  /** The name exactly as written in this row; null where the row carries only the identifier (MAJNUM, MAJPORTA). */
  name: string | null;
}

/**
 * A number block: every E.164 number from `start` to `end`.
 *
 * Blocks are ranges, not decomposed into prefixes: a Russian row `900;0000000;0061999` is one block
 * `79000000000`–`79000061999` (decomposed it would be 62 prefixes, and the register's own row, the
 * unit its holder changes in, would be lost). `prefix` is set whenever the block is exactly every
 * number starting with some digits (always for CNAC, NANPA, Ofcom and ARCEP blocks).
 */
export interface RegisterBlock {
  /** The row it was read from: the line in the file (1-based). */
  row: number;
  /**
   * `e164`: international numbers, `start`/`end`/`prefix` are E.164 digits with the country code.
   * `national_short`: a short code dialled only inside the country (ARCEP's `3BPQ`, `118XYZ`, `10XY`,
   * `15`), digits as dialled, no country code.
   */
  plan: "e164" | "national_short";
  /** ISO 3166-1 alpha-2 of the numbers (ARCEP's overseas territories and NANPA's countries differ from the register's); null for NANP-wide codes. */
  country: string | null;
  /** Every number starting with these digits, when the block is exactly that; else null. */
  prefix: string | null;
  /** First and last number of the block, full length (same length). */
  start: string;
  end: string;
  /** The block as the register writes it (`7000 0`, `01056`, `900;0000000;0061999`, `204-200`). */
  registerBlock: string;
  status: BlockStatus;
  /** The register's own status word; null where the register has no status column (a row is an assignment). */
  registerStatus: string | null;
  /** True/false where the register says whether the block is in service (CNAC, NANPA); else null. */
  inService: boolean | null;
  /**
   * CNAC (2025 on): the NPA-NXX is pooled, so thousands-blocks inside it may be held by other
   * carriers, which this file does not list (the holder is the code's, not every number's). Else null.
   */
  pooled: boolean | null;
  holder: HolderRef | null;
  /** The place the register names for the block: CNAC exchange area, NANPA location, Rossvyaz region, ARCEP territory. */
  region: string | null;
  /** A wider area the register also names: CNAC province (2023-12 on), Rossvyaz `Территория ГАР` (2026 on). */
  subdivision: string | null;
  /** The date the block was assigned to its holder (ISO `YYYY-MM-DD`), where the register says. */
  assignedOn: string | null;
  /** Every date the row carries, by the register's column name, as ISO dates (assignedOn included). */
  dates: Record<string, string>;
  /** Length of the national significant number where the register states it (Ofcom); else null. */
  numberLength: number | null;
  /** The register's remarks or notes for the row, as written; null when empty. */
  notes: string | null;
}

/** A holder named in a file, with every name it is written under and how many of the file's blocks, networks or resources it holds. */
export interface RegisterHolder {
  id: string;
  /** Distinct names as written, in order of first appearance (Rossvyaz writes one INN under several spellings). */
  names: string[];
  blocks: number;
  networks: number;
  resources: number;
}

/** A mobile network code (E.212) entry. */
export interface RegisterNetwork {
  row: number;
  mcc: string;
  /** 2 or 3 digits, as written. */
  mnc: string;
  /** For an entry naming a range of MNCs (mcc-mnc-list's `100 - 190`): the last one; else null. */
  mncLast: string | null;
  /**
   * For an IMSI block inside a shared MNC (ARCEP's 8-digit codes `20850144`, mcc-mnc-list's 5-digit
   * "MNCs" under 208 such as `50144`): the MSIN's first digits after the 2-digit MNC; else null.
   */
  msinPrefix: string | null;
  /** ISO 3166-1 alpha-2 when the entry names one country; null for international or several. */
  country: string | null;
  /** Every country the entry names (mcc-mnc-list's `AU/CC/CX`, `GE-AB` → `GE`). */
  countries: string[];
  /** The country or area as the source writes it. */
  countryName: string | null;
  holder: HolderRef | null;
  brand: string | null;
  status: NetworkStatus;
  registerStatus: string | null;
  /** mcc-mnc-list's `type` (National, International, Test); null elsewhere. */
  type: string | null;
  bands: string | null;
  notes: string | null;
  assignedOn: string | null;
  /** ARCEP's decision number (`2016-1702`); null elsewhere. */
  decision: string | null;
}

export const NETWORK_STATUSES = ["operational", "not_operational", "assigned", "reserved", "testing", "unknown"] as const;
export type NetworkStatus = (typeof NETWORK_STATUSES)[number];

/**
 * A numbering resource that is neither an E.164 block nor a network code: ARCEP's RIO operator codes,
 * signalling point codes, routing prefixes, carrier-selection prefixes, and GELNUM's frozen codes of
 * those kinds. Kept so that their holders are named and nothing is dropped; the catalogue has no
 * record for them.
 */
export interface RegisterResource {
  row: number;
  kind: ResourceKind;
  /** The code as written (`F0`, `00001`, `2-016-0`, `010000`). */
  code: string;
  holder: HolderRef | null;
  status: BlockStatus;
  /** The register's own description of the resource type, where it gives one (GELNUM's `Type`). */
  registerType: string | null;
  region: string | null;
  assignedOn: string | null;
  dates: Record<string, string>;
  decision: string | null;
}

export const RESOURCE_KINDS = [
  "rio_operator_code",
  "signalling_point_code_national",
  "signalling_point_code_international",
  "network_code_r1r2",
  "carrier_selection_prefix",
  "routing_prefix",
  "mcc_mnc",
  "msrn_code",
  "other",
] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** Why a row did not become a block, network or resource. */
export const LISTED_REASONS = [
  /** The file's header line. */
  "header",
  /** A line carrying the file's date, not data (CNAC line 2, NANPA line 1). */
  "date_line",
  "blank",
  /** The same block or code as an earlier row (detail says whether it differs). */
  "duplicate",
  /** A block overlapping one kept from an earlier row. */
  "overlap",
  /** A row that cannot be read: wrong field count, a block that is not digits, a range ending before it starts, a quote not closed on its line. */
  "malformed",
  /** A block outside the register's numbering (a 3 in Ofcom's S7, a number that is not national). */
  "outside_numbering",
] as const;
export type ListedReason = (typeof LISTED_REASONS)[number];

export interface ListedRow {
  /** The line (or entry) number. A row is always one line: none of these registers breaks a line inside a quoted field. */
  row: number;
  reason: ListedReason;
  detail: string;
}

/** Something odd about a row that was kept, or about the file. */
export interface ReportWarning {
  /** The row, or null for the whole file. */
  row: number | null;
  code: string;
  detail: string;
}

/**
 * What reading a file did. For every file read (not refused): `rows.read = rows.kept + rows.listed`
 * and `rows.listed = listed.length`: nothing is dropped without being listed.
 */
export interface ImportReport {
  /** The name the caller gave (with the zip member's, `COCodeStatus_ALL.zip:COCodeStatus_ALL.csv`). */
  file: string | null;
  register: RegisterId | null;
  /** How the register was chosen: from the header (with the file name or content where headers are shared), or the caller's `format`. */
  recognisedBy: "header" | "format";
  /** The column set seen, e.g. `2023 (7 columns)`; null when the register has one layout. */
  layout: string | null;
  encoding: TextEncodingName | null;
  /** Why the whole file was refused (nothing read from it), or null. */
  refused: string | null;
  rows: {
    /** `line` for CSV files (physical lines), `entry` for JSON lists (array entries). */
    unit: "line" | "entry";
    read: number;
    kept: number;
    listed: number;
  };
  listed: ListedRow[];
  warnings: ReportWarning[];
  columns: {
    /** Columns turned into output fields, as the header writes them. */
    modelled: string[];
    /** Columns read but not kept in the output, as the header writes them. */
    notModelled: string[];
  };
  blocksByStatus: Partial<Record<BlockStatus, number>>;
  /** How many rows became blocks, networks and resources. */
  blocks: number;
  networks: number;
  resources: number;
  holders: number;
}

/** One file read. */
export interface RegisterFile {
  register: RegisterId | null;
  /** ISO alpha-2 of the register; null for international lists and refused files. */
  country: string | null;
  /** The file's own date (ISO `YYYY-MM-DD`); null when it carries none: the caller supplies one. */
  fileDate: string | null;
  fileDateFrom: FileDateSource | null;
  blocks: RegisterBlock[];
  holders: RegisterHolder[];
  networks: RegisterNetwork[];
  resources: RegisterResource[];
  report: ImportReport;
}

export interface ReadOptions {
  /** The file's name (a path is fine): shown in the report, and tells apart files sharing a header (Ofcom S3…S9, ARCEP's companions). */
  fileName?: string;
  /** Read as this register, skipping recognition; a header that does not fit refuses the file. */
  format?: RegisterId;
}
