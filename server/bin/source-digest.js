// The digest of the server's TypeScript sources (non-test .ts files under src/, paths and contents),
// shared by the build (tsdown.config.ts writes it into dist/build-info.json) and the launcher
// (bin/ir21-server.js runs the bundle only when it was built from the sources beside it). Content,
// not modification times: npm and git reset those.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** @param {string} srcDir @returns {string} */
export function sourceDigest(srcDir) {
  const hash = createHash("sha256");
  const files = readdirSync(srcDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts"))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) {
    hash.update(relative(srcDir, file).split("\\").join("/"));
    hash.update("\0");
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex");
}
