import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../errors.ts";
import type { MaterialisedDataset } from "./importers/demo.ts";
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

/** The dataset with every stored local source applied (unchanged when none is stored). */
export function withLocalSources(dataset: MaterialisedDataset, dataDir: string | undefined): MaterialisedDataset {
  if (!dataDir) return dataset;
  const dir = nanpaDir(dataDir);
  if (!existsSync(join(dir, CO_FILE))) return dataset;
  const co = { path: join(dir, CO_FILE), content: readFileSync(join(dir, CO_FILE)) };
  const blocks = existsSync(join(dir, BLOCKS_FILE)) ? { path: join(dir, BLOCKS_FILE), content: readFileSync(join(dir, BLOCKS_FILE)) } : null;
  return withNanpa(dataset, readNanpa(co, blocks));
}
