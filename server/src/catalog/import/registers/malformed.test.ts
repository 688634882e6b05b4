import { describe, expect, it } from "vitest";
import { readRegister } from "./index.ts";
import { sliceOf } from "./test-fixtures.ts";

/**
 * Malformed input, made from real rows of the slices with one thing broken each: every bad row is
 * listed with its line and reason, the good ones around it are kept, the file is read.
 */

const lines = (path: string, eol: string, encoding: "latin1" | "utf8" = "latin1") => sliceOf(path).toString(encoding).split(eol);
const file = (rows: string[], eol: string) => Buffer.from(rows.join(eol), "latin1");

describe("malformed rows are listed, the rest read", () => {
  it("CNAC: a blank line, a repeated code, a bad NPA, an unclosed quote, a short row", () => {
    const [header, date, a, b, c] = lines("CA/COCodeStatus_ALL_2025-09-12.csv", "\r\n") as [string, string, string, string, string];
    const input = [header, date, a, "", a, `2x4${b.slice(3)}`, `${b}"a remark never closed`, b.split(",").slice(0, 5).join(","), c, ""];
    const read = readRegister(file(input, "\r\n"));
    expect(read.report.listed).toEqual([
      { row: 1, reason: "header", detail: header },
      { row: 2, reason: "date_line", detail: expect.any(String) },
      { row: 4, reason: "blank", detail: "empty line" },
      { row: 5, reason: "duplicate", detail: expect.stringContaining("repeats line 3") },
      { row: 6, reason: "malformed", detail: expect.stringContaining("is not two NANP codes") },
      { row: 7, reason: "malformed", detail: expect.stringContaining("not closed") },
      { row: 8, reason: "malformed", detail: "5 fields, the header has 9" },
    ]);
    expect(read.blocks.map((x) => x.row)).toEqual([3, 9]);
    expect(read.report.rows).toEqual({ unit: "line", read: 9, kept: 2, listed: 7 });
  });

  it("CNAC: without its date line the file has no date (the caller gives it), with a warning; an unknown status is kept as unknown", () => {
    const [header, , a, b] = lines("CA/COCodeStatus_ALL_2025-09-12.csv", "\r\n") as [string, string, string, string];
    const read = readRegister(file([header, a, b.replace(/"In Service"|"Available"|"Assigned"/, '"Under Review"')], "\r\n"));
    expect(read.fileDate).toBeNull();
    expect(read.report.warnings.map((w) => w.code)).toEqual(["unknown_status", "no_file_date"]);
    expect(read.blocks[1]).toMatchObject({ status: "unknown", registerStatus: "Under Review" });
  });

  it("Rossvyaz: an overlapping range, a code outside Russia (+7 7xx is Kazakhstan), a range ending before it starts, a wrong capacity, a name with a ;", () => {
    const [header, a, b] = lines("RU/DEF-9xx_2026-04.csv", "\n", "utf8") as [string, string, string];
    const f = a.split(";");
    const overlapping = [f[0], String(Number(f[1]) + 1).padStart(7, "0"), f[2], String(Number(f[3]) - 1), ...f.slice(4)].join(";");
    const input = [
      header,
      a,
      overlapping,
      ["777", ...f.slice(1)].join(";"),
      [f[0], f[2], f[1], ...f.slice(3)].join(";"),
      [...b.split(";").slice(0, 3), "1", ...b.split(";").slice(4)].join(";"),
      a.replace('"', '"; '),
    ];
    const read = readRegister(Buffer.from(input.join("\n"), "utf8")); // the header keeps the file's BOM
    expect(read.report.listed.slice(1)).toEqual([
      { row: 3, reason: "overlap", detail: expect.stringContaining("overlaps line 2") },
      { row: 4, reason: "outside_numbering", detail: expect.stringContaining("777") },
      { row: 5, reason: "malformed", detail: expect.stringContaining("ends before it starts") },
      { row: 7, reason: "malformed", detail: expect.stringContaining("fields, the header has 8") },
    ]);
    expect(read.blocks.map((x) => x.row)).toEqual([2, 6]);
    expect(read.report.warnings).toEqual([{ row: 6, code: "capacity_mismatch", detail: expect.stringContaining("Емкость 1") }]);
  });

  it("Ofcom: a block that is not digits, a block longer than its numbers", () => {
    const [header, a, b] = lines("UK/S7_2025-09-13.csv", "\r\n") as [string, string, string];
    const input = [header, a, `7x00 1${a.slice(6)}`, `7000 1234 5678${b.slice(b.indexOf(","))}`, b];
    const read = readRegister(file(input, "\r\n"), { fileName: "S7.csv" });
    expect(read.report.listed.slice(1).map((l) => [l.row, l.reason])).toEqual([
      [3, "malformed"],
      [4, "malformed"],
    ]);
    expect(read.blocks.map((x) => x.row)).toEqual([2, 5]);
  });

  it("ARCEP: a block ending before it starts, an unknown territory (the prefix decides, with a warning), a number too long for E.164", () => {
    const [header, a, b, c] = lines("FR/MAJNUM_2026-04-17.csv", "\n") as [string, string, string, string];
    const f = b.split(";");
    const input = [header, a, [f[0], f[2], f[1], ...f.slice(3)].join(";"), c.replace("Métropole", "Atlantide"), `01;0100000000000000;0199999999999999;FRTE;Métropole;01/01/2017`];
    const read = readRegister(file(input, "\n"));
    expect(read.report.listed.slice(1).map((l) => [l.row, l.reason])).toEqual([
      [3, "malformed"],
      [5, "outside_numbering"],
    ]);
    expect(read.blocks.map((x) => [x.row, x.country])).toEqual([
      [2, "FR"],
      [4, "FR"],
    ]);
    expect(read.report.warnings).toEqual([{ row: 4, code: "unknown_territory", detail: expect.stringContaining("Atlantide") }]);
  });

  it("a file whose header is no register's is refused, naming why; so is a register forced on another's file", () => {
    expect(readRegister(Buffer.from("a,b,c\n1,2,3\n")).report.refused).toMatch(/no register recognised/);
    const forced = readRegister(sliceOf("RU/DEF-9xx_2026-04.csv"), { format: "ca-cnac-co-codes" });
    expect(forced.report).toMatchObject({ recognisedBy: "format", refused: expect.stringContaining("not CNAC's CO code status header") });
    expect(forced.blocks).toEqual([]);
    expect(readRegister(new Uint8Array()).report.refused).toBe("the file is empty");
  });
});
