import { inflateRawSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readRegister } from "./index.ts";
import { copyOf, csvRows, differences, FIXTURES_DIR, holderChangesOf, NO_DIFFERENCES, sliceEntry, sliceOf } from "./test-fixtures.ts";
import type { RegisterBlock, RegisterFile } from "./types.ts";

/**
 * CNAC's COCodeStatus_ALL, both versions given (2023-08-04, 7 columns; 2025-09-12, 9 columns),
 * compared row by row with the file as csv-parse reads it. ir21 does not ship CNAC's file (its terms
 * are unclear, docs/catalog.md "Licences"): the repository holds slices of both versions, cut to
 * keep every status, every layout and every code whose holder changed between them.
 */

const OLDER = "CA/COCodeStatus_ALL_2023-08-04.csv";
const NEWER = "CA/COCodeStatus_ALL_2025-09-12.csv";
const csv = (bytes: Buffer) => csvRows(bytes, { encoding: "utf8", delimiter: ",", quote: true });

/** docs/registers.md's CNAC status mapping. */
const EXPECTED_STATUS: Record<string, string> = {
  "In Service": "assigned",
  Assigned: "assigned",
  "Being Recovered": "assigned",
  Available: "free",
  "Available as Initial Code only": "free",
  "New NPA": "free",
  "New Entrants Reserved": "reserved",
  Protected: "protected",
  "Recovered/Aging": "quarantined",
  "For Special Use": "special",
  "Plant Test": "special",
  "TBP Test Code": "special",
  "New NPA Testing": "special",
  "Not Available": "unavailable",
  "Moratorium on Assignment": "unavailable",
  "Temporarily Unavailable": "unavailable",
  "Stranded Code": "unavailable",
};

const byPrefix = (file: RegisterFile) => new Map(file.blocks.map((b) => [b.prefix!, b] as [string, RegisterBlock]));

describe("CNAC CO code status", () => {
  const files = new Map([OLDER, NEWER].map((path) => [path, readRegister(copyOf(path), { fileName: path })]));

  for (const path of [OLDER, NEWER]) {
    it(`${path}: every NPA-NXX row is a +1 NPA NXX block with its status, holder (OCN) and place`, () => {
      const rows = csv(copyOf(path));
      const header = rows[0]!;
      const at = (name: string) => header.indexOf(name);
      const file = files.get(path)!;
      expect(file.register).toBe("ca-cnac-co-codes");
      expect(file.country).toBe("CA");
      // Line 2 is the date line, its last field the file's date.
      expect(rows[1]!.slice(0, -1).every((f) => f === "")).toBe(true);
      expect(file.fileDate).toBe(rows[1]!.at(-1));
      expect(file.fileDateFrom).toBe("file");
      expect(path).toContain(file.fileDate!);
      expect(file.report.listed).toEqual([
        { row: 1, reason: "header", detail: expect.any(String) },
        { row: 2, reason: "date_line", detail: expect.stringContaining(file.fileDate!) },
      ]);

      const data = rows.slice(2);
      const expected = data.map((r) => {
        const [npa, nxx, ocn, company] = [r[at("NPA")]!, r[at("CO Code (NXX)")]!, r[at("OCN")]!, r[at("Company")]!];
        return {
          prefix: `1${npa}${nxx}`,
          start: `1${npa}${nxx}0000`,
          end: `1${npa}${nxx}9999`,
          registerStatus: r[at("Status")],
          status: EXPECTED_STATUS[r[at("Status")]!],
          holder: ocn ? { id: ocn, name: company || null } : company ? { id: company, name: company } : null,
          region: r[at("Exchange Area")] || null,
          subdivision: at("Province") >= 0 ? r[at("Province")] || null : null,
          pooled: at("Pooled") >= 0 ? r[at("Pooled")] === "Y" : null,
          notes: r[at("Remarks")] || null,
        };
      });
      const actual = file.blocks.map((b) => ({
        prefix: b.prefix,
        start: b.start,
        end: b.end,
        registerStatus: b.registerStatus,
        status: b.status,
        holder: b.holder,
        region: b.region,
        subdivision: b.subdivision,
        pooled: b.pooled,
        notes: b.notes,
      }));
      expect(actual.length).toBe(data.length);
      expect(differences(expected, actual, (b) => String(b.prefix))).toEqual(NO_DIFFERENCES);
      const counts = new Map<string, number>();
      for (const r of data) counts.set(r[at("Status")]!, (counts.get(r[at("Status")]!) ?? 0) + 1);
      const read = new Map<string, number>();
      for (const b of file.blocks) read.set(b.registerStatus!, (read.get(b.registerStatus!) ?? 0) + 1);
      expect(read).toEqual(counts);
      // Holders: one per OCN, with the blocks it holds.
      const ocns = new Map<string, number>();
      for (const r of data) if (r[at("OCN")]) ocns.set(r[at("OCN")]!, (ocns.get(r[at("OCN")]!) ?? 0) + 1);
      expect(new Map(file.holders.map((h) => [h.id, h.blocks]))).toEqual(ocns);
    });
  }

  it("the layouts: 7 columns in 2023 (no Pooled, no Province), 9 in 2025", () => {
    expect(files.get(OLDER)!.report.layout).toBe("7 columns, no Pooled, no Province");
    expect(files.get(NEWER)!.report.layout).toBe("9 columns");
    expect(files.get(NEWER)!.report.columns.modelled).toEqual(csv(sliceOf(NEWER))[0]);
    expect(files.get(OLDER)!.report.columns.notModelled).toEqual([]);
  });

  it("the 2025 file's one Available code naming a holder (873-848) is kept as written, with a warning", () => {
    const rows = csv(copyOf(NEWER)).slice(2);
    const odd = rows.filter((r) => r[2] === "Available" && r[6] !== "");
    expect(odd.map((r) => `${r[0]}-${r[1]}`)).toEqual(["873-848"]);
    const block = byPrefix(files.get(NEWER)!).get("1873848")!;
    expect(block).toMatchObject({ status: "free", holder: { id: odd[0]![7], name: odd[0]![6] } });
    expect(files.get(NEWER)!.report.warnings).toEqual([expect.objectContaining({ code: "holder_on_unassigned_block", row: block.row })]);
  });

  it("holder changes between 2023-08-04 and 2025-09-12: the codes whose OCN differs, as the files say", () => {
    const ocnOf = (bytes: Buffer) => {
      const rows = csv(bytes);
      const at = rows[0]!.indexOf("OCN");
      return new Map(rows.slice(2).map((r) => [`1${r[0]}${r[1]}`, r[at] || null]));
    };
    const before = ocnOf(copyOf(OLDER));
    const after = ocnOf(copyOf(NEWER));
    const expected = [...before].filter(([k, h]) => after.has(k) && after.get(k) !== h).map(([k, h]) => [k, h, after.get(k)]);
    const a = byPrefix(files.get(OLDER)!);
    const b = byPrefix(files.get(NEWER)!);
    const changed = [...a].filter(([k, blk]) => b.has(k) && b.get(k)!.holder?.id !== blk.holder?.id).map(([k, blk]) => [k, blk.holder?.id ?? null, b.get(k)!.holder?.id ?? null]);
    expect(changed).toEqual(expected);
    // Every change between the whole files (counted by the script that cut the slices) is in both slices.
    expect(changed.length).toBe(holderChangesOf("ca-cnac-co-codes").changed);
    expect(changed.length).toBeGreaterThan(1000);
    // One read off the files: 204-200 went from FlexITy Solutions Inc (930E) to ISP Telecom Inc. (4727).
    expect(a.get("1204200")!.holder).toEqual({ id: "930E", name: "FlexITy Solutions Inc" });
    expect(b.get("1204200")!.holder).toEqual({ id: "4727", name: "ISP Telecom Inc." });
  });

  it("the whole files, as read when the slices were cut: every one of the 44,000 code rows kept (44,002 lines, PROVENANCE.md), the header and date line listed", () => {
    for (const path of [OLDER, NEWER]) expect(sliceEntry(path).sourceAccounting, path).toMatchObject({ read: 44_002, kept: 44_000, listedByReason: { header: 1, date_line: 1 }, blocks: 44_000 });
  });

  it("the zip as CNAC publishes it reads as the CSV inside it", () => {
    const zip = readFileSync(`${FIXTURES_DIR}CA/COCodeStatus_ALL_2025-09-12.slice.zip`);
    const csvBytes = sliceOf(NEWER);
    // The member, inflated without the reader's zip library: local file header, then the deflated data.
    expect(zip.readUInt32LE(0)).toBe(0x04034b50);
    const nameLength = zip.readUInt16LE(26);
    const extraLength = zip.readUInt16LE(28);
    const compressedSize = zip.readUInt32LE(18);
    expect(zip.subarray(30, 30 + nameLength).toString()).toBe("COCodeStatus_ALL.csv");
    const dataStart = 30 + nameLength + extraLength;
    expect(inflateRawSync(zip.subarray(dataStart, dataStart + compressedSize)).equals(csvBytes)).toBe(true);

    const fromZip = readRegister(zip, { fileName: "COCodeStatus_ALL.zip" });
    const fromCsv = readRegister(csvBytes, { fileName: "COCodeStatus_ALL.zip:COCodeStatus_ALL.csv" });
    expect(fromZip.report.file).toBe("COCodeStatus_ALL.zip:COCodeStatus_ALL.csv");
    expect(fromZip).toEqual(fromCsv);
    expect(fromZip.blocks.length).toBeGreaterThan(1000);
  });
});
