import { describe, expect, it } from "vitest";
import { readRegister } from "./index.ts";
import { copyOf, fullCopy, sliceEntry } from "./test-fixtures.ts";

/**
 * The two MCC/MNC lists, compared entry by entry with the JSON as JSON.parse gives it: the
 * Wikipedia-derived list whole (embedded, CC BY-SA 4.0); the ITU's as its slice (every area's first
 * two entries and every pair shared between areas), the ITU reserving all rights to it
 * (docs/catalog.md "Licences").
 */

const LIST = "MCCMNC/cavoq_mcc-mnc-list_2024-09-09.json";
const ITU = "MCCMNC/onomondo_itu_e212_data_2019-10-23.json";

interface ListEntry {
  type: string;
  countryName: string | null;
  countryCode: string | null;
  mcc: string;
  mnc: string;
  brand: string | null;
  operator: string | null;
  status: string | null;
  bands: string | null;
  notes: string | null;
}

describe("mcc-mnc-list JSON", () => {
  const entries: ListEntry[] = JSON.parse(fullCopy(LIST).toString("utf8"));
  const file = readRegister(fullCopy(LIST), { fileName: LIST });

  it("every entry with a 2- or 3-digit MNC is a network, under every country it is listed for", () => {
    expect(file.register).toBe("intl-mcc-mnc-list");
    expect(entries.length).toBe(3290);
    const byRow = new Map(file.networks.map((n) => [n.row, n]));
    let plain = 0;
    entries.forEach((e, i) => {
      if (!/^\d{2,3}$/.test(e.mnc)) return;
      plain++;
      const n = byRow.get(i + 1)!;
      expect(n, `entry ${i + 1}`).toBeDefined();
      expect([n.mcc, n.mnc, n.mncLast, n.msinPrefix, n.countryName, n.holder?.name ?? null, n.brand, n.registerStatus, n.bands, n.notes]).toEqual([
        e.mcc,
        e.mnc,
        null,
        null,
        e.countryName,
        e.operator,
        e.brand,
        e.status,
        e.bands,
        e.notes,
      ]);
      // `AU/CC/CX` names three countries; `GE-AB` (Abkhazia) is in GE.
      const codes = e.countryCode === null ? [] : [...new Set(e.countryCode.split("/").map((c) => c.slice(0, 2)))];
      expect(n.countries).toEqual(codes);
      expect(n.country).toBe(codes.length === 1 ? codes[0] : null);
    });
    // Pairs repeated across countries are all kept: 234-50 under GG, JE and GB.
    const repeated = file.networks.filter((n) => n.mcc === "234" && n.mnc === "50").map((n) => n.country);
    expect(repeated.sort()).toEqual(entries.filter((e) => e.mcc === "234" && e.mnc === "50").map((e) => e.countryCode).sort());
    expect(repeated.length).toBe(3);
    expect(plain).toBe(entries.length - 20);
  });

  it("odd MNCs: five digits under 208 are IMSI blocks of MNC 50, a range is one entry, `?` is listed", () => {
    const odd = entries.map((e, i) => [i + 1, e] as const).filter(([, e]) => !/^\d{2,3}$/.test(e.mnc));
    for (const [row, e] of odd) {
      const n = file.networks.find((x) => x.row === row);
      if (/^\d{5}$/.test(e.mnc)) expect(n).toMatchObject({ mcc: "208", mnc: e.mnc.slice(0, 2), msinPrefix: e.mnc.slice(2), country: "FR" });
      else if (/^\d+ - \d+$/.test(e.mnc)) expect(n).toMatchObject({ mnc: e.mnc.split(" - ")[0], mncLast: e.mnc.split(" - ")[1] });
      else {
        expect(n).toBeUndefined();
        expect(file.report.listed).toContainEqual({ row, reason: "malformed", detail: expect.stringContaining(`"${e.mnc}"`) });
      }
    }
    expect(odd.filter(([, e]) => /^\d{5}$/.test(e.mnc)).length).toBe(17);
    // Every odd MNC kept is named in a warning.
    const warned = new Set(file.report.warnings.map((w) => w.row));
    for (const [row, e] of odd) if (e.mnc !== "?") expect(warned.has(row), `entry ${row}`).toBe(true);
  });
});

describe("ITU E.212 JSON", () => {
  const doc: { areas: Record<string, { name: string; mcc: string; mnc: string }[]>; areaNames: string[] } = JSON.parse(copyOf(ITU).toString("utf8"));
  const file = readRegister(copyOf(ITU), { fileName: ITU });

  it("every entry of every area is a network with the area's country", () => {
    expect(file.register).toBe("intl-itu-e212");
    const flat = Object.entries(doc.areas).flatMap(([area, list]) => list.map((e) => ({ area, ...e })));
    expect(file.networks.map((n) => [n.mcc, n.mnc, n.holder!.name, n.countryName!.toLowerCase()])).toEqual(flat.map((e) => [e.mcc, e.mnc, e.name, e.area]));
    // A few areas read off ISO 3166 by hand, among them the ITU's own spellings.
    const country = (area: string) => file.networks.find((n) => n.countryName!.toLowerCase() === area)!.country;
    expect(["france", "korea (rep. of)", "viet nam", "hong kong, china", "the former yugoslav republic of macedonia", "french departments and territories in the indian ocean"].map(country)).toEqual([
      "FR",
      "KR",
      "VN",
      "HK",
      "MK",
      "RE",
    ]);
    expect(file.networks.filter((n) => n.country === null)).toEqual([]);
  });

  it("the whole list, as read when the slices were cut: every entry a network, none listed", () => {
    const whole = sliceEntry(ITU).sourceAccounting;
    expect(whole).toMatchObject({ unit: "entry", read: whole.rows, kept: whole.rows, networks: whole.rows, listed: 0 });
    expect(whole.rows).toBeGreaterThan(doc.areaNames.length);
  });
});
