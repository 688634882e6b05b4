import { describe, expect, it } from "vitest";
import { readRegister } from "./index.ts";
import { copyOf, csvRows, differences, NO_DIFFERENCES, sliceEntry } from "./test-fixtures.ts";

/**
 * NANPA's npa_report.csv, compared row by row with the file as csv-parse reads it. ir21 does not ship
 * it (NANPA's terms are unclear, docs/catalog.md "Licences"): the repository holds a slice, cut to
 * keep every flag combination and kind of country.
 */

const PATH = "US/npa_report_2026-01-05.csv";

/** NANPA's country names to ISO 3166-1 (read off ISO 3166; US territories by their LOCATION). */
const COUNTRIES: Record<string, string> = {
  US: "US",
  CANADA: "CA",
  ANGUILLA: "AI",
  "ANTIGUA/BARBUDA": "AG",
  BAHAMAS: "BS",
  BARBADOS: "BB",
  BERMUDA: "BM",
  "BRITISH VIRGIN ISLANDS": "VG",
  "CAYMAN ISLANDS": "KY",
  DOMINICA: "DM",
  "DOMINICAN REPUBLIC": "DO",
  GRENADA: "GD",
  JAMAICA: "JM",
  MONTSERRAT: "MS",
  "SINT MAARTEN": "SX",
  "ST. KITTS & NEVIS": "KN",
  "ST. VINCENT & GRENADINES": "VC",
  "ST.LUCIA": "LC",
  "TRINIDAD & TOBAGO": "TT",
  "TURKS & CAICOS ISLANDS": "TC",
};
const US_TERRITORIES: Record<string, string> = { PR: "PR", VI: "VI", GU: "GU", AS: "AS", CNMI: "MP" };

describe("NANPA area code report", () => {
  it("line 1 is the file's date (MM/DD/YYYY), line 2 the header, then one +1 NPA block per area code", () => {
    const bytes = copyOf(PATH);
    const rows = csvRows(bytes, { encoding: "utf8", delimiter: ",", quote: true });
    expect(rows[0]![0]).toBe("File Date");
    const [month, day, year] = rows[0]![1]!.split("/");
    const file = readRegister(bytes, { fileName: PATH });
    expect(file).toMatchObject({ register: "us-nanpa-npa", country: "US", fileDate: `${year}-${month}-${day}`, fileDateFrom: "file" });
    expect(file.fileDate).toBe("2026-01-05");
    expect(file.report.listed.map((l) => [l.row, l.reason])).toEqual([
      [1, "date_line"],
      [2, "header"],
    ]);

    const h = rows[1]!;
    const v = (r: string[], n: string) => r[h.indexOf(n)]!;
    const expected = rows.slice(2).map((r) => {
      const country = v(r, "COUNTRY");
      return {
        prefix: `1${v(r, "NPA_ID")}`,
        start: `1${v(r, "NPA_ID")}0000000`,
        end: `1${v(r, "NPA_ID")}9999999`,
        // NANPA's flags: assigned, else reserved, else not assignable, else free.
        status: v(r, "ASSIGNED") === "Yes" ? "assigned" : v(r, "RESERVED") === "Yes" ? "reserved" : v(r, "ASSIGNABLE") === "No" ? "unavailable" : "free",
        inService: v(r, "IN_SERVICE") === "Y",
        country: country === "" ? null : country === "US" ? (US_TERRITORIES[v(r, "LOCATION")] ?? "US") : COUNTRIES[country],
        region: v(r, "LOCATION") || null,
        holder: null,
        notes: v(r, "EXPLANATION") || null,
      };
    });
    const actual = file.blocks.map((b) => ({ prefix: b.prefix, start: b.start, end: b.end, status: b.status, inService: b.inService, country: b.country, region: b.region, holder: b.holder, notes: b.notes }));
    expect(actual.length).toBe(expected.length);
    expect(differences(expected, actual, (b) => String(b.prefix))).toEqual(NO_DIFFERENCES);
    expect(file.holders).toEqual([]);
  });

  it("the whole file, as read when the slices were cut: one block per area code 200–999, the date line and header listed", () => {
    // 802 lines (PROVENANCE.md): the date line, the header and the 800 NPAs of the NANP.
    expect(sliceEntry(PATH).sourceAccounting).toMatchObject({ rows: 802, read: 802, kept: 800, blocks: 800, listedByReason: { date_line: 1, header: 1 }, holders: 0 });
  });

  it("assignment and in-service dates (DD-Mon-YYYY) as ISO dates", () => {
    const file = readRegister(copyOf(PATH));
    const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    const iso = (s: string) => (s ? `${s.slice(7)}-${String(months.indexOf(s.slice(3, 6)) + 1).padStart(2, "0")}-${s.slice(0, 2)}` : undefined);
    const rows = csvRows(copyOf(PATH), { encoding: "utf8", delimiter: ",", quote: true });
    const h = rows[1]!;
    for (const r of rows.slice(2)) {
      const block = file.blocks.find((b) => b.registerBlock === r[0])!;
      expect(block.dates.ASSIGNMENT_DT, r[0]).toBe(iso(r[h.indexOf("ASSIGNMENT_DT")]!));
      expect(block.dates.IN_SERVICE_DT, r[0]).toBe(iso(r[h.indexOf("IN_SERVICE_DT")]!));
    }
    expect(file.blocks.find((b) => b.registerBlock === "201")!.assignedOn).toBe("1947-01-01");
  });

  it("names the columns it does not model (dialling plans, overlays, time zones …)", () => {
    const file = readRegister(copyOf(PATH));
    const header = csvRows(copyOf(PATH), { encoding: "utf8", delimiter: ",", quote: true })[1]!;
    expect([...file.report.columns.modelled, ...file.report.columns.notModelled].sort()).toEqual([...header].sort());
    expect(file.report.columns.notModelled).toContain("DIALING_PLAN_NOTES");
  });
});
