import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { parse } from "csv-parse/sync";

/**
 * For the register readers' tests only: the registers as the repository holds them (never the
 * shared folder), both written by scripts/registers/copy-registers.js: full copies of the embedded
 * registers (those whose licence lets the server package ship them) under server/data/registers
 * (manifest.json), and test slices of every register file, embedded or not, under
 * server/fixtures/registers (slices.json, which also records each file's accounting as the readers
 * gave it when the slices were cut). And an independent CSV reading (csv-parse; the readers split
 * lines by hand) to compare with.
 */

export const DATA_DIR = fileURLToPath(new URL("../../../../data/registers/", import.meta.url));
export const FIXTURES_DIR = fileURLToPath(new URL("../../../../fixtures/registers/", import.meta.url));

/** An embedded register file (manifest.json). */
export interface ManifestFile {
  path: string;
  register: string;
  date: string;
  licence: string;
  attribution: string;
  download: string;
  downloadPage: string;
  takenFrom: string;
  sha256: string;
  bytes: number;
  stored: string;
  compression: "br" | "gz";
  storedBytes: number;
}

/** A whole file's reading, recorded by the script when it cut the slices (it then had every file). */
export interface SourceAccounting {
  unit: "line" | "entry";
  /** The file's rows counted by the script without the readers: line feeds (a last line without one counts), or JSON entries. */
  rows: number;
  read: number;
  kept: number;
  listed: number;
  listedByReason: Record<string, number>;
  blocksByStatus: Record<string, number>;
  blocks: number;
  networks: number;
  resources: number;
  holders: number;
}

export interface SliceEntry {
  source: string;
  sourceSha256: string;
  /** Whether the repository holds the source whole (server/data/registers). */
  embedded: boolean;
  sourceAccounting: SourceAccounting;
  slice: string;
  unit: "line" | "entry";
  kept: number;
  rules: Record<string, number>;
  rows: number[];
}

/** Between two versions of a register, counted by the script on the whole files (csv-parse, not the readers). */
export interface HolderChanges {
  register: string;
  older: string;
  newer: string;
  /** Blocks in both versions whose holder differs. */
  changed: number;
  onlyInOlder: number;
  onlyInNewer: number;
}

export const manifest: ManifestFile[] = JSON.parse(readFileSync(`${DATA_DIR}manifest.json`, "utf8")).files;
const slicesFile: { slices: SliceEntry[]; holderChanges: HolderChanges[] } = JSON.parse(readFileSync(`${FIXTURES_DIR}slices.json`, "utf8"));
export const slices = slicesFile.slices;
export const holderChanges = slicesFile.holderChanges;

const fullCache = new Map<string, Buffer>();

/** A register file whole, as the repository holds it (decompressed), by its source path (`UK/…csv`): embedded files only. */
export function fullCopy(path: string): Buffer {
  let bytes = fullCache.get(path);
  if (!bytes) {
    const entry = manifest.find((f) => f.path === path);
    if (!entry) throw new Error(`no full copy of ${path}: not embedded (read its slice)`);
    const packed = readFileSync(`${DATA_DIR}${entry.stored}`);
    bytes = entry.compression === "br" ? brotliDecompressSync(packed) : gunzipSync(packed);
    fullCache.set(path, bytes);
  }
  return bytes;
}

/** A slice's bytes (decompressed), by its source path. */
export function sliceOf(path: string): Buffer {
  const entry = sliceEntry(path);
  const bytes = readFileSync(`${FIXTURES_DIR}${entry.slice}`);
  return entry.slice.endsWith(".gz") ? gunzipSync(bytes) : bytes;
}

export function sliceEntry(path: string): SliceEntry {
  const entry = slices.find((s) => s.source === path);
  if (!entry) throw new Error(`no slice of ${path}`);
  return entry;
}

/** Whether the repository holds the file whole (an embedded register). */
export const isEmbedded = (path: string): boolean => manifest.some((f) => f.path === path);

/**
 * The file the reader tests compare with: the full copy where the repository holds one, else the
 * slice (the registers it may not ship: every one of their status words, layouts, quirks and holder
 * changes is in the slice, by the rules it was cut by).
 */
export function copyOf(path: string): Buffer {
  return isEmbedded(path) ? fullCopy(path) : sliceOf(path);
}

/** The recorded holder changes between a register's two versions. */
export function holderChangesOf(register: string): HolderChanges {
  const entry = holderChanges.find((c) => c.register === register);
  if (!entry) throw new Error(`no holder changes recorded for ${register}`);
  return entry;
}

export interface CsvOptions {
  /** `latin1` for ARCEP (its files hold no byte in 0x80–0x9F, where Windows-1252 differs). */
  encoding: "utf8" | "latin1";
  delimiter: string;
  quote: boolean;
}

/** Every line's fields by csv-parse, the BOM dropped. */
export function csvRows(bytes: Buffer, options: CsvOptions): string[][] {
  return parse(bytes.toString(options.encoding), {
    delimiter: options.delimiter,
    quote: options.quote ? '"' : false,
    relax_column_count: true,
    skip_empty_lines: false,
    bom: true,
  }) as string[][];
}

/** Lines in a text file by counting line feeds (a last line without one counts). */
export function lineCount(bytes: Buffer): number {
  let n = 0;
  for (const b of bytes) if (b === 0x0a) n++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? n + 1 : n;
}

/** DD/MM/YYYY → YYYY-MM-DD, by string slicing (no date library). */
export const dmy = (s: string) => (s ? `${s.slice(6, 10)}-${s.slice(3, 5)}-${s.slice(0, 2)}` : null);

/**
 * Compares two lists of records by key, field by field (JSON), without one `expect` per row (a
 * register has tens of thousands): the keys only one side has, and the first records that differ.
 */
type Row = Record<string, unknown>;

export function differences(expected: Row[], actual: Row[], key: (t: Row) => string): { missing: string[]; extra: string[]; differ: { expected: Row; actual: Row }[] } {
  const want = new Map(expected.map((t) => [key(t), t]));
  const got = new Map(actual.map((t) => [key(t), t]));
  const missing = [...want.keys()].filter((k) => !got.has(k)).slice(0, 10);
  const extra = [...got.keys()].filter((k) => !want.has(k)).slice(0, 10);
  const differ: { expected: Row; actual: Row }[] = [];
  for (const [k, t] of want) {
    const other = got.get(k);
    if (other !== undefined && JSON.stringify(t) !== JSON.stringify(other) && differ.length < 10) differ.push({ expected: t, actual: other });
  }
  return { missing, extra, differ };
}

export const NO_DIFFERENCES = { missing: [], extra: [], differ: [] };
