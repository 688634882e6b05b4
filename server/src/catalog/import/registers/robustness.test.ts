import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { readRegister, readRegisters, REGISTER_IDS, type RegisterFile } from "./index.ts";
import { sliceOf, slices } from "./test-fixtures.ts";

/**
 * No byte input takes a reader down: truncated files, flipped bytes, random bytes, wrong
 * encodings, every register forced on every other register's file, broken zips. A file is either
 * refused with a reason or read with its accounts whole; the readers' last-resort catch ("internal
 * error") never fires.
 */

/** A small seeded generator (mulberry32): the same inputs on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sound(file: RegisterFile, what: string): void {
  const { report } = file;
  expect(report.refused ?? "", what).not.toMatch(/internal error/);
  if (report.refused !== null) {
    expect(file.blocks.length + file.networks.length + file.resources.length, what).toBe(0);
    return;
  }
  expect(report.rows.kept + report.rows.listed, what).toBe(report.rows.read);
  expect(report.listed.length, what).toBe(report.rows.listed);
  expect(file.blocks.length + file.networks.length + file.resources.length, what).toBe(report.rows.kept);
  for (const b of file.blocks) {
    expect(b.start.length === b.end.length && /^\d+$/.test(b.start) && /^\d+$/.test(b.end) && b.start <= b.end, `${what} line ${b.row}`).toBe(true);
    if (b.plan === "e164") expect(b.start.length, `${what} line ${b.row}`).toBeLessThanOrEqual(15);
  }
}

const inputs = slices.map((s) => ({ name: s.source, bytes: sliceOf(s.source) }));

/** Windows-1251 for Cyrillic text (the Russian register's older encoding): А–я, Ё, ё; ASCII as is. */
function toWindows1251(text: string): Buffer {
  const bytes: number[] = [];
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) bytes.push(c);
    else if (c >= 0x410 && c <= 0x44f) bytes.push(c - 0x410 + 0xc0);
    else if (c === 0x401) bytes.push(0xa8);
    else if (c === 0x451) bytes.push(0xb8);
    else if (c === 0xab) bytes.push(0xab);
    else if (c === 0xbb) bytes.push(0xbb);
    else if (c === 0x2116) bytes.push(0xb9);
    else if (c === 0xfeff) continue;
    else bytes.push(0x3f);
  }
  return Buffer.from(bytes);
}

const essentials = (f: RegisterFile) => f.blocks.map((b) => [b.start, b.end, b.status, b.holder, b.region]);

describe("no input takes the readers down", () => {
  it("every register forced on every file: refused with a reason, or read with whole accounts", () => {
    for (const input of inputs) {
      for (const format of REGISTER_IDS) {
        const file = readRegister(input.bytes, { format, fileName: input.name });
        sound(file, `${input.name} as ${format}`);
        expect(file.report.recognisedBy).toBe("format");
      }
    }
  });

  it("truncated files (at seeded offsets, some inside a multi-byte character)", () => {
    const next = random(30);
    for (const input of inputs) {
      for (let i = 0; i < 8; i++) {
        const cut = Math.floor(next() * input.bytes.length);
        sound(readRegister(input.bytes.subarray(0, cut)), `${input.name} cut at ${cut}`);
      }
    }
  });

  it("flipped bytes", () => {
    const next = random(31);
    for (const input of inputs) {
      for (let i = 0; i < 4; i++) {
        const bytes = Buffer.from(input.bytes);
        for (let k = 0; k < 24; k++) bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
        sound(readRegister(bytes), `${input.name} with flipped bytes (${i})`);
      }
    }
  });

  it("random bytes, alone and after a real header line", () => {
    const next = random(32);
    const noise = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(next() * 256)));
    for (let i = 0; i < 40; i++) sound(readRegister(noise(Math.floor(next() * 4096))), `noise ${i}`);
    for (const input of inputs) {
      const header = input.bytes.subarray(0, input.bytes.indexOf(0x0a) + 1);
      sound(readRegister(Buffer.concat([header, noise(2000)])), `${input.name}'s header and noise`);
      sound(readRegister(Buffer.concat([header, Buffer.from("\n\n\r\r;;;,,,\"\"\"\n")])), `${input.name}'s header and blank-ish lines`);
    }
    sound(readRegister(Buffer.concat([Buffer.from("PK\x03\x04"), noise(500)])), "a zip signature and noise");
    sound(readRegister(Buffer.from("[1, {}, null, {\"mcc\": 1}]"), { format: "intl-mcc-mnc-list" }), "odd JSON entries");
    sound(readRegister(Buffer.from('{"areas": {"x": 5, "y": [null, 7, {"mcc": "208"}]}}')), "odd ITU areas");
  });

  it("wrong encodings: the Russian register in Windows-1251, ARCEP's file saved as UTF-8, CNAC's as UTF-16: the same blocks, with a warning", () => {
    const ru = sliceOf("RU/DEF-9xx_2026-04.csv");
    const ruAs1251 = readRegister(toWindows1251(ru.toString("utf8")));
    sound(ruAs1251, "RU in windows-1251");
    expect(ruAs1251.report.encoding).toBe("windows-1251");
    expect(ruAs1251.report.warnings[0]).toMatchObject({ row: null, code: "encoding" });
    expect(essentials(ruAs1251)).toEqual(essentials(readRegister(ru)));

    const fr = sliceOf("FR/MAJNUM_2026-04-17.csv");
    const frAsUtf8 = readRegister(Buffer.from(fr.toString("latin1"), "utf8"));
    expect(frAsUtf8.report.encoding).toBe("utf-8");
    expect(frAsUtf8.report.warnings[0]).toMatchObject({ code: "encoding" });
    expect(essentials(frAsUtf8)).toEqual(essentials(readRegister(fr)));
    expect(frAsUtf8.blocks.some((b) => b.region === "Métropole")).toBe(true);

    const ca = sliceOf("CA/COCodeStatus_ALL_2025-09-12.csv");
    const caAsUtf16 = readRegister(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(ca.toString("utf8"), "utf16le")]));
    expect(caAsUtf16.report.encoding).toBe("utf-16le");
    expect(essentials(caAsUtf16)).toEqual(essentials(readRegister(ca)));
  });

  it("zips: broken, several files, a folder entry", () => {
    const ca = sliceOf("CA/COCodeStatus_ALL_2025-09-12.csv");
    const uk = sliceOf("UK/S7_2025-09-13.csv");
    const two = zipSync({ "COCodeStatus_ALL.csv": ca, "S7.csv": uk });
    expect(readRegister(two).report.refused).toMatch(/holds 2 files/);
    expect(readRegisters(two, { fileName: "two.zip" }).map((f) => [f.report.file, f.register])).toEqual([
      ["two.zip:COCodeStatus_ALL.csv", "ca-cnac-co-codes"],
      ["two.zip:S7.csv", "gb-ofcom-s7"],
    ]);
    const withFolder = zipSync({ "data/": {}, "data/COCodeStatus_ALL.csv": ca });
    expect(readRegister(withFolder).register).toBe("ca-cnac-co-codes");
    const broken = two.subarray(0, Math.floor(two.length / 2));
    expect(readRegister(broken).report.refused).toMatch(/not a readable zip/);
    sound(readRegister(broken), "a broken zip");
  });
});
