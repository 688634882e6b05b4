import { blockOf, Collector, nonEmpty } from "./collect.ts";
import { countryCode } from "./countries.ts";
import { dayMonthNameYear, monthDayYear } from "./dates.ts";
import { Header, headerMatches, isBlank, openTable, type ColumnSpec, type ReaderInput, type RegisterReader } from "./reader.ts";
import type { BlockStatus, RegisterFile } from "./types.ts";

/**
 * NANPA's area code report, `npa_report.csv`: one row per NPA (200 to 999) of the whole North
 * American Numbering Plan, quoted CSV, CRLF. Line 1 is `File Date,MM/DD/YYYY`, the header is line 2.
 *
 * Each row is the block `+1 NPA` (10 million numbers). An NPA has no holder: it is assigned to a
 * place (or a service), and its country is the row's (US territories by their location: PR, VI, GU,
 * AS, CNMI → MP); null for NANP-wide codes (toll-free, 5XX, 900).
 */

const COLUMNS = {
  npa: { names: ["NPA_ID"], required: true },
  assignable: { names: ["ASSIGNABLE"], required: true },
  explanation: { names: ["EXPLANATION"], required: false },
  reserved: { names: ["RESERVED"], required: true },
  assigned: { names: ["ASSIGNED"], required: true },
  assignedOn: { names: ["ASSIGNMENT_DT"], required: false },
  location: { names: ["LOCATION"], required: false },
  country: { names: ["COUNTRY"], required: false },
  inService: { names: ["IN_SERVICE"], required: true },
  inServiceOn: { names: ["IN_SERVICE_DT"], required: false },
} satisfies Record<string, ColumnSpec>;

/** US territories with their own ISO code, as NANPA's LOCATION writes them under COUNTRY `US`. */
const US_TERRITORIES: Record<string, string> = { PR: "PR", VI: "VI", GU: "GU", AS: "AS", CNMI: "MP" };

const yes = (v: string | undefined) => /^(yes|y)$/i.test(v?.trim() ?? "");
const no = (v: string | undefined) => /^(no|n)$/i.test(v?.trim() ?? "");

export const nanpaNpaReader: RegisterReader = {
  ids: ["us-nanpa-npa"],
  headerEncodings: ["utf-8"],
  recognise: (head) => (head.slice(0, 2).some((line) => headerMatches(line, ",", COLUMNS)) ? "us-nanpa-npa" : null),
  read: readNanpaNpa,
};

function readNanpaNpa(input: ReaderInput): RegisterFile {
  const { collector, records } = openTable(input, "windows-1252", ",", true);
  const at = records.slice(0, 2).findIndex((r) => new Header(r.fields, COLUMNS).missing.length === 0);
  const headerRecord = at >= 0 ? records[at]! : undefined;
  if (!headerRecord) {
    const missing = new Header(records[1]?.fields ?? records[0]?.fields ?? [], COLUMNS).missing;
    return Collector.refused(input.file, input.register, input.recognisedBy, collector.encoding, `not NANPA's NPA report header on line 1 or 2 (missing ${missing.join(", ")})`);
  }
  const header = new Header(headerRecord.fields, COLUMNS);
  const modelled = header.written(["npa", "assignable", "explanation", "reserved", "assigned", "assignedOn", "location", "country", "inService", "inServiceOn"]);
  collector.columns(modelled, header.unknown);

  for (const record of records) {
    collector.seen();
    const { fields, line } = record;
    if (record === headerRecord) {
      collector.list(line, "header", record.text);
      continue;
    }
    if (line < headerRecord.line) {
      const date = /^\s*file date\s*$/i.test(fields[0] ?? "") ? monthDayYear(fields[1] ?? "") : null;
      if (date) {
        collector.fileDate = date;
        collector.fileDateFrom = "file";
        collector.list(line, "date_line", `the file's date, ${date}`);
      } else collector.list(line, "malformed", `a line before the header that is not "File Date,MM/DD/YYYY": ${record.text.slice(0, 80)}`);
      continue;
    }
    if (record.error) {
      collector.list(line, "malformed", record.error);
      continue;
    }
    if (isBlank(record)) {
      collector.list(line, "blank", "empty line");
      continue;
    }
    if (fields.length !== headerRecord.fields.length) {
      collector.list(line, "malformed", `${fields.length} fields, the header has ${headerRecord.fields.length}`);
      continue;
    }
    const npa = header.get(fields, "npa")!.trim();
    if (!/^[2-9]\d\d$/.test(npa)) {
      collector.list(line, "malformed", `NPA "${npa}" is not a NANP area code [2-9]XX`);
      continue;
    }
    const assigned = header.get(fields, "assigned");
    const reserved = header.get(fields, "reserved");
    const assignable = header.get(fields, "assignable");
    const inService = header.get(fields, "inService");
    for (const [name, value] of [
      ["ASSIGNED", assigned],
      ["RESERVED", reserved],
      ["ASSIGNABLE", assignable],
      ["IN_SERVICE", inService],
    ] as const) {
      if (!yes(value) && !no(value)) collector.warn(line, "yes_no_value", `${name} is "${value ?? ""}", neither yes nor no (read as no)`);
    }
    // NANPA gives flags, not a status word: assigned wins, then reserved, then not assignable.
    const status: BlockStatus = yes(assigned) ? "assigned" : yes(reserved) ? "reserved" : no(assignable) ? "unavailable" : "free";
    const dates: Record<string, string> = {};
    for (const [column, name] of [
      ["assignedOn", "ASSIGNMENT_DT"],
      ["inServiceOn", "IN_SERVICE_DT"],
    ] as const) {
      const raw = nonEmpty(header.get(fields, column));
      if (raw === null) continue;
      const date = dayMonthNameYear(raw);
      if (date) dates[name] = date;
      else collector.warn(line, "date_unreadable", `${name} "${raw}" is not DD-Mon-YYYY; left out`);
    }
    const location = nonEmpty(header.get(fields, "location"));
    collector.block(
      blockOf({
        row: line,
        country: countryOf(header.get(fields, "country"), location, line, collector),
        start: `1${npa}0000000`,
        end: `1${npa}9999999`,
        registerBlock: npa,
        status,
        registerStatus: `ASSIGNED=${assigned?.trim()}, IN_SERVICE=${inService?.trim()}, RESERVED=${reserved?.trim()}, ASSIGNABLE=${assignable?.trim()}`,
        inService: yes(inService),
        region: location,
        assignedOn: dates.ASSIGNMENT_DT ?? null,
        dates,
        notes: nonEmpty(header.get(fields, "explanation")),
      }),
    );
  }
  if (collector.fileDate === null) collector.warn(null, "no_file_date", 'no "File Date" line before the header: the caller must state the file\'s date');
  return collector.finish();
}

function countryOf(written: string | undefined, location: string | null, line: number, collector: Collector): string | null {
  const name = nonEmpty(written)?.trim();
  if (!name) return null;
  if (/^us$/i.test(name)) return (location && US_TERRITORIES[location.trim().toUpperCase()]) || "US";
  const code = countryCode(name);
  if (!code) collector.warn(line, "unknown_country", `COUNTRY "${name}" is not a country this module knows; the block has no country`);
  return code;
}
