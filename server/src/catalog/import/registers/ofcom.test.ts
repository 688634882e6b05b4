import { describe, expect, it } from "vitest";
import { detectRegister, readRegister } from "./index.ts";
import { csvRows, differences, dmy, fullCopy, NO_DIFFERENCES, sliceOf } from "./test-fixtures.ts";

/** Ofcom's S3, S5, S7, S8 and S9 files (embedded: read whole), compared row by row with the files as csv-parse reads them. */

const SERIES = [3, 5, 7, 8, 9] as const;
const path = (s: number) => `UK/S${s}_2025-09-13.csv`;

/** docs/registers.md's Ofcom status mapping. */
const EXPECTED_STATUS: Record<string, string> = {
  Allocated: "assigned",
  "Allocated(Closed Range)": "assigned",
  Free: "free",
  Reserved: "reserved",
  Designated: "reserved",
  Protected: "protected",
  Quarantined: "quarantined",
};

describe("Ofcom numbering files", () => {
  for (const s of SERIES) {
    it(`S${s}: every row is the block +44 <digits> with its number length, status, provider and date`, () => {
      const bytes = fullCopy(path(s));
      const rows = csvRows(bytes, { encoding: "utf8", delimiter: ",", quote: true });
      const header = rows[0]!;
      const file = readRegister(bytes, { fileName: path(s) });
      expect(file.register).toBe(`gb-ofcom-s${s}`);
      expect(file.country).toBe("GB");
      // Ofcom's files carry no date of their own.
      expect(file.fileDate).toBeNull();
      const expected = rows.slice(1).map((r) => {
        const digits = r[0]!.split(" ").join("");
        const length = Number(r[3]!.split(" ")[0]);
        return {
          registerBlock: r[0],
          prefix: `44${digits}`,
          start: `44${digits}${"0".repeat(length - digits.length)}`,
          end: `44${digits}${"9".repeat(length - digits.length)}`,
          numberLength: length,
          registerStatus: r[1],
          status: EXPECTED_STATUS[r[1]!],
          holder: r[2] ? { id: r[2], name: r[2] } : null,
          assignedOn: dmy(r[4]!),
          notes: header.length > 5 ? r[5] || null : null,
        };
      });
      const actual = file.blocks.map((b) => ({
        registerBlock: b.registerBlock,
        prefix: b.prefix,
        start: b.start,
        end: b.end,
        numberLength: b.numberLength,
        registerStatus: b.registerStatus,
        status: b.status,
        holder: b.holder,
        assignedOn: b.assignedOn,
        notes: b.notes,
      }));
      expect(actual.length).toBe(expected.length);
      expect(differences(expected, actual, (b) => String(b.registerBlock))).toEqual(NO_DIFFERENCES);
      // The space-written blocks: `7000 0` is 07000 0xxxxx.
      if (s === 7) expect(file.blocks.find((b) => b.registerBlock === "7000 0")).toMatchObject({ prefix: "4470000", start: "447000000000", end: "447000099999" });
      // Providers: one holder per CP name, with its blocks.
      const providers = new Map<string, number>();
      for (const r of rows.slice(1)) if (r[2]) providers.set(r[2], (providers.get(r[2]) ?? 0) + 1);
      expect(new Map(file.holders.map((h) => [h.id, h.blocks]))).toEqual(providers);
    });
  }

  it("the five files share a header; the series comes from the file name, else from the blocks", () => {
    for (const s of SERIES) {
      const bytes = sliceOf(path(s));
      expect(detectRegister(bytes, path(s))).toBe(`gb-ofcom-s${s}`);
      expect(detectRegister(bytes)).toBe(`gb-ofcom-s${s}`);
    }
  });

  it("a block outside the file's series is listed, not kept (an S3 row given as S7)", () => {
    const s3 = sliceOf(path(3)).toString("utf8").split("\r\n");
    const s7 = sliceOf(path(7)).toString("utf8").split("\r\n");
    // S7's header and rows, with one S3 row (without S3's Notes column) in the middle.
    const mixed = [s7[0], s7[1], s3[1]!.split(",").slice(0, 5).join(","), s7[2]].join("\r\n");
    const file = readRegister(Buffer.from(mixed), { fileName: "S7.csv" });
    expect(file.blocks.map((b) => b.registerBlock)).toEqual([s7[1]!.split(",")[0], s7[2]!.split(",")[0]]);
    expect(file.report.listed[1]).toEqual({ row: 3, reason: "outside_numbering", detail: expect.stringContaining("not in S7") });
  });
});
