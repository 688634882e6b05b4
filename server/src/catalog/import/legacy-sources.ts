import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/db.ts";
import type { Logger } from "../../log.ts";
import { AppError } from "../../errors.ts";
import { digestOf, RESOURCE_LANGUAGES, type ResourceFiles } from "./importers/libphonenumber-files.ts";
import { adoptSourceSet, currentSourceSet, type SourceKind, type SourceSet } from "./source-sets.ts";

/**
 * The upgrade path from the versions that kept loaded source files in one machine's
 * DATA_DIR/catalog-sources/ (docs/catalog.md "Loaded source files"): the first import (manual or
 * scheduled) or server start that finds the database without a choice for a kind, and such files in
 * its own DATA_DIR, stores them in the database as the current set. From then on the database decides;
 * the folder is no longer read and can be deleted. An instance without the files adopts nothing, so
 * an instance that has them still can.
 */

export interface LegacyDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  config: { dataDir?: string };
}

export const CO_FILE = "central-office-codes.txt";
export const BLOCKS_FILE = "thousands-blocks.txt";

/** DATA_DIR/catalog-sources/nanpa/: the code report and, when loaded, the block report. */
function legacyNanpa(dataDir: string): SourceSet | null {
  const dir = join(dataDir, "catalog-sources", "nanpa");
  if (!existsSync(join(dir, CO_FILE))) return null;
  const files = new Map([[CO_FILE, readFileSync(join(dir, CO_FILE))]]);
  if (existsSync(join(dir, BLOCKS_FILE))) files.set(BLOCKS_FILE, readFileSync(join(dir, BLOCKS_FILE)));
  return { kind: "nanpa", digest: digestOf(files), version: null, release: null, files };
}

/**
 * DATA_DIR/catalog-sources/libphonenumber/: `current.json` ({digest, version, release}) naming
 * `sets/<digest>/`, its files as under resources/. A pointer naming no readable set, or files that no
 * longer match their digest, are refused: falling back to the packaged data would silently undo the
 * operator's load. `import carriers` (a path, or --reset) chooses anew and ends the refusals.
 */
function legacyCarriers(dataDir: string): SourceSet | null {
  const root = join(dataDir, "catalog-sources", "libphonenumber");
  const pointer = join(root, "current.json");
  if (!existsSync(pointer)) return null;
  const refuse = (why: string) => new AppError("INVALID_DATASET", `${pointer} ${why}; run ir21-server import carriers again, or with --reset`);
  let named: { digest?: unknown; version?: unknown; release?: unknown };
  try {
    named = JSON.parse(readFileSync(pointer, "utf8"));
  } catch {
    throw refuse("names no readable set of libphonenumber files");
  }
  const digest = String(named.digest);
  const dir = join(root, "sets", digest);
  if (!/^[0-9a-f]{64}$/.test(digest) || !existsSync(dir)) throw refuse("names no readable set of libphonenumber files");
  const files: ResourceFiles = new Map();
  for (const kind of ["carrier", "geocoding"]) {
    for (const language of RESOURCE_LANGUAGES) {
      const folder = join(dir, kind, language);
      if (!existsSync(folder)) continue;
      for (const name of readdirSync(folder).sort()) files.set(`${kind}/${language}/${name}`, readFileSync(join(folder, name)));
    }
  }
  const zones = join(dir, "timezones", "map_data.txt");
  if (existsSync(zones)) files.set("timezones/map_data.txt", readFileSync(zones));
  if (digestOf(files) !== digest) throw refuse(`names files that were changed on disk (checksum mismatch in ${dir})`);
  const release = typeof named.release === "string" ? named.release : null;
  return { kind: "libphonenumber", digest, version: typeof named.version === "string" ? named.version : release ?? `sha256:${digest.slice(0, 16)}`, release, files };
}

/** The kinds older versions kept in DATA_DIR (registers came after: always in the database). */
const READERS: Record<"libphonenumber" | "nanpa", (dataDir: string) => SourceSet | null> = { libphonenumber: legacyCarriers, nanpa: legacyNanpa };

/** Adopts this instance's DATA_DIR files for each kind the database has no choice for yet. */
export async function adoptLegacySources(deps: LegacyDeps): Promise<void> {
  const dataDir = deps.config.dataDir;
  if (!dataDir || !existsSync(join(dataDir, "catalog-sources"))) return;
  for (const kind of Object.keys(READERS) as Array<keyof typeof READERS>) {
    if ((await currentSourceSet(deps.db, kind)) !== undefined) continue;
    const set = READERS[kind](dataDir);
    if (set && (await adoptSourceSet(deps.db, deps.clock, set))) {
      deps.log.info({ kind, digest: set.digest, version: set.version, data_dir: dataDir }, "loaded source files moved from DATA_DIR/catalog-sources into the database");
    }
  }
}
