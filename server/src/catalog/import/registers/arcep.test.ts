import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { describe, expect, it } from "vitest";
import { detectRegister, readRegister } from "./index.ts";
import { copyOf, csvRows, differences, dmy, holderChangesOf, NO_DIFFERENCES, sliceOf } from "./test-fixtures.ts";
import type { RegisterFile } from "./types.ts";

/**
 * ARCEP's MAJNUM (2025-06-12, 2026-04-17) and its companions (2026-04-20), compared row by row with
 * the files as csv-parse reads them (Latin-1: the files hold no byte where Windows-1252 differs).
 * The newest MAJNUM and the companions are embedded, so read whole; the older MAJNUM is not (the
 * embedded default needs only the newest version): its slice keeps every block whose holder changed.
 */

const OLDER = "FR/MAJNUM_2025-06-12.csv";
const NEWER = "FR/MAJNUM_2026-04-17.csv";
const companion = (name: string) => `FR/2026-04-20/${name}.csv`;
const rowsOf = (bytes: Buffer) => csvRows(bytes, { encoding: "latin1", delimiter: ";", quote: true });

/** ARCEP's territories: ISO code and E.164 calling code (ITU-T E.164 assignments). */
const TERRITORY: Record<string, [string, string]> = {
  Métropole: ["FR", "33"],
  National: ["FR", "33"],
  "Guadeloupe, St Martin et St Barthélemy": ["GP", "590"],
  Martinique: ["MQ", "596"],
  Guyane: ["GF", "594"],
  "La Réunion": ["RE", "262"],
  "La Réunion - Océan indien": ["RE", "262"],
  Mayotte: ["YT", "262"],
  "Saint Pierre et Miquelon": ["PM", "508"],
};

/** National (with its 0) to E.164: Saint-Pierre-et-Miquelon's 0508 numbers are +508 and six digits. */
const e164 = (national: string, cc: string) => (cc === "508" && national.startsWith("0508") ? `508${national.slice(4)}` : `${cc}${national.slice(1)}`);

describe("ARCEP MAJNUM", () => {
  const files = new Map([OLDER, NEWER].map((path) => [path, readRegister(copyOf(path), { fileName: path })]));

  for (const path of [OLDER, NEWER]) {
    it(`${path}: every row is a block of E.164 numbers (or a short code) held by its Mnémo`, () => {
      const rows = rowsOf(copyOf(path));
      const file = files.get(path)!;
      expect(file).toMatchObject({ register: "fr-arcep-majnum", country: "FR", fileDateFrom: "latest_row_date" });
      const expected = rows.slice(1).map(([code, first, last, holder, territory, date]) => {
        const [country, cc] = TERRITORY[territory!]!;
        const short = !first!.startsWith("0");
        return {
          registerBlock: code,
          plan: short ? "national_short" : "e164",
          country,
          prefix: short ? code : e164(code!, cc),
          start: short ? first : e164(first!, cc),
          end: short ? last : e164(last!, cc),
          holder: { id: holder, name: null },
          status: "assigned",
          region: territory,
          assignedOn: dmy(date!),
        };
      });
      const actual = file.blocks.map((b) => ({
        registerBlock: b.registerBlock,
        plan: b.plan,
        country: b.country,
        prefix: b.prefix,
        start: b.start,
        end: b.end,
        holder: b.holder,
        status: b.status,
        region: b.region,
        assignedOn: b.assignedOn,
      }));
      expect(actual.length).toBe(expected.length);
      expect(differences(expected, actual, (b) => String(b.registerBlock))).toEqual(NO_DIFFERENCES);
      // The file's date is its latest attribution date.
      const latest = rows
        .slice(1)
        .map((r) => dmy(r[5]!)!)
        .sort()
        .at(-1);
      expect(file.fileDate).toBe(latest);
      expect(path).toContain(latest!);
      // Prefix lengths as the file has them: EZABPQM of 4 to 8 digits.
      expect(new Set(file.blocks.map((b) => b.registerBlock.length))).toEqual(new Set(rows.slice(1).map((r) => r[0]!.length)));
      // The plan's overseas prefixes agree with every row's Territoire (the reader warns where not).
      expect(file.report.warnings).toEqual([]);
    });
  }

  it("E.164 numbers fall in the territory libphonenumber gives them, where it knows them as valid", () => {
    const allowed: Record<string, string[]> = { GP: ["GP", "BL", "MF"], FR: ["FR"], MQ: ["MQ"], GF: ["GF"], RE: ["RE"], YT: ["YT"], PM: ["PM"] };
    let checked = 0;
    for (const block of files.get(NEWER)!.blocks.filter((b) => b.plan === "e164")) {
      // A number in the middle of the block: its first number can be a special one.
      const number = parsePhoneNumberFromString(`+${block.start.slice(0, -2)}42`);
      if (!number?.isValid()) continue;
      checked++;
      expect(allowed[block.country!], `${block.registerBlock} (${block.region})`).toContain(number.country);
    }
    expect(checked).toBeGreaterThan(15_000);
  });

  it("holder changes between 2025-06-12 and 2026-04-17: the blocks whose Mnémo differs, as the files say", () => {
    const holderOf = (bytes: Buffer) => new Map(rowsOf(bytes).slice(1).map((r) => [r[0]!, r[3]!]));
    const before = holderOf(copyOf(OLDER));
    const after = holderOf(copyOf(NEWER));
    const expected = [...before].filter(([k, h]) => after.has(k) && after.get(k) !== h).map(([k, h]) => [k, h, after.get(k)]);
    const index = (f: RegisterFile) => new Map(f.blocks.map((b) => [b.registerBlock, b.holder!.id]));
    const a = index(files.get(OLDER)!);
    const b = index(files.get(NEWER)!);
    expect([...a].filter(([k, h]) => b.has(k) && b.get(k) !== h).map(([k, h]) => [k, h, b.get(k)])).toEqual(expected);
    // Every change between the whole files (counted by the script that cut the slices) is in the older slice.
    expect(expected.length).toBe(holderChangesOf("fr-arcep-majnum").changed);
    expect(expected.length).toBeGreaterThan(100);
    // One read off the files: 0159170 went from EXCE to SYNE.
    expect([a.get("0159170"), b.get("0159170")]).toEqual(["EXCE", "SYNE"]);
  });
});

describe("ARCEP companions", () => {
  it("MAJMNC: MCC-MNC codes as networks, 8-digit codes as IMSI blocks of MNC 50 and 51", () => {
    const rows = rowsOf(copyOf(companion("MAJMNC")));
    const file = readRegister(copyOf(companion("MAJMNC")), { fileName: companion("MAJMNC") });
    expect(file.register).toBe("fr-arcep-majmnc");
    const expected = rows.slice(1).map(([code, holder, name, date, decision]) => ({
      mcc: code!.slice(0, 3),
      mnc: code!.length === 6 ? code!.slice(3, 6) : code!.slice(3, 5),
      msinPrefix: code!.length === 8 ? code!.slice(5) : null,
      holder: { id: holder, name },
      status: holder === "ARCEP" || holder === "ART" ? "reserved" : "assigned",
      assignedOn: dmy(date!),
      decision: decision || null,
    }));
    const actual = file.networks.map((n) => ({ mcc: n.mcc, mnc: n.mnc, msinPrefix: n.msinPrefix, holder: n.holder, status: n.status, assignedOn: n.assignedOn, decision: n.decision }));
    expect(differences(expected, actual, (n) => `${n.mcc}${n.mnc}${n.msinPrefix ?? ""}`)).toEqual(NO_DIFFERENCES);
    expect(actual.length).toBe(expected.length);
    expect(file.networks.find((n) => n.msinPrefix === "144")).toMatchObject({ mcc: "208", mnc: "50", country: "FR" });
  });

  it("the resource files name their holders; together they name most of MAJNUM's Mnémos", () => {
    const names = new Map<string, string>();
    for (const name of ["MAJRIO", "MAJCPSN", "MAJCPSI", "MAJR1R2", "MAJSDT"]) {
      const rows = rowsOf(copyOf(companion(name)));
      const file = readRegister(copyOf(companion(name)), { fileName: companion(name) });
      expect(file.register).toBe(`fr-arcep-${name.toLowerCase()}`);
      expect(file.resources.map((r) => [r.code, r.holder!.id, r.holder!.name, r.assignedOn])).toEqual(rows.slice(1).map((r) => [r[0], r[1], r[2], dmy(r[name === "MAJCPSI" ? 4 : 3]!)]));
      for (const r of rows.slice(1)) names.set(r[1]!, r[2]!);
      const holders = new Map(file.holders.map((h) => [h.id, h.names]));
      for (const r of rows.slice(1)) expect(holders.get(r[1]!)).toContain(r[2]);
    }
    const majnum = readRegister(copyOf(NEWER));
    const named = majnum.blocks.filter((b) => b.holder && names.has(b.holder.id)).length;
    expect(named / majnum.blocks.length).toBeGreaterThan(0.9);
  });

  it("MAJPORTA: routing prefixes of ported numbers and their operator codes", () => {
    const rows = rowsOf(copyOf(companion("MAJPORTA")));
    const file = readRegister(copyOf(companion("MAJPORTA")));
    expect(file.register).toBe("fr-arcep-majporta");
    expect(file.resources.map((r) => [r.kind, r.code, r.holder!.id, r.assignedOn])).toEqual(rows.slice(1).map((r) => ["routing_prefix", r[0], r[1], dmy(r[2]!)]));
  });

  it("MAJNFB: emergency and public-service short codes (special), same header as MAJNUM", () => {
    const rows = rowsOf(copyOf(companion("MAJNFB")));
    const file = readRegister(copyOf(companion("MAJNFB")));
    expect(file.register).toBe("fr-arcep-majnfb");
    expect(file.blocks.map((b) => [b.plan, b.start, b.status, b.holder!.id])).toEqual(rows.slice(1).map((r) => ["national_short", r[1], "special", r[3]]));
  });

  it("GELNUM: frozen number blocks and frozen codes, with the dates they reopen", () => {
    const rows = rowsOf(copyOf(companion("GELNUM")));
    const file = readRegister(copyOf(companion("GELNUM")));
    expect(file).toMatchObject({ register: "fr-arcep-gelnum", fileDate: null });
    const numbers = rows.slice(1).filter((r) => /^Numéro/.test(r[1]!));
    expect(file.blocks.length).toBe(numbers.length);
    expect(file.resources.length).toBe(rows.length - 1 - numbers.length);
    for (const b of file.blocks) expect(b.status).toBe("frozen");
    const header = rows[0]!;
    const byCode = new Map(rows.slice(1).map((r) => [r[0]!, r]));
    for (const item of [...file.blocks.map((b) => [b.registerBlock, b.dates] as const), ...file.resources.map((r) => [r.code, r.dates] as const)]) {
      const r = byCode.get(item[0])!;
      expect(item[1]).toEqual({ [header[2]!]: dmy(r[2]!), [header[3]!]: dmy(r[3]!), [header[4]!]: dmy(r[4]!) });
    }
    // A frozen block's territory agrees with MAJNUM's Territoire for the blocks around it (same 5-digit prefix).
    const territoryOf = new Map(rowsOf(copyOf(NEWER)).slice(1).map((r) => [r[0]!.slice(0, 5), TERRITORY[r[4]!]![0]]));
    let compared = 0;
    for (const b of file.blocks.filter((x) => x.plan === "e164")) {
      const around = territoryOf.get(b.registerBlock.slice(0, 5));
      if (!around) continue;
      compared++;
      expect(b.country, b.registerBlock).toBe(around);
    }
    expect(compared).toBeGreaterThan(1000);
    expect(file.blocks.filter((b) => b.country !== "FR").length).toBeGreaterThan(10);
  });

  it("files sharing a header are told apart by name, else by their codes", () => {
    for (const name of ["MAJRIO", "MAJCPSN", "MAJCPSI", "MAJR1R2", "MAJSDT", "MAJPORTA", "MAJMNC", "MAJNFB", "GELNUM"]) {
      expect(detectRegister(sliceOf(companion(name))), name).toBe(`fr-arcep-${name.toLowerCase()}`);
      expect(detectRegister(sliceOf(companion(name)), `${name}.csv`), name).toBe(`fr-arcep-${name.toLowerCase()}`);
    }
    expect(detectRegister(sliceOf(NEWER))).toBe("fr-arcep-majnum");
  });
});
