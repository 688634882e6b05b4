import { createHash } from "node:crypto";
import { basename } from "node:path";
import type { SourceDescriptor } from "../../../contract/catalog.ts";
import { AppError } from "../../../errors.ts";
import type { NumberRangeRecord } from "../../model/records.ts";
import type { MaterialisedDataset } from "./demo.ts";
import { NANPA_OPERATORS, nanpaCompanyKey } from "./nanpa-operators.ts";

/**
 * NANPA's public numbering reports as number ranges (docs/catalog.md "NANP coverage"), so US numbers
 * (which libphonenumber's carrier files do not cover) get a range holder:
 *
 * - the Central Office Code assignment records ("all utilized" report, allutlzd.txt): tab-separated,
 *   header `State, NPA-NXX, OCN, Company, RateCenter, EffectiveDate, Use, AssignDate, Initial/Growth
 *   [, Pooled Code, In Service File Updated MM/DD/YYYY]`; one row per assigned NPA-NXX →
 *   range `+1 NPA NXX` held by Company;
 * - the Pooling Administrator's thousands-block report (AllBlocksAugmentedReport): comma- or
 *   tab-separated, header `Region, State, NPA, NXX, X, STATUS, Code Holder, …, Rate Center, …,
 *   Assigned To, OCN, Date Assigned`; one row per block → range `+1 NPA NXX X` held by Assigned To,
 *   which wins over its code's holder by longest prefix.
 *
 * Columns are found by header name (case, spaces and punctuation ignored), not position, as the
 * reports have gained columns over the years. Hand-parsed: both are plain delimited text without
 * quoting in practice; a quoted field is unquoted all the same.
 */

export const NANPA_SOURCE_ID = "nanpa";

export interface NanpaFile {
  path: string;
  content: Buffer;
}

interface Row {
  line: number;
  get(column: string): string;
}

const norm = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, "");

function splitLine(line: string, delimiter: string): string[] {
  if (!line.includes('"')) return line.split(delimiter).map((f) => f.trim());
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === delimiter) fields.push(field.trim()), (field = "");
    else field += c;
  }
  fields.push(field.trim());
  return fields;
}

function table(file: NanpaFile, required: string[], problems: string[]): { rows: Row[]; headers: string[] } {
  const text = file.content.toString("utf8").replace(/^\uFEFF/, "");
  const lines = text.split(/\r?\n/);
  const headerIndex = lines.findIndex((l) => l.trim().length > 0);
  const headerLine = lines[headerIndex] ?? "";
  const delimiter = headerLine.includes("\t") ? "\t" : ",";
  const headers = splitLine(headerLine, delimiter);
  const index = new Map(headers.map((h, i) => [norm(h), i]));
  const missing = required.filter((c) => !index.has(norm(c)));
  if (missing.length) {
    problems.push(`${file.path}: not the expected report: no column ${missing.map((m) => `"${m}"`).join(", ")} in the header line`);
    return { rows: [], headers };
  }
  const rows: Row[] = [];
  for (let i = headerIndex + 1; i < lines.length; i++) {
    if (!lines[i]!.trim()) continue;
    const fields = splitLine(lines[i]!, delimiter);
    rows.push({ line: i + 1, get: (column) => fields[index.get(norm(column)) ?? -1] ?? "" });
  }
  return { rows, headers };
}

/** NANP regions by the report's State column: Canadian provinces and US territories are their own regions. */
const CANADA = new Set(["AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT"]);
const US_TERRITORIES = new Set(["PR", "VI", "GU", "MP", "AS"]);
const regionOf = (state: string) => (CANADA.has(state) ? "CA" : US_TERRITORIES.has(state) ? state : "US");

export interface NanpaRanges {
  ranges: NumberRangeRecord[];
  source: SourceDescriptor;
}

/**
 * Reads the code report and (optionally) the block report; throws INVALID_DATASET listing every
 * problem (file, line, reason) when either is malformed, before anything is compared or written.
 */
export function readNanpa(co: NanpaFile, blocks: NanpaFile | null): NanpaRanges {
  const problems: string[] = [];
  const ranges = new Map<string, NumberRangeRecord>();
  const range = (digits: string, state: string, holder: string): NumberRangeRecord => ({
    id: `e164-1${digits}`,
    plan: "e164",
    // NANP numbers do not tell fixed from mobile (libphonenumber types them FIXED_LINE_OR_MOBILE).
    kind: "fixed_line_or_mobile",
    country_iso2: regionOf(state),
    prefix: `1${digits}`,
    start: null,
    end: null,
    mcc: null,
    mnc: null,
    operator_id: null,
    network_id: null,
    range_holder: holder,
    range_holder_local: null,
    source: NANPA_SOURCE_ID,
    source_date: null,
    status: null,
    range_holder_id: null,
  });

  const codes = table(co, ["State", "NPA-NXX", "OCN", "Company", "RateCenter", "Use"], problems);
  for (const row of codes.rows) {
    const code = row.get("NPA-NXX");
    if (!/^[2-9]\d{2}-[2-9]\d{2}$/.test(code)) {
      problems.push(`${co.path}:${row.line}: NPA-NXX "${code}" is not NXX-NXX (e.g. 201-200)`);
      continue;
    }
    // UA = unassigned (available): no holder.
    const company = row.get("Company");
    if (row.get("Use").toUpperCase() === "UA" || !company) continue;
    const r = range(code.replace("-", ""), row.get("State").toUpperCase(), company);
    if (ranges.has(r.id)) problems.push(`${co.path}:${row.line}: NPA-NXX ${code} is listed twice`);
    ranges.set(r.id, r);
  }
  if (blocks) {
    const table2 = table(blocks, ["State", "NPA", "NXX", "X", "Assigned To"], problems);
    for (const row of table2.rows) {
      const digits = `${row.get("NPA")}${row.get("NXX")}${row.get("X")}`;
      if (!/^[2-9]\d{2}[2-9]\d{2}\d$/.test(digits)) {
        problems.push(`${blocks.path}:${row.line}: NPA ${row.get("NPA")} NXX ${row.get("NXX")} X ${row.get("X")} is not a thousands block`);
        continue;
      }
      const holder = row.get("Assigned To");
      if (!holder) continue;
      const r = range(digits, row.get("State").toUpperCase(), holder);
      if (ranges.has(r.id)) problems.push(`${blocks.path}:${row.line}: block ${digits} is listed twice`);
      ranges.set(r.id, r);
    }
  }
  if (problems.length) {
    throw new AppError("INVALID_DATASET", `NANPA import refused, nothing was changed. ${problems.length} problem(s):\n${problems.slice(0, 50).map((p) => `  - ${p}`).join("\n")}`);
  }
  // The code report's last column names its date: "In Service File Updated 03/04/2026".
  const dated = codes.headers.map((h) => /(\d{2})\/(\d{2})\/(\d{4})/.exec(h)).find(Boolean);
  const published = dated ? `${dated[3]}-${dated[1]}-${dated[2]}T00:00:00.000Z` : null;
  const files = [co, ...(blocks ? [blocks] : [])].map((f) => ({ path: basename(f.path), sha256: createHash("sha256").update(f.content).digest("hex") }));
  return {
    ranges: [...ranges.values()],
    source: {
      id: NANPA_SOURCE_ID,
      name: "NANPA central office code assignments and Pooling Administrator thousands-block assignments",
      package: null,
      version: published ? published.slice(0, 10) : null,
      files,
      license: "LicenseRef-NANPA-public-reports",
      attribution: "Central office code and thousands-block assignment records published by the North American Numbering Plan Administrator (NANPA) and the Pooling Administrator.",
      url: "https://www.nationalnanpa.com/reports/reports_cocodes_assign.html",
      published_at: published,
      effective_at: null,
      sample: false,
    },
  };
}

/**
 * NANPA ranges whose holder is certainly a catalogue operator (nanpa-operators.ts), linked to it: the
 * company's key and the range's region must match an entry whose operator is among `operatorIds`.
 * Every other range keeps operator_id null, its company as range_holder.
 */
export function linkNanpaRanges(ranges: NumberRangeRecord[], operatorIds: ReadonlySet<string>): NumberRangeRecord[] {
  const table = new Map(NANPA_OPERATORS.filter((e) => operatorIds.has(e.operator)).map((e) => [`${e.country}\t${nanpaCompanyKey(e.company)}`, e.operator]));
  return ranges.map((range) => {
    const operator = table.get(`${range.country_iso2}\t${nanpaCompanyKey(range.range_holder ?? "")}`);
    return operator ? { ...range, operator_id: operator } : range;
  });
}

/**
 * The dataset with NANPA's ranges added. A range the dataset already has (same id) keeps its record:
 * the reference data wins where it speaks (libphonenumber has no US carrier data, so in practice this
 * only matters for other NANP countries).
 */
export function withNanpa(dataset: MaterialisedDataset, nanpa: NanpaRanges): MaterialisedDataset {
  const known = new Set(dataset.numberRanges.map((r) => r.id));
  const added = linkNanpaRanges(
    nanpa.ranges.filter((r) => !known.has(r.id)),
    new Set(dataset.operators.map((o) => o.id)),
  );
  return {
    ...dataset,
    sources: [...dataset.sources.filter((s) => s.id !== NANPA_SOURCE_ID), nanpa.source],
    numberRanges: [...dataset.numberRanges, ...added].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
  };
}
