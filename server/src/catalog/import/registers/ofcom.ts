import { blockOf, Collector, nonEmpty } from "./collect.ts";
import { dayMonthYear } from "./dates.ts";
import { dataRecords, baseName, Header, headerMatches, openTable, type ColumnSpec, type ReaderInput, type RegisterReader } from "./reader.ts";
import type { BlockStatus, RegisterFile, RegisterId } from "./types.ts";

/**
 * Ofcom's National Numbering Scheme files for non-geographic numbers, S3 (03), S5 (05), S7 (07),
 * S8 (08) and S9 (09): one row per block, CSV, CRLF. Header `NMS Number Block: Number Block, Block
 * Status, CP Name, Non Geo Number Length, Allocation Date[, Notes]` (S3 and S5 add Notes).
 *
 * A block is national digits without the trunk 0, grouped with spaces: `7000 0` is every number
 * 07000 0xxxxx, so the E.164 prefix `4470000`; the number length (`10 digit numbers`, S8 also 9 and
 * 7) gives the block's first and last number. The files carry no date of their own: the caller
 * states the download's date. All five share the header; the series comes from the file name
 * (`S7…`), else from the first rows' blocks.
 */

const COLUMNS = {
  block: { names: ["NMS Number Block: Number Block", "Number Block"], required: true },
  status: { names: ["Block Status"], required: true },
  holder: { names: ["CP Name"], required: true },
  length: { names: ["Non Geo Number Length", "Number Length"], required: true },
  allocated: { names: ["Allocation Date"], required: true },
  notes: { names: ["Notes"], required: false },
} satisfies Record<string, ColumnSpec>;

/** Ofcom's status words to the normalised set. */
const STATUS: Record<string, BlockStatus> = {
  allocated: "assigned",
  // Still allocated and in use; the range is closed to new allocations.
  "allocated(closed range)": "assigned",
  "allocated (closed range)": "assigned",
  free: "free",
  reserved: "reserved",
  // Designated for a use in the numbering plan, not open for allocation (e.g. 07603–07622, pagers).
  designated: "reserved",
  protected: "protected",
  quarantined: "quarantined",
};

const SERIES = ["3", "5", "7", "8", "9"] as const;
type Series = (typeof SERIES)[number];
const idOf = (s: Series) => `gb-ofcom-s${s}` as RegisterId;

/** Digits grouped by single spaces, as Ofcom writes blocks (`7000 0`, `8000 01 0`, `3998`). */
const WRITTEN_BLOCK = /^\d+(?: \d+)*$/;

export const ofcomReader: RegisterReader = {
  ids: SERIES.map(idOf),
  headerEncodings: ["utf-8"],
  recognise(head, fileName) {
    if (head[0] === undefined || !headerMatches(head[0], ",", COLUMNS)) return null;
    const named = /(?:^|[^a-z0-9])s([35789])(?:[^0-9]|$)/i.exec(baseName(fileName) ?? "")?.[1] as Series | undefined;
    if (named) return idOf(named);
    // The series most of the first rows' blocks start with.
    const counts = new Map<string, number>();
    for (const line of head.slice(1)) {
      const first = line.trim()[0];
      if (first && (SERIES as readonly string[]).includes(first)) counts.set(first, (counts.get(first) ?? 0) + 1);
    }
    const best = [...counts].sort((a, b) => b[1] - a[1])[0];
    return best ? idOf(best[0] as Series) : null;
  },
  read: readOfcom,
};

function readOfcom(input: ReaderInput): RegisterFile {
  const series = input.register.slice(-1) as Series;
  const table = openTable(input, "windows-1252", ",", true);
  const { collector, records } = table;
  const first = records[0];
  const header = new Header(first?.fields ?? [], COLUMNS);
  if (!first || header.missing.length > 0) {
    return Collector.refused(input.file, input.register, input.recognisedBy, collector.encoding, `not an Ofcom numbering file header (missing ${header.missing.join(", ") || "everything: empty file"})`);
  }
  collector.seen();
  collector.list(first.line, "header", first.text);
  collector.columns(header.written(["block", "status", "holder", "length", "allocated", "notes"]), header.unknown);
  collector.layout = header.has("notes") ? "with Notes" : null;

  for (const record of dataRecords(table, first.fields.length)) {
    const { fields, line } = record;
    const written = header.get(fields, "block")!.trim();
    if (!WRITTEN_BLOCK.test(written)) {
      collector.list(line, "malformed", `block "${written}" is not digits grouped by spaces`);
      continue;
    }
    const digits = written.replace(/ /g, "");
    if (digits[0] !== series) {
      collector.list(line, "outside_numbering", `block ${written} is not in S${series} (0${series} numbers)`);
      continue;
    }
    const lengthText = header.get(fields, "length")!.trim();
    let length = Number(/^(\d+) digit numbers?$/i.exec(lengthText)?.[1] ?? Number.NaN);
    if (!Number.isInteger(length)) {
      collector.warn(line, "number_length", `number length "${lengthText}" is not "N digit numbers"; 10 (the UK's national length) assumed`);
      length = 10;
    }
    if (digits.length > length || length > 13) {
      collector.list(line, "malformed", `block ${written} (${digits.length} digits) does not fit ${length}-digit numbers`);
      continue;
    }
    const word = header.get(fields, "status")!;
    const status = STATUS[word.trim().toLowerCase()];
    if (!status) collector.warn(line, "unknown_status", `status "${word}" is not one of Ofcom's known words; kept as unknown`);
    const holder = nonEmpty(header.get(fields, "holder"));
    if (holder && (status === "free" || status === "protected" || status === "quarantined")) {
      collector.warn(line, "holder_on_unassigned_block", `${written} is "${word}" yet names ${holder}; kept as written`);
    }
    if (!holder && status === "assigned") collector.warn(line, "assigned_without_holder", `${written} is "${word}" with no CP name`);
    const allocatedText = nonEmpty(header.get(fields, "allocated"));
    const allocated = allocatedText === null ? null : dayMonthYear(allocatedText);
    if (allocatedText !== null && allocated === null) collector.warn(line, "date_unreadable", `Allocation Date "${allocatedText}" is not DD/MM/YYYY; left out`);
    collector.block(
      blockOf({
        row: line,
        country: "GB",
        start: `44${digits.padEnd(length, "0")}`,
        end: `44${digits.padEnd(length, "9")}`,
        registerBlock: written,
        status: status ?? "unknown",
        registerStatus: word,
        holder: holder ? { id: holder, name: holder } : null,
        assignedOn: allocated,
        dates: allocated ? { "Allocation Date": allocated } : {},
        numberLength: length,
        notes: nonEmpty(header.get(fields, "notes")),
      }),
    );
  }
  return collector.finish();
}
