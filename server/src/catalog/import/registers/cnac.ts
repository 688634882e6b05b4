import { blockOf, Collector, nonEmpty } from "./collect.ts";
import { isoDate } from "./dates.ts";
import { dataRecords, Header, headerMatches, openTable, type ColumnSpec, type ReaderInput, type RegisterReader } from "./reader.ts";
import type { BlockStatus, RegisterFile } from "./types.ts";

/**
 * CNAC's central office code status file, `COCodeStatus_ALL.csv` (published zipped as
 * `COCodeStatus_ALL.zip`, opened by the caller of this reader): one row per NPA-NXX of every
 * Canadian area code, quoted CSV, CRLF, ASCII.
 *
 * Layouts seen: 7 columns (`NPA, CO Code (NXX), Status, Exchange Area, Company, OCN, Remarks`, to
 * 2023-11), `Province` after `Exchange Area` from 2023-12, `Pooled` after `Status` from 2025: columns
 * are found by name. Line 2 is not data but the file's date (`,,,,,,,2025-09-12`).
 *
 * Each row is the block `+1 NPA NXX` (10,000 numbers), held by the company under its OCN.
 */

const COLUMNS = {
  npa: { names: ["NPA"], required: true },
  nxx: { names: ["CO Code (NXX)", "NXX", "CO Code"], required: true },
  status: { names: ["Status"], required: true },
  pooled: { names: ["Pooled"], required: false },
  exchangeArea: { names: ["Exchange Area"], required: true },
  province: { names: ["Province"], required: false },
  company: { names: ["Company"], required: true },
  ocn: { names: ["OCN"], required: true },
  remarks: { names: ["Remarks"], required: false },
} satisfies Record<string, ColumnSpec>;

/** CNAC's status words (CNAC's CO Code Assignment Guidelines) to the normalised set. */
const STATUS: Record<string, { status: BlockStatus; inService: boolean | null }> = {
  "in service": { status: "assigned", inService: true },
  assigned: { status: "assigned", inService: false },
  // Still held, and routed to its holder, until the recovery completes.
  "being recovered": { status: "assigned", inService: null },
  available: { status: "free", inService: null },
  "available as initial code only": { status: "free", inService: null },
  // "Code available for assignment 6 months before NPA Relief Date".
  "new npa": { status: "free", inService: null },
  "new entrants reserved": { status: "reserved", inService: null },
  protected: { status: "protected", inService: null },
  "recovered/aging": { status: "quarantined", inService: null },
  "for special use": { status: "special", inService: null },
  "plant test": { status: "special", inService: null },
  "tbp test code": { status: "special", inService: null },
  "new npa testing": { status: "special", inService: null },
  "not available": { status: "unavailable", inService: null },
  "moratorium on assignment": { status: "unavailable", inService: null },
  "temporarily unavailable": { status: "unavailable", inService: null },
  "stranded code": { status: "unavailable", inService: null },
};

const NANP_CODE = /^[2-9]\d\d$/;

export const cnacReader: RegisterReader = {
  ids: ["ca-cnac-co-codes"],
  headerEncodings: ["utf-8"],
  recognise: (head) => (head[0] !== undefined && headerMatches(head[0], ",", COLUMNS) ? "ca-cnac-co-codes" : null),
  read: readCnac,
};

function readCnac(input: ReaderInput): RegisterFile {
  const table = openTable(input, "windows-1252", ",", true);
  const { collector, records } = table;
  const first = records[0];
  const header = new Header(first?.fields ?? [], COLUMNS);
  if (!first || header.missing.length > 0) {
    return Collector.refused(input.file, input.register, input.recognisedBy, collector.encoding, `not CNAC's CO code status header (missing ${header.missing.join(", ") || "everything: empty file"})`);
  }
  collector.seen();
  collector.list(first.line, "header", first.text);
  const modelled = header.written(["npa", "nxx", "status", "pooled", "exchangeArea", "province", "company", "ocn", "remarks"]);
  collector.columns(modelled, header.unknown);
  collector.layout = `${first.fields.length} columns${header.has("pooled") ? "" : ", no Pooled"}${header.has("province") ? "" : ", no Province"}`;

  for (const record of dataRecords(table)) {
    const { fields, line } = record;
    // The date line: every field empty but the last, a date. CNAC writes it as line 2.
    const last = fields[fields.length - 1] ?? "";
    if (fields[0]?.trim() === "" && isoDate(last) && fields.every((f, i) => i === fields.length - 1 || f.trim() === "")) {
      if (line === 2) {
        collector.fileDate = isoDate(last);
        collector.fileDateFrom = "file";
        collector.list(line, "date_line", `the file's date, ${collector.fileDate}`);
      } else collector.list(line, "malformed", `a date line (${last.trim()}) after line 2`);
      continue;
    }
    if (fields.length !== first.fields.length) {
      collector.list(line, "malformed", `${fields.length} fields, the header has ${first.fields.length}`);
      continue;
    }
    const npa = header.get(fields, "npa")!.trim();
    const nxx = header.get(fields, "nxx")!.trim();
    if (!NANP_CODE.test(npa) || !NANP_CODE.test(nxx)) {
      collector.list(line, "malformed", `NPA-NXX "${npa}-${nxx}" is not two NANP codes [2-9]XX`);
      continue;
    }
    const word = header.get(fields, "status")!;
    const mapped = STATUS[word.trim().toLowerCase()];
    if (!mapped) collector.warn(line, "unknown_status", `status "${word}" is not one of CNAC's known words; kept as unknown`);
    const status = mapped?.status ?? "unknown";
    const company = nonEmpty(header.get(fields, "company"));
    const ocn = nonEmpty(header.get(fields, "ocn"))?.trim() ?? null;
    if (company && !ocn) collector.warn(line, "holder_without_id", `company "${company}" has no OCN; its name stands as its identifier`);
    const holderId = ocn ?? company;
    if (holderId && (status === "free" || status === "unavailable")) {
      collector.warn(line, "holder_on_unassigned_block", `${npa}-${nxx} is "${word}" yet names a holder (${holderId}${company ? `, ${company}` : ""}); kept as written`);
    }
    const pooled = header.get(fields, "pooled")?.trim().toUpperCase();
    if (pooled !== undefined && pooled !== "Y" && pooled !== "N" && pooled !== "") collector.warn(line, "pooled_value", `Pooled is "${pooled}", not Y or N`);
    const prefix = `1${npa}${nxx}`;
    collector.block(
      blockOf({
        row: line,
        country: "CA",
        start: `${prefix}0000`,
        end: `${prefix}9999`,
        registerBlock: `${npa}-${nxx}`,
        status,
        registerStatus: word,
        inService: mapped?.inService ?? null,
        pooled: pooled === "Y" ? true : pooled === "N" ? false : null,
        holder: holderId ? { id: holderId, name: company } : null,
        region: nonEmpty(header.get(fields, "exchangeArea")),
        subdivision: nonEmpty(header.get(fields, "province")),
        notes: nonEmpty(header.get(fields, "remarks")),
      }),
    );
  }
  if (collector.fileDate === null) collector.warn(null, "no_file_date", "no date line at line 2: the caller must state the file's date");
  return collector.finish();
}
