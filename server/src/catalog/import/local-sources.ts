import { existsSync, readFileSync } from "node:fs";
import type { Db } from "../../db/db.ts";
import { AppError } from "../../errors.ts";
import type { MaterialisedDataset } from "./importers/demo.ts";
import { digestOf, type ResourceSet } from "./importers/libphonenumber-files.ts";
import type { ImportedCarrierData } from "./importers/reference.ts";
import { readNanpa, withNanpa, type NanpaFile, type NanpaRanges } from "./importers/nanpa.ts";
import { adoptLegacySources, BLOCKS_FILE, CO_FILE, type LegacyDeps } from "./legacy-sources.ts";
import { clearSourceSet, currentSourceSet, readCurrentSourceSet, storeSourceSet, type SourceSet, type SourceSetInfo } from "./source-sets.ts";

/**
 * Source files an operator loads into this installation (docs/catalog.md "Loaded source files"):
 * NANPA's reports (`import nanpa`) and a libphonenumber release's resource files (`import carriers`).
 * Only files that passed validation are stored, in the database (source-sets.ts), so every later
 * reference, mixed or demo import, on whichever instance it runs, still includes them (a re-import
 * without them would remove their ranges), and every instance's lookups read the same geo data.
 */

export type LocalSourceDeps = LegacyDeps;

function readInput(path: string): NanpaFile {
  if (!existsSync(path)) throw new AppError("INVALID_DATASET", `${path}: no such file`);
  return { path, content: readFileSync(path) };
}

/**
 * Validates and stores NANPA's reports as the set in use (replacing earlier ones); without a block
 * report, an earlier one is no longer used.
 */
export async function storeNanpa(deps: LocalSourceDeps, coPath: string, blocksPath: string | null): Promise<void> {
  const co = readInput(coPath);
  const blocks = blocksPath ? readInput(blocksPath) : null;
  const nanpa = readNanpa(co, blocks); // throws INVALID_DATASET listing every problem; nothing is stored then
  // Stored under fixed names: the source's file list names them so, whatever the input files were called.
  const files = new Map([[CO_FILE, co.content]]);
  if (blocks) files.set(BLOCKS_FILE, blocks.content);
  await storeSourceSet(deps.db, deps.clock, { kind: "nanpa", digest: digestOf(files), version: nanpa.source.version, release: null, files });
}

/** The NANPA set as the importer reads it (as stored: validated then). */
function nanpaOf(set: SourceSet): NanpaRanges {
  const file = (name: string) => (set.files.has(name) ? { path: name, content: set.files.get(name)! } : null);
  return readNanpa(file(CO_FILE)!, file(BLOCKS_FILE));
}

// --- libphonenumber resource files (import carriers) ------------------------------------------------

/** The libphonenumber set in use (its description), or null: the packaged data. */
export async function currentCarrierSet(db: Db): Promise<SourceSetInfo | null> {
  return (await currentSourceSet(db, "libphonenumber")) ?? null;
}

/** The libphonenumber set in use with its files (keyed as under resources/), or null: the packaged data. */
export async function currentCarrierFiles(db: Db): Promise<SourceSet | null> {
  return (await readCurrentSourceSet(db, "libphonenumber")) ?? null;
}

/** Stores a validated set and makes it the one in use (replacing an earlier one). */
export async function storeCarrierSet(deps: LocalSourceDeps, set: ResourceSet): Promise<void> {
  await storeSourceSet(deps.db, deps.clock, { kind: "libphonenumber", digest: set.digest, version: set.version, release: set.release, files: set.files });
}

/** Goes back to the packaged data; returns the set that was in use, or null. */
export async function resetCarrierSet(deps: LocalSourceDeps): Promise<SourceSetInfo | null> {
  return (await clearSourceSet(deps.db, deps.clock, "libphonenumber")) ?? null;
}

// --- imports ---------------------------------------------------------------------------------------

/** What the loaded files contribute to an import. */
export interface LocalSources {
  /** Replaces the packaged carrier data of reference and mixed imports. */
  carriers: ImportedCarrierData | null;
  /** Added to reference, mixed and demo imports. */
  nanpa: NanpaRanges | null;
}

export const NO_LOCAL_SOURCES: LocalSources = { carriers: null, nanpa: null };

/** The loaded files in use, from the database (adopting an older version's DATA_DIR files first). */
export async function loadLocalSources(deps: LocalSourceDeps): Promise<LocalSources> {
  await adoptLegacySources(deps);
  const [carriers, nanpa] = [await readCurrentSourceSet(deps.db, "libphonenumber"), await readCurrentSourceSet(deps.db, "nanpa")];
  return {
    carriers: carriers ? { files: carriers.files, version: carriers.version ?? `sha256:${carriers.digest.slice(0, 16)}`, release: carriers.release } : null,
    nanpa: nanpa ? nanpaOf(nanpa) : null,
  };
}

/** The dataset with the loaded NANPA ranges applied (unchanged when none are loaded). */
export function withLocalSources(dataset: MaterialisedDataset, local: LocalSources): MaterialisedDataset {
  return local.nanpa ? withNanpa(dataset, local.nanpa) : dataset;
}
