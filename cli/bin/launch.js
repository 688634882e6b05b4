// Which build of the CLI a run uses, in plain JavaScript so it needs no compiler.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Newest modification time (ms) of the files under `dir` that go into the bundle (tests do not); 0 when `dir` is absent. */
function newestSourceMtime(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  let newest = 0;
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts")) continue;
    newest = Math.max(newest, statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * True when `bundle` exists and is at least as new as every input: the source directories' .ts files
 * and the listed files (package.json, whose version the bundle inlines). A checkout whose sources were
 * edited, pulled or switched after the last build then runs from source instead of stale code. Where
 * the sources are absent (an installed package ships only the bundle), the bundle is current.
 */
export function bundleIsCurrent(bundle, { sourceDirs, files = [] }) {
  let built;
  try {
    built = statSync(bundle).mtimeMs;
  } catch {
    return false;
  }
  const inputs = [...sourceDirs.map(newestSourceMtime), ...files.map((file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0)];
  return inputs.every((mtime) => mtime <= built);
}
