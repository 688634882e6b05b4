import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "tsdown";
import { sourceDigest } from "./bin/source-digest.js";

/**
 * The server as a release (docs/operations.md "The release"): one ESM bundle for Node 20 of src/ with
 * the npm dependencies left external (installed beside it; better-sqlite3 is native), the version
 * and commit compiled in, and the files it serves copied next to it: the web console's build
 * (dist/web) and Redoc's standalone bundle (dist/docs). bin/ir21-server.js runs it.
 */
const root = dirname(fileURLToPath(import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };

function gitCommit(): string {
  if (process.env.IR21_COMMIT) return process.env.IR21_COMMIT;
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return ""; // not a checkout: the version alone
  }
}

export default defineConfig({
  entry: { main: "src/app/main.ts" },
  format: "esm",
  platform: "node",
  target: "node20.19",
  outDir: "dist",
  fixedExtension: true,
  clean: true,
  dts: false,
  sourcemap: true,
  define: {
    __IR21_VERSION__: JSON.stringify(pkg.version),
    __IR21_COMMIT__: JSON.stringify(gitCommit()),
  },
  onSuccess() {
    const web = join(root, "../web/dist");
    if (existsSync(join(web, "index.html"))) cpSync(web, join(root, "dist/web"), { recursive: true });
    else console.warn("web/dist not built: the bundle serves no console until WEB_DIST_DIR points at a build");
    mkdirSync(join(root, "dist/docs"), { recursive: true });
    const redoc = createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js");
    cpSync(redoc, join(root, "dist/docs/redoc.standalone.js"));
    cpSync(join(dirname(redoc), "redoc.standalone.js.LICENSE.txt"), join(root, "dist/docs/redoc.standalone.js.LICENSE.txt"));
    writeFileSync(join(root, "dist/build-info.json"), JSON.stringify({ version: pkg.version, commit: gitCommit() || null, sourceDigest: sourceDigest(join(root, "src")) }, null, 2) + "\n");
  },
});
