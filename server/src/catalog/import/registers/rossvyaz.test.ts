import { describe, expect, it } from "vitest";
import { readRegister } from "./index.ts";
import { copyOf, csvRows, differences, holderChangesOf, NO_DIFFERENCES, sliceOf } from "./test-fixtures.ts";
import type { RegisterFile } from "./types.ts";

/**
 * The Russian numbering register (DEF-9xx), both versions given (2023-07; 2026-04 with
 * `Территория ГАР`), compared row by row with the files as csv-parse reads them, quoting off. ir21
 * does not ship the register (its terms are unclear, docs/catalog.md "Licences"): the repository
 * holds slices of both versions, cut to keep every DEF code, every kind of name and every range
 * whose holder changed between them.
 */

const OLDER = "RU/DEF-9xx_2023-07.csv";
const NEWER = "RU/DEF-9xx_2026-04.csv";
const MINISTRY_INN = "7710474375"; // МИНЦИФРЫ РОССИИ, as the 2026 file names it
const rowsOf = (bytes: Buffer) => csvRows(bytes, { encoding: "utf8", delimiter: ";", quote: false });
const byRange = (file: RegisterFile) => new Map(file.blocks.map((b) => [`${b.start}-${b.end}`, b]));

describe("Russian numbering register", () => {
  const files = new Map([OLDER, NEWER].map((path) => [path, readRegister(copyOf(path), { fileName: path })]));

  for (const path of [OLDER, NEWER]) {
    it(`${path}: every row is the range +7 DEF From–To, held by the operator under its INN, names exactly as written`, () => {
      const rows = rowsOf(copyOf(path));
      const h = rows[0]!;
      const at = (name: string) => h.indexOf(name);
      expect(at("ИНН")).toBe(h.length - 1);
      const file = files.get(path)!;
      expect(file).toMatchObject({ register: "ru-rossvyaz-def", country: "RU", fileDate: null });
      const expected = rows.slice(1).map((r) => ({
        start: `7${r[0]}${r[1]}`,
        end: `7${r[0]}${r[2]}`,
        holder: { id: r[at("ИНН")], name: r[at("Оператор")] },
        status: r[at("ИНН")] === MINISTRY_INN ? "reserved" : "assigned",
        region: r[at("Регион")],
        subdivision: at("Территория ГАР") >= 0 ? r[at("Территория ГАР")] : null,
        size: Number(r[at("Емкость")]),
      }));
      const actual = file.blocks.map((b) => ({
        start: b.start,
        end: b.end,
        holder: b.holder,
        status: b.status,
        region: b.region,
        subdivision: b.subdivision,
        size: Number(b.end) - Number(b.start) + 1,
      }));
      expect(actual.length).toBe(expected.length);
      expect(differences(expected, actual, (b) => `${b.start}-${b.end}`)).toEqual(NO_DIFFERENCES);
      // A range is a prefix only when it is exactly one (900 0000000–0999999 is +7 900 0).
      for (const b of file.blocks.slice(0, 500)) {
        const p = b.prefix;
        if (p !== null) expect(b.start === p.padEnd(11, "0") && b.end === p.padEnd(11, "9"), `${b.start}`).toBe(true);
      }
      // Holders by INN, with every spelling the file uses.
      const names = new Map<string, Set<string>>();
      for (const r of rows.slice(1)) names.set(r[at("ИНН")]!, (names.get(r[at("ИНН")]!) ?? new Set()).add(r[at("Оператор")]!));
      expect(new Map(file.holders.map((hd) => [hd.id, new Set(hd.names)]))).toEqual(names);
    });
  }

  it("operator names keep their bare double quotes (the file is read with quoting off)", () => {
    const text = sliceOf(NEWER).toString("utf8");
    const line = text.split("\n").find((l) => l.includes('ООО "Т2 МОБАЙЛ"'))!;
    const [def, from] = line.split(";");
    const block = readRegister(sliceOf(NEWER)).blocks.find((b) => b.start === `7${def}${from}`)!;
    expect(block.holder).toEqual({ id: "7743895280", name: 'ООО "Т2 МОБАЙЛ"' });
    // The 2023 spelling of the same INN.
    expect(readRegister(sliceOf(OLDER)).holders.find((h) => h.id === "7743895280")!.names).toContain('ООО "Т2 Мобайл"');
  });

  it("the layouts: 7 columns in 2023, 8 with Территория ГАР in 2026", () => {
    expect(files.get(OLDER)!.report.layout).toBe("7 columns");
    expect(files.get(NEWER)!.report.layout).toBe("8 columns, with Территория ГАР");
    expect(files.get(NEWER)!.report.columns.modelled).toContain("Территория ГАР");
  });

  it("holder changes between 2023-07 and 2026-04: the ranges present in both whose INN differs, as the files say", () => {
    const innOf = (bytes: Buffer) => new Map(rowsOf(bytes).slice(1).map((r) => [`7${r[0]}${r[1]}-7${r[0]}${r[2]}`, r[r.length - 1]]));
    const before = innOf(copyOf(OLDER));
    const after = innOf(copyOf(NEWER));
    const expected = [...before].filter(([k, inn]) => after.has(k) && after.get(k) !== inn).map(([k, inn]) => [k, inn, after.get(k)]);
    const a = byRange(files.get(OLDER)!);
    const b = byRange(files.get(NEWER)!);
    const changed = [...a].filter(([k, blk]) => b.has(k) && b.get(k)!.holder?.id !== blk.holder?.id).map(([k, blk]) => [k, blk.holder?.id, b.get(k)!.holder?.id]);
    expect(changed).toEqual(expected);
    // Every change between the whole files (counted by the script that cut the slices) is in both slices.
    expect(changed.length).toBe(holderChangesOf("ru-rossvyaz-def").changed);
    expect(changed.length).toBeGreaterThan(50);
    // Ranges withdrawn from their operator went to the Ministry: reserved, no longer an operator's.
    const toMinistry = changed.filter(([, , inn]) => inn === MINISTRY_INN);
    expect(toMinistry.length).toBeGreaterThan(0);
    for (const [k] of toMinistry) expect(b.get(k as string)!.status).toBe("reserved");
  });
});
