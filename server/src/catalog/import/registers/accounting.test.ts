import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { readRegister } from "./index.ts";
import { csvRows, fullCopy, lineCount, manifest, sliceOf, slices, stored } from "./test-fixtures.ts";

/**
 * Nothing is dropped in silence: for every register file in the repository (each full copy and each
 * test slice), the rows the reader says it read are the file's own count (lines by counting line
 * feeds, or the JSON list's entries), and every one of them is either kept or listed with a reason.
 */

/** The file's rows counted without the reader: lines, or the entries of a JSON list. */
function rowsIn(path: string, bytes: Buffer): number {
  if (path.endsWith(".json")) {
    const doc = JSON.parse(bytes.toString("utf8"));
    return Array.isArray(doc) ? doc.length : Object.values(doc.areas as Record<string, unknown[]>).reduce((n, list) => n + list.length, 0);
  }
  return lineCount(bytes);
}

const REASONS_IN_REAL_FILES = new Set(["header", "date_line", "malformed"]);

describe("every register file: rows read = rows kept + rows listed", () => {
  for (const file of stored) {
    it(`${file.path} (full copy)`, () => {
      const bytes = fullCopy(file.path);
      const read = readRegister(bytes, { fileName: file.path });
      const { report } = read;
      expect(report.refused).toBeNull();
      expect(read.register).toBe(file.register);
      expect(report.rows.read).toBe(rowsIn(file.path, bytes));
      expect(report.rows.kept + report.rows.listed).toBe(report.rows.read);
      expect(report.listed.length).toBe(report.rows.listed);
      expect(report.blocks + report.networks + report.resources).toBe(report.rows.kept);
      expect(read.blocks.length + read.networks.length + read.resources.length).toBe(report.rows.kept);
      // Every row listed is named with its reason; the real files have only headers, date lines and
      // the two "?" MNCs of the community list.
      for (const row of report.listed) expect(REASONS_IN_REAL_FILES, `${file.path} line ${row.row}: ${row.reason}`).toContain(row.reason);
      expect(report.listed.filter((r) => r.reason === "malformed").length).toBe(file.register === "intl-mcc-mnc-list" ? 2 : 0);
      // The listed and kept rows are distinct and within the file.
      const rows = [...report.listed.map((l) => l.row), ...read.blocks.map((b) => b.row), ...read.networks.map((n) => n.row), ...read.resources.map((r) => r.row)];
      expect(new Set(rows).size).toBe(rows.length);
      expect(Math.min(...rows)).toBe(1);
      expect(Math.max(...rows)).toBe(report.rows.read);
    });
  }

  for (const slice of slices) {
    it(`${slice.source} (test slice)`, () => {
      const bytes = sliceOf(slice.source);
      const read = readRegister(bytes);
      expect(read.report.refused).toBeNull();
      expect(read.report.rows.read).toBe(rowsIn(slice.source, bytes));
      expect(read.report.rows.read).toBe(slice.kept);
      expect(read.report.rows.kept + read.report.rows.listed).toBe(read.report.rows.read);
    });
  }
});

describe("the repository's copies", () => {
  it("each full copy is the original file, byte for byte (sha256 as the manifest records)", () => {
    for (const file of stored) expect(createHash("sha256").update(fullCopy(file.path)).digest("hex"), file.path).toBe(file.sha256);
  });

  it("the CNAC zip is listed, not stored twice: its data is the 2025-09-12 CSV's", () => {
    const zip = manifest.find((f) => f.path.endsWith(".zip"))!;
    expect(zip).toMatchObject({ stored: null, sameDataAs: "CA/COCodeStatus_ALL_2025-09-12.csv", member: "COCodeStatus_ALL.csv" });
    expect(stored.map((f) => f.path)).toContain(zip.sameDataAs);
  });

  it("each slice holds its source's own lines, byte for byte, in order (cut, not rewritten)", () => {
    for (const slice of slices.filter((s) => s.unit === "line")) {
      const source = fullCopy(slice.source);
      const lines = source.toString("latin1").split(/(?<=\n)/);
      const expected = slice.rows.map((n) => lines[n - 1]).join("");
      expect(sliceOf(slice.source).toString("latin1"), slice.source).toBe(expected);
    }
  });

  it("each slice has every status word and every layout of its full file", () => {
    // The status column by name, read with csv-parse from both.
    const statusColumn: Record<string, [string, { encoding: "utf8" | "latin1"; delimiter: string; quote: boolean }, number]> = {
      "CA/COCodeStatus_ALL_2023-08-04.csv": ["Status", { encoding: "utf8", delimiter: ",", quote: true }, 0],
      "CA/COCodeStatus_ALL_2025-09-12.csv": ["Status", { encoding: "utf8", delimiter: ",", quote: true }, 0],
      "UK/S3_2025-09-13.csv": ["Block Status", { encoding: "utf8", delimiter: ",", quote: true }, 0],
      "UK/S5_2025-09-13.csv": ["Block Status", { encoding: "utf8", delimiter: ",", quote: true }, 0],
      "UK/S7_2025-09-13.csv": ["Block Status", { encoding: "utf8", delimiter: ",", quote: true }, 0],
      "UK/S8_2025-09-13.csv": ["Block Status", { encoding: "utf8", delimiter: ",", quote: true }, 0],
      "UK/S9_2025-09-13.csv": ["Block Status", { encoding: "utf8", delimiter: ",", quote: true }, 0],
      "US/npa_report_2026-01-05.csv": ["ASSIGNED", { encoding: "utf8", delimiter: ",", quote: true }, 1],
      "FR/MAJNUM_2026-04-17.csv": ["Territoire", { encoding: "latin1", delimiter: ";", quote: true }, 0],
      "FR/2026-04-20/GELNUM.csv": ["Type", { encoding: "latin1", delimiter: ";", quote: true }, 0],
    };
    for (const [path, [column, options, headerAt]] of Object.entries(statusColumn)) {
      const words = (bytes: Buffer) => {
        const rows = csvRows(bytes, options);
        const at = rows[headerAt]!.indexOf(column);
        return new Set(rows.slice(headerAt + 1).filter((r) => r.length > at && r.some((f) => f !== "")).map((r) => r[at]));
      };
      expect(words(sliceOf(path)), path).toEqual(words(fullCopy(path)));
    }
  });
});
