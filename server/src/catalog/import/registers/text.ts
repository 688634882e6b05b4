import type { TextEncodingName } from "./types.ts";

/**
 * Bytes to text, and text to delimited records, for the register readers.
 *
 * Decoding is node's `TextDecoder` (WHATWG encodings, with full ICU: windows-1252, windows-1251). The
 * record splitter is hand-written rather than csv-parse because every register is read line by line
 * and the report must name the physical line of every row: csv-parse numbers records, and a record
 * it skips (an unclosed quote) reports a line counter that is not the record's line (a quote opened
 * on line 7 of an 8-line file is reported at "line 10"), and with quoting on, one stray quote swallows
 * the rest of the file into one record. None of these registers puts a line break inside a quoted
 * field, so here a record is exactly one line, and a quote left open at the end of its line makes
 * that line (only) malformed. The tests read the same files with csv-parse, an independent parser.
 */

export interface DecodedText {
  text: string;
  encoding: TextEncodingName;
  /** Set when the bytes were not in the register's own encoding. */
  warning: string | null;
}

/** The byte-order marks this module honours, longest first. */
const BOMS: { bytes: number[]; encoding: TextEncodingName }[] = [
  { bytes: [0xef, 0xbb, 0xbf], encoding: "utf-8" },
  { bytes: [0xff, 0xfe], encoding: "utf-16le" },
  { bytes: [0xfe, 0xff], encoding: "utf-16be" },
];

function bom(bytes: Uint8Array): { encoding: TextEncodingName; length: number } | null {
  for (const b of BOMS) if (b.bytes.every((v, i) => bytes[i] === v)) return { encoding: b.encoding, length: b.bytes.length };
  return null;
}

/** Whether the bytes are valid UTF-8 and hold at least one non-ASCII character. */
function utf8WithNonAscii(bytes: Uint8Array): boolean {
  if (!bytes.some((b) => b >= 0x80)) return false;
  return strictUtf8(bytes) !== null;
}

function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Decodes a register file. A byte-order mark wins. Otherwise the register's own encoding, with two
 * kinds of re-saved files read anyway, with a warning: a UTF-8 register whose bytes are not valid
 * UTF-8 is read in `fallback` (a single-byte code page), and a single-byte register whose bytes are
 * valid UTF-8 with non-ASCII characters is read as UTF-8 (ARCEP's files opened and saved again).
 */
export function decodeRegisterText(bytes: Uint8Array, own: TextEncodingName, fallback: TextEncodingName): DecodedText {
  const mark = bom(bytes);
  if (mark) {
    const text = new TextDecoder(mark.encoding, { ignoreBOM: true }).decode(bytes.subarray(mark.length));
    const warning = mark.encoding === own ? null : `the file is ${mark.encoding} (byte-order mark), not the register's ${own}`;
    return { text, encoding: mark.encoding, warning };
  }
  if (own === "utf-8") {
    const text = strictUtf8(bytes);
    if (text !== null) return { text, encoding: "utf-8", warning: null };
    return {
      text: new TextDecoder(fallback).decode(bytes),
      encoding: fallback,
      warning: `the file is not valid UTF-8 (first bad byte at offset ${firstBadUtf8Byte(bytes)}); read as ${fallback}`,
    };
  }
  if (utf8WithNonAscii(bytes)) return { text: strictUtf8(bytes)!, encoding: "utf-8", warning: `the file is UTF-8, not the register's ${own}; read as UTF-8` };
  return { text: new TextDecoder(own).decode(bytes), encoding: own, warning: null };
}

/** The offset of the first byte that makes the input invalid UTF-8 (for the report). */
function firstBadUtf8Byte(bytes: Uint8Array): number {
  // Only called once decoding failed: a scan of the sequence structure, exact and cheap.
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return i;
    i += need + 1;
  }
  return i;
}

/**
 * The first lines of a file, decoded leniently in one encoding (a byte-order mark wins): enough to
 * recognise a header and, where registers share one, the first rows. Reads at most 64 KiB.
 */
export function headLines(bytes: Uint8Array, encoding: TextEncodingName, count: number): string[] {
  const mark = bom(bytes);
  const head = bytes.subarray(mark?.length ?? 0, Math.min(bytes.length, 65536));
  return new TextDecoder(mark?.encoding ?? encoding, { ignoreBOM: true }).decode(head).split(/\r\n|\n|\r/, count);
}

/** One physical line of a delimited file. */
export interface TextRecord {
  /** 1-based line number. */
  line: number;
  /** The line as written, without its line terminator. */
  text: string;
  fields: string[];
  /** Why the fields could not be split (an unclosed quote); null when they could. */
  error: string | null;
}

/**
 * Splits text into lines (CRLF, LF or a lone CR end a line; a terminator at the very end does not
 * start another line) and each line into fields. With `quoting`, a field that starts with `"` runs to
 * the next `"` not doubled (`""` is a quote inside it); a quote inside an unquoted field is kept as
 * written (ARCEP and CNAC never have one; relaxed as csv-parse's `relax_quotes`). Without `quoting`,
 * quotes are plain characters (the Russian register writes `ООО "Т2 Мобайл"` unescaped).
 */
export function splitLines(text: string, delimiter: string, quoting: boolean): TextRecord[] {
  const records: TextRecord[] = [];
  const terminator = /\r\n|\n|\r/g;
  let start = 0;
  let line = 1;
  while (start < text.length) {
    terminator.lastIndex = start;
    const match = terminator.exec(text);
    const end = match ? match.index : text.length;
    const raw = text.slice(start, end);
    const split = quoting ? splitQuoted(raw, delimiter) : { fields: raw.split(delimiter), error: null };
    records.push({ line, text: raw, fields: split.fields, error: split.error });
    line++;
    start = match ? end + match[0].length : text.length;
  }
  return records;
}

function splitQuoted(line: string, delimiter: string): { fields: string[]; error: string | null } {
  if (!line.includes('"')) return { fields: line.split(delimiter), error: null };
  const fields: string[] = [];
  let error: string | null = null;
  const n = line.length;
  let i = 0;
  for (;;) {
    let field = "";
    if (line[i] === '"') {
      let from = i + 1;
      let closed = false;
      for (;;) {
        const quote = line.indexOf('"', from);
        if (quote < 0) {
          field += line.slice(from);
          i = n;
          break;
        }
        if (line[quote + 1] === '"') {
          field += line.slice(from, quote + 1); // a doubled quote is one quote
          from = quote + 2;
          continue;
        }
        field += line.slice(from, quote);
        i = quote + 1;
        closed = true;
        break;
      }
      if (!closed) error ??= `a quote opened in column ${fields.length + 1} is not closed on its line`;
    }
    // The rest of the field up to the delimiter: all of an unquoted field; after a closing quote,
    // characters before the delimiter are kept (`"a"b` reads `ab`), as lenient readers do.
    const next = line.indexOf(delimiter, i);
    const stop = next < 0 ? n : next;
    field += line.slice(i, stop);
    fields.push(field);
    if (stop >= n) break;
    i = stop + delimiter.length;
    if (i === n) {
      fields.push("");
      break;
    }
  }
  return { fields, error };
}

/** Lower-cased, accents and punctuation dropped, spaces collapsed: how headers are compared (`Mnémo` = `mnemo`). */
export function headerKey(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}
