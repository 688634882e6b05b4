import { Collector } from "./collect.ts";
import { REGISTERS } from "./info.ts";
import { decodeRegisterText, headerKey, splitLines, type TextRecord } from "./text.ts";
import type { RegisterFile, RegisterId, TextEncodingName } from "./types.ts";

/** What a reader is given: the bytes of one file (a zip already opened) and who it is. */
export interface ReaderInput {
  bytes: Uint8Array;
  /** Shown in the report. */
  file: string | null;
  register: RegisterId;
  recognisedBy: "header" | "format";
}

/** One register format (or a family sharing a header). */
export interface RegisterReader {
  ids: readonly RegisterId[];
  /** Encodings a header is tried in for recognition, the format's own first. */
  headerEncodings: readonly TextEncodingName[];
  /**
   * Which of `ids` a file is, from its first lines (decoded in one of `headerEncodings`) and its
   * name; null when the header is not this format's. Where several registers share a header (Ofcom's
   * S-files, ARCEP's companions), the file name decides, else the first rows' content.
   */
  recognise(head: readonly string[], fileName: string | null): RegisterId | null;
  read(input: ReaderInput): RegisterFile;
}

/** A column a format expects, by the header spellings it is known under (compared with `headerKey`). */
export interface ColumnSpec {
  names: readonly string[];
  required: boolean;
}

/**
 * The header of a delimited register, with its columns found by name, so that added, removed or
 * reordered columns (CNAC's Pooled and Province, Rossvyaz's Территория ГАР) are read by name.
 */
export class Header<K extends string> {
  private readonly index = new Map<K, number>();
  readonly missing: K[] = [];
  /** Columns of the file no spec names (reported as not modelled). */
  readonly unknown: string[] = [];

  constructor(
    readonly fields: readonly string[],
    specs: Record<K, ColumnSpec>,
  ) {
    const keys = fields.map(headerKey);
    for (const [name, spec] of Object.entries(specs) as [K, ColumnSpec][]) {
      const at = keys.findIndex((k) => spec.names.some((n) => headerKey(n) === k));
      if (at >= 0) this.index.set(name, at);
      else if (spec.required) this.missing.push(name);
    }
    const used = new Set(this.index.values());
    fields.forEach((f, i) => {
      if (!used.has(i)) this.unknown.push(f);
    });
  }

  has(name: K): boolean {
    return this.index.has(name);
  }

  /** The row's value in a column (undefined when the file has no such column or the row is short). */
  get(row: readonly string[], name: K): string | undefined {
    const at = this.index.get(name);
    return at === undefined ? undefined : row[at];
  }

  /** The file's own spelling of the given columns, in file order (for the report). */
  written(names: readonly K[]): string[] {
    return names
      .map((n) => this.index.get(n))
      .filter((i): i is number => i !== undefined)
      .sort((a, b) => a - b)
      .map((i) => this.fields[i]!);
  }
}

/** Whether a header line has every required column of the specs. */
export function headerMatches(line: string, delimiter: string, specs: Record<string, ColumnSpec>): boolean {
  const fields = splitLines(line, delimiter, true)[0]?.fields ?? [];
  return new Header(fields, specs).missing.length === 0;
}

export interface Table {
  collector: Collector;
  records: TextRecord[];
}

/**
 * Decodes and splits a delimited register, and opens its collector with the encoding and any
 * encoding warning. The reader then walks `records`, accounting for every one.
 */
export function openTable(input: ReaderInput, fallback: TextEncodingName, delimiter: string, quoting: boolean): Table {
  const info = REGISTERS[input.register];
  const decoded = decodeRegisterText(input.bytes, info.encoding, fallback);
  const collector = new Collector(input.register, info.country, input.file, decoded.encoding, "line", input.recognisedBy);
  if (decoded.warning) collector.warn(null, "encoding", decoded.warning);
  return { collector, records: splitLines(decoded.text, delimiter, quoting) };
}

/** The base name of a path, for file-name hints (`/x/S7_2025-09-13.csv` → `S7_2025-09-13.csv`). */
export function baseName(name: string | null): string | null {
  if (name === null) return null;
  const parts = name.split(/[\\/:]/);
  return parts[parts.length - 1] || null;
}

/** `true` when a line is empty or only delimiters and spaces. */
export function isBlank(record: TextRecord): boolean {
  return record.fields.every((f) => f.trim() === "");
}

/**
 * The data records of a table (the header line skipped), each counted as seen; a record the splitter
 * could not read, a blank one and, given `width` (the header's field count), one of another width are
 * listed with their reason and not yielded. Every reader's loop starts so.
 */
export function* dataRecords(table: Table, width?: number): Generator<TextRecord> {
  const { collector, records } = table;
  for (const record of records.slice(1)) {
    collector.seen();
    if (record.error) collector.list(record.line, "malformed", record.error);
    else if (isBlank(record)) collector.list(record.line, "blank", "empty line");
    else if (width !== undefined && record.fields.length !== width) collector.list(record.line, "malformed", `${record.fields.length} fields, the header has ${width}`);
    else yield record;
  }
}
