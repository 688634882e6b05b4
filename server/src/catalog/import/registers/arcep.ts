import { e164OfNational, nationalLength, territoryNamed, territoryOfNational } from "./arcep-territories.ts";
import { blockOf, Collector, nonEmpty } from "./collect.ts";
import { dayMonthYear } from "./dates.ts";
import { dataRecords, baseName, Header, headerMatches, openTable, type ColumnSpec, type ReaderInput, type RegisterReader, type Table } from "./reader.ts";
import type { RegisterFile, RegisterId, ResourceKind } from "./types.ts";

/**
 * ARCEP's number blocks, `MAJNUM.csv`, and the short numbers of `MAJNFB.csv` (same header), and the
 * frozen resources of `GELNUM.csv`. Windows-1252, `;`, LF (MAJNFB CRLF), quoted where a field holds
 * `;` or spaces, dates DD/MM/YYYY. The files carry no date of their own: a file's date is its latest
 * attribution date (a lower bound of when it was published); GELNUM's, which has none, is the caller's.
 *
 * MAJNUM `EZABPQM;Tranche_Debut;Tranche_Fin;Mnémo;Territoire;Date_Attribution`: a block of national
 * numbers (`01056;0105600000;0105699999`), prefixes of 4 to 8 digits (M2M numbers 0700 are 13 or 14
 * digits long), held by the operator code `Mnémo` (names are in the companions, e.g. MAJRIO). Short
 * codes (`3BPQ`, `118XYZ`, `10XY`; MAJNFB's `15`, `112`, `116000`) are `national_short` blocks.
 */

const NUMBERS = {
  code: { names: ["EZABPQM"], required: true },
  first: { names: ["Tranche_Debut"], required: true },
  last: { names: ["Tranche_Fin"], required: true },
  holder: { names: ["Mnémo", "Mnemo"], required: true },
  territory: { names: ["Territoire"], required: true },
  assigned: { names: ["Date_Attribution"], required: true },
} satisfies Record<string, ColumnSpec>;

const FROZEN = {
  code: { names: ["EZABPQM"], required: true },
  type: { names: ["Type"], required: true },
  interestOpens: { names: ["Ouverture des manifestations d'intérêts"], required: true },
  interestCloses: { names: ["Clôture des manifestations d'intérêts"], required: true },
  requestsOpen: { names: ["Ouverture des demandes d'attribution"], required: true },
} satisfies Record<string, ColumnSpec>;

/** GELNUM's resource types that are not numbers, by a word of ARCEP's description. */
const FROZEN_KINDS: [RegExp, ResourceKind][] = [
  [/s[ée]maphore national/i, "signalling_point_code_national"],
  [/s[ée]maphore international/i, "signalling_point_code_international"],
  [/mcc.?mnc/i, "mcc_mnc"],
  [/r1r2/i, "network_code_r1r2"],
  [/msrn/i, "msrn_code"],
  [/\brio\b/i, "rio_operator_code"],
  [/s[ée]lection du transporteur/i, "carrier_selection_prefix"],
  [/routage/i, "routing_prefix"],
];

export const arcepNumbersReader: RegisterReader = {
  ids: ["fr-arcep-majnum", "fr-arcep-majnfb"],
  headerEncodings: ["windows-1252", "utf-8"],
  recognise(head, fileName) {
    if (head[0] === undefined || !headerMatches(head[0], ";", NUMBERS)) return null;
    const name = baseName(fileName) ?? "";
    if (/majnfb/i.test(name)) return "fr-arcep-majnfb";
    if (/majnum/i.test(name)) return "fr-arcep-majnum";
    // MAJNFB holds only short codes; MAJNUM starts with 01 blocks.
    const firsts = head.slice(1).map((l) => l.split(";")[1]?.replace(/"/g, "").trim() ?? "").filter((f) => f !== "");
    return firsts.length > 0 && firsts.every((f) => f.length <= 6) ? "fr-arcep-majnfb" : "fr-arcep-majnum";
  },
  read: readNumbers,
};

export const arcepFrozenReader: RegisterReader = {
  ids: ["fr-arcep-gelnum"],
  headerEncodings: ["windows-1252", "utf-8"],
  recognise: (head) => (head[0] !== undefined && headerMatches(head[0], ";", FROZEN) ? "fr-arcep-gelnum" : null),
  read: readFrozen,
};

/** Opens an ARCEP file and checks its header; the refusal when it does not fit. */
export function openArcep<K extends string>(input: ReaderInput, specs: Record<K, ColumnSpec>, what: string): { table: Table; header: Header<K> } | RegisterFile {
  const table = openTable(input, "windows-1252", ";", true);
  const first = table.records[0];
  const header = new Header(first?.fields ?? [], specs);
  if (!first || header.missing.length > 0) {
    return Collector.refused(input.file, input.register, input.recognisedBy, table.collector.encoding, `not ARCEP's ${what} header (missing ${header.missing.join(", ") || "everything: empty file"})`);
  }
  table.collector.seen();
  table.collector.list(first.line, "header", first.text);
  return { table, header };
}

/** Keeps the latest date seen as the file's date (ARCEP's files carry none of their own). */
export function latestDate(collector: Collector, date: string | null): void {
  if (date !== null && (collector.fileDate === null || date > collector.fileDate)) {
    collector.fileDate = date;
    collector.fileDateFrom = "latest_row_date";
  }
}

/** A DD/MM/YYYY cell as an ISO date, warning when it is not one. */
export function arcepDate(collector: Collector, line: number, column: string, text: string | undefined): string | null {
  const raw = nonEmpty(text);
  if (raw === null) return null;
  const date = dayMonthYear(raw);
  if (date === null) collector.warn(line, "date_unreadable", `${column} "${raw}" is not DD/MM/YYYY; left out`);
  return date;
}

function readNumbers(input: ReaderInput): RegisterFile {
  const opened = openArcep(input, NUMBERS, "MAJNUM");
  if (!("table" in opened)) return opened;
  const { table, header } = opened;
  const { collector, records } = table;
  const headerLength = records[0]!.fields.length;
  collector.columns(header.written(["code", "first", "last", "holder", "territory", "assigned"]), header.unknown);
  const shortCodesOnly = input.register === "fr-arcep-majnfb";

  for (const record of dataRecords(table, headerLength)) {
    const { fields, line } = record;
    const code = header.get(fields, "code")!.trim();
    const first = header.get(fields, "first")!.trim();
    const last = header.get(fields, "last")!.trim();
    if (!/^\d+$/.test(code) || !/^\d+$/.test(first) || !/^\d+$/.test(last) || first.length !== last.length || first > last) {
      collector.list(line, "malformed", `"${code};${first};${last}" is not a prefix with a first and last number of one length, first ≤ last`);
      continue;
    }
    if (!first.startsWith(code) || !last.startsWith(code)) collector.warn(line, "range_outside_code", `${first}–${last} does not start with its EZABPQM ${code}; the range is kept as written`);
    const territoryText = header.get(fields, "territory")!;
    const named = territoryNamed(territoryText);
    const plan = /^0\d{8,13}$/.test(first) ? "e164" : /^[1-9]\d{1,5}$/.test(first) ? "national_short" : null;
    if (plan === null) {
      collector.list(line, "outside_numbering", `${first} is neither a national number (0 and 9 to 13 digits) nor a short code (2 to 6 digits)`);
      continue;
    }
    const byPrefix = territoryOfNational(first);
    if (!named) collector.warn(line, "unknown_territory", `Territoire "${territoryText}" is not one this module knows; ${plan === "e164" ? `the number's prefix says ${byPrefix.country}` : "read as FR"}`);
    const territory = named ?? (plan === "e164" ? byPrefix : territoryNamed("National")!);
    if (named && plan === "e164" && named.country !== byPrefix.country) {
      collector.warn(line, "territory_mismatch", `Territoire "${territoryText}" (${named.country}) but the plan puts ${first} in ${byPrefix.country}; the Territoire is followed`);
    }
    const start = plan === "e164" ? e164OfNational(first, territory) : first;
    const end = plan === "e164" ? e164OfNational(last, territory) : last;
    if (start.length > 15) {
      collector.list(line, "outside_numbering", `${first} would be ${start.length} E.164 digits (at most 15)`);
      continue;
    }
    if (shortCodesOnly && plan !== "national_short") collector.warn(line, "not_a_short_code", `${first} in MAJNFB, a file of short codes`);
    const assigned = arcepDate(collector, line, "Date_Attribution", header.get(fields, "assigned"));
    latestDate(collector, assigned);
    const holder = nonEmpty(header.get(fields, "holder"))?.trim() ?? null;
    if (holder === null) collector.warn(line, "no_holder", `${code} names no Mnémo`);
    collector.block(
      blockOf({
        row: line,
        plan,
        country: territory.country,
        start,
        end,
        registerBlock: code,
        // MAJNFB's numbers are held by services (URG: emergency), not operators.
        status: shortCodesOnly ? "special" : holder === null ? "unknown" : "assigned",
        holder: holder === null ? null : { id: holder, name: null },
        region: nonEmpty(territoryText),
        assignedOn: assigned,
        dates: assigned ? { Date_Attribution: assigned } : {},
      }),
    );
  }
  return collector.finish();
}

function readFrozen(input: ReaderInput): RegisterFile {
  const opened = openArcep(input, FROZEN, "GELNUM");
  if (!("table" in opened)) return opened;
  const { table, header } = opened;
  const { collector, records } = table;
  const headerLength = records[0]!.fields.length;
  collector.columns(header.written(["code", "type", "interestOpens", "interestCloses", "requestsOpen"]), header.unknown);
  const dateColumns = ["interestOpens", "interestCloses", "requestsOpen"] as const;

  for (const record of dataRecords(table, headerLength)) {
    const { fields, line } = record;
    const code = header.get(fields, "code")!.trim();
    const type = header.get(fields, "type")!.trim();
    if (!/^[0-9A-Z-]+$/.test(code)) {
      collector.list(line, "malformed", `code "${code}" is not digits or capital letters`);
      continue;
    }
    const dates: Record<string, string> = {};
    for (const column of dateColumns) {
      const written = header.written([column])[0]!;
      const date = arcepDate(collector, line, written, header.get(fields, column));
      if (date) dates[written] = date;
    }
    if (/^num[ée]ros?\b/i.test(type)) {
      if (/^0\d+$/.test(code)) {
        const length = nationalLength(code);
        if (code.length > length) {
          collector.list(line, "malformed", `${code} is longer than the ${length}-digit numbers it would be a prefix of`);
          continue;
        }
        const territory = territoryOfNational(code);
        collector.block(
          blockOf({
            row: line,
            country: territory.country,
            start: e164OfNational(code.padEnd(length, "0"), territory),
            end: e164OfNational(code.padEnd(length, "9"), territory),
            registerBlock: code,
            status: "frozen",
            registerStatus: type,
            dates,
          }),
        );
      } else if (/^[1-9]\d{1,5}$/.test(code)) {
        collector.block(blockOf({ row: line, plan: "national_short", country: "FR", start: code, end: code, registerBlock: code, status: "frozen", registerStatus: type, dates }));
      } else collector.list(line, "malformed", `${code} is a "${type}" but neither a national prefix nor a short code`);
      continue;
    }
    const kind = FROZEN_KINDS.find(([pattern]) => pattern.test(type))?.[1];
    if (!kind) collector.warn(line, "unknown_type", `type "${type}" is not one this module knows; kept as a resource of kind other`);
    collector.resource({ row: line, kind: kind ?? "other", code, holder: null, status: "frozen", registerType: type, region: null, assignedOn: null, dates, decision: null });
  }
  return collector.finish();
}

/** The register a file of the shared `Ressource;Code Attributaire;…` header is, by name. */
export function companionByName(fileName: string | null): RegisterId | null {
  const m = /maj(rio|cpsn|cpsi|r1r2|sdt|porta|mnc)/i.exec(baseName(fileName) ?? "");
  return m ? (`fr-arcep-maj${m[1]!.toLowerCase()}` as RegisterId) : null;
}
