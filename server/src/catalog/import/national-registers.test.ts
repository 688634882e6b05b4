import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { parse } from "csv-parse/sync";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../../testing/index.ts";
import { runRegistersImport } from "../../app/commands/catalog.ts";
import { auditCatalog } from "./audit.ts";

/**
 * National registers through the real server (docs/catalog.md "National registers"): `import
 * registers` of the regulators' own files (slices of the real ones, cut by scripts/registers/, and the
 * packaged Ofcom copies), then lookups and /v1/changes. Every expectation is read from the files in
 * this test, with csv-parse, never from the importer: each register's rows give the holder a number of
 * the block must answer, a block not assigned must answer not_assigned naming the register and its
 * date, and a block whose holder changed between two versions must answer the newer one and be in
 * the change log with both.
 */

const FIXTURES = new URL("../../../fixtures/registers/", import.meta.url);
const PACKAGED = new URL("../../../data/registers/", import.meta.url);
const fixture = (path: string) => {
  const bytes = readFileSync(new URL(path, FIXTURES));
  return path.endsWith(".gz") ? gunzipSync(bytes) : bytes;
};
const packaged = (path: string) => brotliDecompressSync(readFileSync(new URL(path, PACKAGED)));

/** CSV rows with csv-parse (the readers split lines by hand); `;` files unquoted, as the Russian register must be read. */
const rows = (bytes: Buffer, options: { delimiter?: string; encoding?: BufferEncoding; quote?: boolean } = {}): string[][] =>
  parse(bytes.toString(options.encoding ?? "utf8"), { delimiter: options.delimiter ?? ",", quote: options.quote === false ? false : '"', relax_column_count: true, bom: true, skip_empty_lines: true });

/** A number libphonenumber calls valid, from the block's first digits (tried with a few fills), or null. */
function validNumber(callingCode: string, nationalPrefix: string, length: number): string | null {
  for (const fill of ["4567890123", "1234567890", "5555555555", "0000000000", "9999999999"]) {
    const candidate = `+${callingCode}${(nationalPrefix + fill).slice(0, length)}`;
    if (parsePhoneNumberFromString(candidate)?.isValid()) return candidate;
  }
  return null;
}

let server: TestServer;
let key: Record<string, string>;
let dir: string;
/** Writes a fixture (decompressed) under the name its register is published as, for the command. */
const asFile = (name: string, bytes: Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};
const lookup = async (number: string) => (await server.json(`/v1/lookup?number=${encodeURIComponent(number)}`, { headers: key })).body.data;

beforeAll(async () => {
  server = await startTestServer({ dataset: "demo" });
  key = (await createApiKey(server, await signIn(server))).headers;
  dir = mkdtempSync(join(tmpdir(), "ir21-registers-"));
}, 120_000);
afterAll(() => server.close());

describe("CNAC (Canada), two versions", () => {
  const older = fixture("CA/COCodeStatus_ALL_2023-08-04.slice.csv.gz");
  const newer = fixture("CA/COCodeStatus_ALL_2025-09-12.slice.csv.gz");
  /** NPA-NXX → {status, company, ocn} of a version, and the file's date (line 2's last field). */
  const codes = (bytes: Buffer) => {
    const [header, dateLine, ...data] = rows(bytes);
    const at = (name: string) => header!.indexOf(name);
    return {
      date: dateLine!.at(-1)!,
      byCode: new Map(data.map((r) => [`${r[at("NPA")]}${r[at("CO Code (NXX)")]}`, { status: r[at("Status")]!, company: r[at("Company")] ?? "", ocn: r[at("OCN")] ?? "" }])),
    };
  };
  let firstVersion: string;

  it("older file: numbers of codes in service answer their company, with CNAC's source and date", async () => {
    await runRegistersImport(server.deps, [asFile("COCodeStatus_ALL.csv", older)], {}, null);
    firstVersion = (await server.json("/v1/meta")).body.meta.dataset_version;
    const { date, byCode } = codes(older);
    let checked = 0;
    for (const [code, row] of byCode) {
      if (row.status !== "In Service" || !row.company) continue;
      const number = validNumber("1", code, 10);
      if (!number) continue;
      const answer = await lookup(number);
      expect({ number, holder: answer.range_holder, source: answer.source?.id, date: answer.source?.date }).toEqual({
        number,
        holder: row.company,
        source: "register:ca-cnac-co-codes",
        date,
      });
      if (++checked === 40) break;
    }
    expect(checked).toBe(40);
  }, 300_000);

  it("newer file: codes whose holder changed answer the new one, and /v1/changes carries the change with both", async () => {
    await runRegistersImport(server.deps, [asFile("COCodeStatus_ALL.csv", newer)], {}, null);
    const before = codes(older).byCode;
    const after = codes(newer);
    const changed = [...after.byCode].filter(([code, row]) => row.status === "In Service" && before.get(code)?.status === "In Service" && before.get(code)!.company !== row.company);
    expect(changed.length).toBeGreaterThan(5);
    const events: Array<{ type: string; data: { before?: { id: string; range_holder: string }; after?: { id: string; range_holder: string } } }> = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page: { body: { data: { items: typeof events; next_cursor: string | null } } } = await server.json(`/v1/changes?since=${firstVersion}&types=ir21.number_range.updated&limit=100${cursor ? `&cursor=${cursor}` : ""}`, { headers: key });
      events.push(...page.body.data.items);
      cursor = page.body.data.next_cursor;
    }
    const byRange = new Map(events.map((e) => [e.data.after?.id, e]));
    for (const [code, row] of changed) {
      const event = byRange.get(`e164-1${code}`);
      expect({ code, before: event?.data.before?.range_holder, after: event?.data.after?.range_holder }).toEqual({ code, before: before.get(code)!.company, after: row.company });
      const number = validNumber("1", code, 10);
      if (number) expect((await lookup(number)).range_holder).toBe(row.company);
    }
  }, 300_000);

  it("codes CNAC does not assign answer not_assigned, naming the register and its date", async () => {
    const { date, byCode } = codes(newer);
    const free = [...byCode].filter(([, row]) => row.status === "Available").slice(0, 10);
    expect(free.length).toBeGreaterThan(3);
    for (const [code] of free) {
      const number = validNumber("1", code, 10);
      if (!number) continue;
      const answer = await lookup(number);
      expect({ number, holder: answer.range_holder, reason: answer.range_holder_reason, source: answer.source?.id, date: answer.source?.date, status: answer.source?.status }).toEqual({
        number,
        holder: null,
        reason: "not_assigned",
        source: "register:ca-cnac-co-codes",
        date,
        status: "free",
      });
    }
  });
});

describe("the Russian register (no date of its own), two versions", () => {
  const older = fixture("RU/DEF-9xx_2023-07.slice.csv.gz");
  const newer = fixture("RU/DEF-9xx_2026-04.slice.csv.gz");
  /** From..To ranges of a version with their holder (Оператор as written) and INN. */
  const ranges = (bytes: Buffer) => {
    const [header, ...data] = rows(bytes, { delimiter: ";", quote: false });
    const at = (name: string) => header!.findIndex((h) => h.trim() === name);
    return data.map((r) => ({ def: r[0]!.trim(), from: r[at("От")]!, to: r[at("До")]!, holder: r[at("Оператор")]!, inn: r[at("ИНН")]! }));
  };

  it("a file without a date is refused without --date, nothing stored; with it, every range answers its holder as written", async () => {
    await expect(runRegistersImport(server.deps, [asFile("DEF-9xx.csv", older)], {}, null)).rejects.toThrow(/--date/);
    await runRegistersImport(server.deps, [asFile("DEF-9xx.csv", older)], { date: "2023-07-20" }, null);
    let checked = 0;
    for (const range of ranges(older).filter((_, i) => i % 7 === 0)) {
      const number = `+7${range.def}${range.from}`;
      if (!parsePhoneNumberFromString(number)?.isValid()) continue;
      const answer = await lookup(number);
      expect({ number, holder: answer.range_holder, id: answer.range?.range_holder_id, date: answer.source?.date }).toEqual({ number, holder: range.holder, id: range.inn, date: "2023-07-20" });
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  }, 300_000);

  it("the newer file: a range whose holder (INN) changed answers the new holder", async () => {
    await runRegistersImport(server.deps, [asFile("DEF-9xx.csv", newer)], { date: "2026-04-20" }, null);
    const before = new Map(ranges(older).map((r) => [`${r.def}${r.from}-${r.to}`, r]));
    const moved = ranges(newer).filter((r) => before.has(`${r.def}${r.from}-${r.to}`) && before.get(`${r.def}${r.from}-${r.to}`)!.inn !== r.inn);
    expect(moved.length).toBeGreaterThan(3);
    // Ranges handed back to the Ministry (МИНЦИФРЫ РОССИИ, its INN below) are the state's reserve, not an
    // operator's assignment (docs/registers.md): no holder, not_assigned, status reserved.
    const MINISTRY_INN = "7710474375";
    expect(moved.filter((r) => r.inn !== MINISTRY_INN).length).toBeGreaterThan(3);
    for (const range of moved) {
      const number = `+7${range.def}${range.from}`;
      const answer = await lookup(number);
      const reserve = range.inn === MINISTRY_INN;
      expect({ number, inn: answer.range?.range_holder_id ?? null, holder: answer.range_holder, reason: answer.range_holder_reason, status: answer.source?.status, date: answer.source?.date }).toEqual({
        number,
        inn: reserve ? null : range.inn,
        holder: reserve ? null : range.holder,
        reason: reserve ? "not_assigned" : null,
        status: reserve ? "reserved" : "assigned",
        date: "2026-04-20",
      });
    }
    // A number of +7 9 in no listed range: the register covers all of +7 9xx, so it is not assigned.
    const listed = ranges(newer).map((r) => [Number(`${r.def}${r.from}`), Number(`${r.def}${r.to}`)] as const);
    const gap = [...Array(10_000).keys()].map((i) => 9_990_000_000 + i * 997).find((n) => !listed.some(([a, b]) => a <= n && n <= b))!;
    expect((await lookup(`+7${gap}`)).range_holder_reason).toBe("not_assigned");
  }, 300_000);
});

describe("data audit", () => {
  it("counts each register's ranges by status as its file has them, dates every source, and lists libphonenumber's ranges a register contradicts", async () => {
    const { buildCandidate } = await import("./sources.ts");
    const overlay = (await buildCandidate("reference", [], server.deps)).registers!;
    const audit = await auditCatalog(server.deps.db, server.clock.now().getTime(), overlay.disagreements);
    // The Russian register as loaded last (the 2026-04 file): a row a range, the Ministry's reserved.
    const [header, ...data] = rows(fixture("RU/DEF-9xx_2026-04.slice.csv.gz"), { delimiter: ";", quote: false });
    const inn = header!.findIndex((h) => h.trim() === "ИНН");
    const reserved = data.filter((r) => r[inn] === "7710474375").length;
    const ru = audit.registers.find((r) => r.source === "register:ru-rossvyaz-def")!;
    expect({ ranges: ru.ranges, by_status: ru.by_status, date: ru.date, coverage: ru.coverage }).toEqual({
      ranges: data.length,
      by_status: { assigned: data.length - reserved, reserved },
      date: "2026-04-20",
      coverage: ["79"],
    });
    // Nothing dropped in silence: each row of a register's file is a range, a block counted with the
    // reason it makes none, or a row the reader listed (ARCEP's MAJNUM as packaged, counted with csv-parse).
    for (const f of overlay.files) expect({ file: f.file, blocks: f.ranges + Object.values(f.notRanges).reduce((a, b) => a + b, 0) }).toEqual({ file: f.file, blocks: f.blocks });
    const majnum = overlay.files.find((f) => f.source === "register:fr-arcep-majnum")!;
    // (The header line is a row the reader lists, as such.)
    const majnumRows = rows(packaged("FR/MAJNUM_2026-04-17.csv.br"), { delimiter: ";", encoding: "latin1" }).length;
    expect(majnum.ranges + Object.values(majnum.notRanges).reduce((a, b) => a + b, 0) + majnum.listed).toBe(majnumRows);
    const meta = (await server.json("/v1/meta", { headers: key })).body.data;
    expect(audit.sources.map((s) => [s.id, s.age_days, s.stale])).toEqual(meta.sources.map((s: { id: string; age_days: number; stale: boolean }) => [s.id, s.age_days, s.stale]));
    // Every disagreement is a libphonenumber prefix inside a register's coverage whose holder the register's blocks there do not all name.
    expect(audit.register_disagreements!.length).toBeGreaterThan(100);
    for (const d of audit.register_disagreements!.filter((_, i) => i % 25 === 0)) {
      const source = meta.sources.find((s: { id: string }) => s.id === d.source);
      expect({ prefix: d.prefix, covered: (source?.coverage ?? []).some((p: string) => d.prefix.startsWith(p)) }).toEqual({ prefix: d.prefix, covered: true });
      expect(d.register.length === 1 && d.register[0] === d.was).toBe(false);
    }
  }, 300_000);
});

describe("Ofcom's files as ir21 packages them (every reference import)", () => {
  it("S7: a number of each sampled allocated block answers its CP Name; of a free block, not_assigned with Ofcom's date", async () => {
    const manifest = JSON.parse(readFileSync(new URL("manifest.json", PACKAGED), "utf8")) as { files: Array<{ path: string; stored: string; date: string; register: string }> };
    const s7 = manifest.files.find((f) => f.register === "gb-ofcom-s7")!;
    const [header, ...data] = rows(packaged(s7.stored));
    const at = (name: string) => header!.findIndex((h) => h.trim() === name);
    const blocks = data.map((r) => ({ block: r[at("NMS Number Block: Number Block")]!.replace(" ", ""), status: r[at("Block Status")]!, holder: r[at("CP Name")]! }));
    let allocated = 0;
    let free = 0;
    for (const block of blocks.filter((_, i) => i % 97 === 0)) {
      const number = validNumber("44", block.block, 10);
      if (!number) continue;
      const answer = await lookup(number);
      if (block.status === "Allocated") {
        expect({ number, holder: answer.range_holder, source: answer.source?.id, date: answer.source?.date }).toEqual({ number, holder: block.holder, source: "register:gb-ofcom-s7", date: s7.date });
        allocated++;
      } else if (block.status === "Free") {
        expect({ number, holder: answer.range_holder, reason: answer.range_holder_reason }).toEqual({ number, holder: null, reason: "not_assigned" });
        free++;
      }
    }
    expect(allocated).toBeGreaterThan(20);
  }, 120_000);
});

describe("/v1/meta: every source dated, its age and staleness by the server's clock", () => {
  it("names a publication date and an age for every source; stale past its refresh interval", async () => {
    const meta = (await server.json("/v1/meta", { headers: key })).body.data;
    const now = server.clock.now().getTime();
    for (const source of meta.sources) {
      expect({ id: source.id, published: source.published_at === null }).toEqual({ id: source.id, published: false });
      const age = Math.floor((now - Date.parse(source.published_at)) / 86_400_000);
      expect({ id: source.id, age: source.age_days }).toEqual({ id: source.id, age: Math.max(0, age) });
      if (source.refresh_interval_days !== undefined) expect({ id: source.id, stale: source.stale }).toEqual({ id: source.id, stale: age > source.refresh_interval_days });
    }
    // A year on, every register is stale (the clock, not another source, decides).
    server.clock.advance(366 * 86_400_000);
    const later = (await server.json("/v1/meta", { headers: key })).body.data;
    expect(later.sources.filter((s: { id: string }) => s.id.startsWith("register:")).every((s: { stale: boolean }) => s.stale)).toBe(true);
  });
});
