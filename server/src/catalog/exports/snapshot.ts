import { stringify } from "csv-stringify/sync";
import type { z } from "zod";
import { Capability, Country, Network, NumberRange, Operator, type SourceDescriptor } from "../../contract/catalog.ts";
import type { Db } from "../../db/db.ts";
import { COUNTRY_SOURCE, capabilities, countries, networks, numberRanges, operators, type EntityKind } from "../model/entities.ts";
import { streamRecords } from "../model/queries.ts";
import type { StoredVersion } from "../model/versions.ts";

/**
 * Whole-catalogue files: the JSON snapshot and the CSV exports (docs/api.md "Exports"). Both are
 * produced as async generators of text chunks over keyset-paged reads of one pinned version, so memory
 * stays flat however large the catalogue, and both carry the licence and attribution of every source
 * (the network data is CC BY-SA: share-alike and attribution travel with the file).
 */

/** One paragraph naming every source, its licence and its attribution. */
export function attributionOf(sources: SourceDescriptor[]): string {
  return sources.map((s) => `${s.name}${s.version ? ` ${s.version}` : ""} [${s.license}]: ${s.attribution}`).join(" | ");
}

export const EXPORT_RESOURCES = ["countries", "operators", "networks", "number-ranges", "capabilities"] as const;
export type ExportResource = (typeof EXPORT_RESOURCES)[number];

interface ExportSpec {
  kind: EntityKind;
  schema: z.ZodObject;
}

const EXPORTS: Record<ExportResource, ExportSpec> = {
  countries: { kind: countries, schema: Country },
  operators: { kind: operators, schema: Operator },
  networks: { kind: networks, schema: Network },
  "number-ranges": { kind: numberRanges, schema: NumberRange },
  capabilities: { kind: capabilities, schema: Capability },
};

/** The CSV columns of a resource: its full fields in schema order, then the source's licence and attribution. */
export function csvColumns(resource: ExportResource): string[] {
  const fields = Object.keys(EXPORTS[resource].schema.shape);
  const withSource = fields.includes("source") ? fields : [...fields, "source"];
  return [...withSource, "source_license", "source_attribution"];
}

/** A cell: lists joined with ";", capability values and other objects as JSON, null as empty. */
function cell(field: string, value: unknown): string {
  if (value === null || value === undefined) return "";
  if (field === "value") return JSON.stringify(value);
  if (Array.isArray(value)) return value.join(";");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/**
 * Spreadsheet safety (docs/api.md "Exports (CSV)"): a cell a spreadsheet would read as a formula —
 * text starting with =, +, -, @, tab or CR, e.g. the real brand "+7Telecom" or whatever a
 * Wikipedia-sourced name or an IR.21 document says — gets a leading apostrophe, which spreadsheets
 * show as text (OWASP "CSV injection"). A cell that already starts with an apostrophe gets one too,
 * so the rule reverses exactly: drop one leading apostrophe. Plain numbers ("-5") are left alone.
 * @example
 * spreadsheetSafe("+7Telecom") // "'+7Telecom"
 * spreadsheetSafe("-5")        // "-5"
 */
export function spreadsheetSafe(text: string): string {
  if (!/^[=+\-@\t\r']/.test(text) || /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(text)) return text;
  return `'${text}`;
}

const BATCH = 1_000;

/**
 * RFC 4180 CSV (CRLF line ends, quotes where needed, UTF-8, header row) of one resource at a version,
 * every cell spreadsheet-safe (spreadsheetSafe).
 * @example
 * for await (const chunk of csvExport(db, "operators", version)) response.write(chunk);
 */
export async function* csvExport(db: Db, resource: ExportResource, version: StoredVersion): AsyncGenerator<string> {
  const { kind } = EXPORTS[resource];
  const columns = csvColumns(resource);
  const sources = new Map(version.sources.map((s) => [s.id, s]));
  const options = { record_delimiter: "windows" as const, quoted_match: /^\s|\s$/ };
  yield stringify([columns], options);
  let rows: string[][] = [];
  for await (const record of streamRecords(db, kind, version.seq, BATCH)) {
    const r = record as Record<string, unknown>;
    const source = sources.get(kind.sourceOf(record)) ?? sources.get(COUNTRY_SOURCE);
    rows.push(
      columns.map((c) =>
        spreadsheetSafe(
          c === "source" ? kind.sourceOf(record) : c === "source_license" ? (source?.license ?? "") : c === "source_attribution" ? (source?.attribution ?? "") : cell(c, r[c]),
        ),
      ),
    );
    if (rows.length === BATCH) {
      yield stringify(rows, options);
      rows = [];
    }
  }
  if (rows.length) yield stringify(rows, options);
}

/**
 * The full snapshot of a version as JSON: header (version, source mode, dates, licence notice,
 * sources, counts) then every resource's records in id order.
 */
export async function* jsonSnapshot(db: Db, version: StoredVersion): AsyncGenerator<string> {
  const header = {
    dataset_version: version.version,
    previous_version: version.previousVersion,
    source_mode: version.sourceMode,
    source_published_at: version.sourcePublishedAt === null ? null : new Date(version.sourcePublishedAt).toISOString(),
    ingested_at: new Date(version.ingestedAt).toISOString(),
    license_notice:
      "This file combines the sources listed below under their own licences; reproduce their attribution with the data. Data from CC BY-SA sources is shared under the same licence.",
    attribution: attributionOf(version.sources),
    sources: version.sources,
    counts: version.counts,
  };
  yield JSON.stringify(header).slice(0, -1);
  const parts: [string, EntityKind][] = [
    ["countries", countries],
    ["operators", operators],
    ["networks", networks],
    ["number_ranges", numberRanges],
    ["capabilities", capabilities],
  ];
  for (const [name, kind] of parts) {
    yield `,${JSON.stringify(name)}:[`;
    let first = true;
    let chunk: string[] = [];
    for await (const record of streamRecords(db, kind, version.seq, BATCH)) {
      chunk.push(JSON.stringify(record));
      if (chunk.length === BATCH) {
        yield (first ? "" : ",") + chunk.join(",");
        first = false;
        chunk = [];
      }
    }
    if (chunk.length) yield (first ? "" : ",") + chunk.join(",");
    yield "]";
  }
  yield "}\n";
}
