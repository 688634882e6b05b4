import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { detectRegister, readRegister } from "./index.ts";
import { csvRows, DATA_DIR, fullCopy, holderChanges, lineCount, manifest, sliceOf, slices, type SourceAccounting } from "./test-fixtures.ts";

/**
 * Nothing is dropped in silence: for every register file in the repository (each full copy and each
 * test slice), the rows the reader says it read are the file's own count (lines by counting line
 * feeds, or the JSON list's entries), and every one of them is either kept or listed with a reason.
 * For the files the repository does not hold whole (their licences do not let ir21 ship them), the
 * script that cut the slices read them whole and recorded the accounting in slices.json: checked here.
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
const sum = (counts: Record<string, number>) => Object.values(counts).reduce((n, c) => n + c, 0);

/** What slices.json records of a file, from a reading (the same fields). */
function accountingOf(read: ReturnType<typeof readRegister>, rows: number): SourceAccounting {
  const listedByReason: Record<string, number> = {};
  for (const l of read.report.listed) listedByReason[l.reason] = (listedByReason[l.reason] ?? 0) + 1;
  const { report } = read;
  return {
    unit: report.rows.unit,
    rows,
    read: report.rows.read,
    kept: report.rows.kept,
    listed: report.rows.listed,
    listedByReason,
    blocksByStatus: report.blocksByStatus as Record<string, number>,
    blocks: report.blocks,
    networks: report.networks,
    resources: report.resources,
    holders: report.holders,
  };
}

describe("every register file: rows read = rows kept + rows listed", () => {
  for (const file of manifest) {
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
      // slices.json's record of this file is today's reading (else the script is to be run again:
      // the figures it records for the files not held whole would be stale too).
      expect(slices.find((s) => s.source === file.path)!.sourceAccounting).toEqual(accountingOf(read, rowsIn(file.path, bytes)));
    });
  }

  for (const slice of slices.filter((s) => !s.embedded)) {
    it(`${slice.source} (whole file, as slices.json records the script's reading: 0 silent drops)`, () => {
      const a = slice.sourceAccounting;
      // The rows the script counted itself (line feeds, JSON entries) are the rows the reader read …
      expect(a.read).toBe(a.rows);
      expect(a.unit).toBe(slice.unit);
      // … and each is kept or listed, every listed row with a reason.
      expect(a.kept + a.listed).toBe(a.read);
      expect(sum(a.listedByReason)).toBe(a.listed);
      for (const reason of Object.keys(a.listedByReason)) expect(REASONS_IN_REAL_FILES).toContain(reason);
      expect(a.listedByReason.malformed ?? 0).toBe(0);
      expect(a.blocks + a.networks + a.resources).toBe(a.kept);
      expect(sum(a.blocksByStatus)).toBe(a.blocks);
      // The slice's rows are rows of that file.
      expect(Math.max(...slice.rows)).toBeLessThanOrEqual(a.rows);
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
      expect(read.report.listed.length).toBe(read.report.rows.listed);
      expect(read.report.blocks + read.report.networks + read.report.resources).toBe(read.report.rows.kept);
    });
  }
});

/** Not redistributable (docs/catalog.md "Licences"): terms unclear (treated as no), or all rights reserved. */
const NOT_SHIPPED = new Set(["ca-cnac-co-codes", "us-nanpa-npa", "ru-rossvyaz-def", "intl-itu-e212"]);
/** The licence each shipped publisher's files carry (docs/catalog.md "Licences"). */
const LICENCE_BY_PUBLISHER: [RegExp, string, RegExp][] = [
  [/^gb-ofcom-/, "LicenseRef-Ofcom-copyright", /^Contains Ofcom numbering data: National Numbering Scheme, .+\. © Ofcom copyright \d{4}\. Source: https:\/\/www\.ofcom\.org\.uk\/\S+, downloaded \d{4}-\d{2}-\d{2}\.$/],
  [/^fr-arcep-/, "etalab-2.0", /^Source : Arcep, Ressources en numérotation téléphonique \((?:MAJ\w+|GELNUM)\), https:\/\/www\.data\.gouv\.fr\/\S+, mise à jour du \d{4}-\d{2}-\d{2}\. Licence Ouverte 2\.0 \(Etalab\)\./],
  [/^intl-mcc-mnc-list$/, "CC-BY-SA-4.0", /Wikipedia contributors .*CC BY-SA 4\.0, changed by ir21/],
];
/** The register of each slice, recognised from its content and name. */
const registerOf = (path: string) => detectRegister(sliceOf(path), path);
const versionDate = (path: string) => /_(\d{4}-\d{2}(?:-\d{2})?)\.|\/(\d{4}-\d{2}-\d{2})\//.exec(path)!.slice(1).find(Boolean)!;

describe("the repository's copies", () => {
  it("each full copy is the original file, byte for byte (sha256 as the manifest and slices.json record)", () => {
    for (const file of manifest) {
      const digest = createHash("sha256").update(fullCopy(file.path)).digest("hex");
      expect(digest, file.path).toBe(file.sha256);
      expect(digest, file.path).toBe(slices.find((s) => s.source === file.path)!.sourceSha256);
      expect(fullCopy(file.path).length, file.path).toBe(file.bytes);
    }
  });

  it("only what may ship is held whole: the shippable registers' newest versions, each with its licence, attribution and download", () => {
    const held = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? held(join(dir, e.name)) : [relative(DATA_DIR, join(dir, e.name))]));
    expect(held(DATA_DIR).sort()).toEqual(["manifest.json", ...manifest.map((f) => f.stored)].sort());
    expect(manifest.map((f) => f.path).sort()).toEqual(slices.filter((s) => s.embedded).map((s) => s.source).sort());
    for (const file of manifest) {
      expect(NOT_SHIPPED.has(file.register), file.path).toBe(false);
      const [, licence, attribution] = LICENCE_BY_PUBLISHER.find(([register]) => register.test(file.register))!;
      expect(file.licence, file.path).toBe(licence);
      expect(file.attribution, file.path).toMatch(attribution);
      expect(file.download, file.path).toMatch(/^https:\/\/\S+\.(csv|json)$/);
      expect(file.downloadPage, file.path).toMatch(/^https:\/\//);
      // One version per register, the newest the repository has a slice of.
      expect(manifest.filter((f) => f.register === file.register), file.register).toHaveLength(1);
      const versions = slices.filter((s) => s.source.split("/")[0] === file.path.split("/")[0] && registerOf(s.source) === file.register);
      expect(versionDate(file.path), file.path).toBe(versions.map((s) => versionDate(s.source)).sort().at(-1));
    }
    // Every register not shipped still has its slice (its reading stays tested).
    for (const register of NOT_SHIPPED) expect(slices.some((s) => !s.embedded && registerOf(s.source) === register), register).toBe(true);
  });

  it("each slice of an embedded file holds its source's own lines, byte for byte, in order (cut, not rewritten)", () => {
    for (const slice of slices.filter((s) => s.unit === "line" && s.embedded)) {
      const source = fullCopy(slice.source);
      const lines = source.toString("latin1").split(/(?<=\n)/);
      const expected = slice.rows.map((n) => lines[n - 1]).join("");
      expect(sliceOf(slice.source).toString("latin1"), slice.source).toBe(expected);
    }
  });

  it("each slice of an embedded file has every status word and every layout of its full file", () => {
    // The status column by name, read with csv-parse from both.
    const statusColumn: Record<string, [string, { encoding: "utf8" | "latin1"; delimiter: string; quote: boolean }, number]> = {
      "UK/S3_2025-09-13.csv": ["Block Status", { encoding: "utf8", delimiter: ",", quote: true }, 0],
      "UK/S5_2025-09-13.csv": ["Block Status", { encoding: "utf8", delimiter: ",", quote: true }, 0],
      "UK/S7_2025-09-13.csv": ["Block Status", { encoding: "utf8", delimiter: ",", quote: true }, 0],
      "UK/S8_2025-09-13.csv": ["Block Status", { encoding: "utf8", delimiter: ",", quote: true }, 0],
      "UK/S9_2025-09-13.csv": ["Block Status", { encoding: "utf8", delimiter: ",", quote: true }, 0],
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

  it("each slice of a file not held whole has every status and every kind of listed row its whole file had", () => {
    for (const slice of slices.filter((s) => !s.embedded)) {
      const read = readRegister(sliceOf(slice.source), { fileName: slice.source });
      const whole = slice.sourceAccounting;
      expect(Object.keys(read.report.blocksByStatus).sort(), slice.source).toEqual(Object.keys(whole.blocksByStatus).sort());
      expect(new Set(read.report.listed.map((l) => l.reason)), slice.source).toEqual(new Set(Object.keys(whole.listedByReason)));
      expect([read.blocks.length > 0, read.networks.length > 0, read.resources.length > 0], slice.source).toEqual([whole.blocks > 0, whole.networks > 0, whole.resources > 0]);
    }
  });

  it("the holder changes between two versions are recorded for CA, RU and FR, each version's slice holding them", () => {
    expect(holderChanges.map((c) => c.register).sort()).toEqual(["ca-cnac-co-codes", "fr-arcep-majnum", "ru-rossvyaz-def"]);
    for (const c of holderChanges) {
      expect(c.changed, c.register).toBeGreaterThan(0);
      // The slices' rule: every changed block, in both versions' slices.
      for (const path of [c.older, c.newer]) expect(slices.find((s) => s.source === path)!.rules["holder changed"], path).toBeGreaterThan(0);
    }
  });
});
