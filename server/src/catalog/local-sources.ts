import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { AppError } from "../errors.ts";
import type { MaterialisedDataset } from "./importers/demo.ts";
import { digestOf, RESOURCE_LANGUAGES, type ResourceFiles, type ResourceSet } from "./importers/libphonenumber-files.ts";
import type { ImportedCarrierData } from "./importers/reference.ts";
import { readNanpa, withNanpa, type NanpaFile } from "./importers/nanpa.ts";

/**
 * Source files an operator loads into this installation (docs/catalog.md "NANP coverage"): kept under
 * DATA_DIR/catalog-sources/ so every later reference, mixed or demo import still includes them (a
 * re-import without them would remove their ranges). Only files that passed validation are stored.
 */

const nanpaDir = (dataDir: string) => join(dataDir, "catalog-sources", "nanpa");
const CO_FILE = "central-office-codes.txt";
const BLOCKS_FILE = "thousands-blocks.txt";

function readInput(path: string): NanpaFile {
  if (!existsSync(path)) throw new AppError("INVALID_DATASET", `${path}: no such file`);
  return { path, content: readFileSync(path) };
}

/** Validates and stores NANPA's reports (replacing earlier ones); without a block report, an earlier one is removed. */
export function storeNanpa(dataDir: string, coPath: string, blocksPath: string | null): void {
  const co = readInput(coPath);
  const blocks = blocksPath ? readInput(blocksPath) : null;
  readNanpa(co, blocks); // throws INVALID_DATASET listing every problem; nothing is stored then
  const dir = nanpaDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const put = (name: string, content: Buffer) => {
    // Write then rename: a reader never sees half a file.
    writeFileSync(join(dir, `${name}.tmp`), content);
    renameSync(join(dir, `${name}.tmp`), join(dir, name));
  };
  put(CO_FILE, co.content);
  if (blocks) put(BLOCKS_FILE, blocks.content);
  else rmSync(join(dir, BLOCKS_FILE), { force: true });
}

// --- libphonenumber resource files (import carriers) ------------------------------------------------

/**
 * DATA_DIR/catalog-sources/libphonenumber/: `sets/<digest>/` holds one validated set of resource files
 * (`carrier/en/86.txt` …, as under the release's resources/), `current.json` names the set in use.
 * A set is written under a temporary name and renamed into place, then the pointer is replaced by
 * rename: a reader (the lookup's geocoding in a serving process) never sees half a set. The set that
 * was current before stays on disk until the next store, for a process still reading it.
 */
const carriersDir = (dataDir: string) => join(dataDir, "catalog-sources", "libphonenumber");
const POINTER = "current.json";

export interface StoredCarrierSet {
  /** The set's folder (its files as under resources/). */
  dir: string;
  digest: string;
  version: string;
  release: string | null;
}

function writeAtomically(path: string, content: string | Buffer): void {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  writeFileSync(tmp, content);
  renameSync(tmp, path);
}

/**
 * The set in use, or null (the packaged data). A pointer naming no readable set also reads as null
 * here (the lookups then answer from the package); an import refuses it (storedCarrierData).
 */
export function storedCarrierSet(dataDir: string | undefined): StoredCarrierSet | null {
  if (!dataDir) return null;
  const pointer = join(carriersDir(dataDir), POINTER);
  if (!existsSync(pointer)) return null;
  try {
    const { digest, version, release } = JSON.parse(readFileSync(pointer, "utf8")) as Omit<StoredCarrierSet, "dir">;
    const dir = join(carriersDir(dataDir), "sets", String(digest));
    return /^[0-9a-f]{64}$/.test(String(digest)) && existsSync(dir) ? { dir, digest, version, release } : null;
  } catch {
    return null;
  }
}

/** Reads a stored set's files back (they were validated when stored), keyed as under resources/. */
export function readCarrierSet(set: StoredCarrierSet): ResourceFiles {
  const files: ResourceFiles = new Map();
  for (const kind of ["carrier", "geocoding"]) {
    for (const language of RESOURCE_LANGUAGES) {
      const dir = join(set.dir, kind, language);
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir).sort()) files.set(`${kind}/${language}/${name}`, readFileSync(join(dir, name)));
    }
  }
  const zones = join(set.dir, "timezones", "map_data.txt");
  if (existsSync(zones)) files.set("timezones/map_data.txt", readFileSync(zones));
  if (digestOf(files) !== set.digest) throw new AppError("INVALID_DATASET", `${set.dir}: the stored libphonenumber files were changed on disk (checksum mismatch); run ir21-server import carriers again, or with --reset`);
  return files;
}

/** The stored set's files for the reference importer, or null (the packaged data is used). */
export function storedCarrierData(dataDir: string | undefined): ImportedCarrierData | null {
  const set = storedCarrierSet(dataDir);
  if (!set && dataDir && existsSync(join(carriersDir(dataDir), POINTER))) {
    // Never fall back to the packaged data silently: that would undo the operator's load.
    throw new AppError("INVALID_DATASET", `${join(carriersDir(dataDir), POINTER)} names no readable set of libphonenumber files; run ir21-server import carriers again, or with --reset`);
  }
  return set ? { files: readCarrierSet(set), version: set.version, release: set.release } : null;
}

/** Removes every stored set except those named. */
function pruneSets(dataDir: string, keep: Set<string>): void {
  const sets = join(carriersDir(dataDir), "sets");
  if (!existsSync(sets)) return;
  for (const name of readdirSync(sets)) if (!keep.has(name) && !name.includes(".tmp-")) rmSync(join(sets, name), { recursive: true, force: true });
}

/** Stores a validated set and makes it the one in use (replacing an earlier one). */
export function storeCarrierSet(dataDir: string, set: ResourceSet): StoredCarrierSet {
  const root = carriersDir(dataDir);
  const previous = storedCarrierSet(dataDir);
  const dir = join(root, "sets", set.digest);
  if (!existsSync(dir)) {
    const tmp = `${dir}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
    for (const [path, content] of set.files) {
      mkdirSync(dirname(join(tmp, path)), { recursive: true });
      writeFileSync(join(tmp, path), content);
    }
    try {
      renameSync(tmp, dir);
    } catch (error) {
      // Another import stored the same set meanwhile: same digest, same files.
      rmSync(tmp, { recursive: true, force: true });
      if (!existsSync(dir)) throw error;
    }
  }
  writeAtomically(join(root, POINTER), JSON.stringify({ digest: set.digest, version: set.version, release: set.release }, null, 2));
  pruneSets(dataDir, new Set([set.digest, ...(previous ? [previous.digest] : [])]));
  return { dir, digest: set.digest, version: set.version, release: set.release };
}

/** Goes back to the packaged data: the pointer is removed (the last set stays until the next store). */
export function resetCarrierSet(dataDir: string): StoredCarrierSet | null {
  const previous = storedCarrierSet(dataDir);
  rmSync(join(carriersDir(dataDir), POINTER), { force: true });
  pruneSets(dataDir, new Set(previous ? [previous.digest] : []));
  return previous;
}

/** The dataset with every stored local source applied (unchanged when none is stored). */
export function withLocalSources(dataset: MaterialisedDataset, dataDir: string | undefined): MaterialisedDataset {
  if (!dataDir) return dataset;
  const dir = nanpaDir(dataDir);
  if (!existsSync(join(dir, CO_FILE))) return dataset;
  const co = { path: join(dir, CO_FILE), content: readFileSync(join(dir, CO_FILE)) };
  const blocks = existsSync(join(dir, BLOCKS_FILE)) ? { path: join(dir, BLOCKS_FILE), content: readFileSync(join(dir, BLOCKS_FILE)) } : null;
  return withNanpa(dataset, readNanpa(co, blocks));
}
