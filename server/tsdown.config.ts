import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
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
 *
 * One dependency is bundled: libphonenumber-js, as this workspace patches it
 * (patches/libphonenumber-js@*.patch, applied by pnpm at install). An installed package would
 * otherwise run the registry's unpatched copy, not the code the tests and benchmarks measured; bundled,
 * it runs exactly that (tests/release checks it). The installed copy beside it still provides the
 * metadata files the reference import reads and checksums, which the patch does not touch.
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

/** The patched dependencies bundled into dist, each with the sha256 of its patch file (the release test compares). */
function bundledPatches(): Record<string, { version: string; patch: string }> {
  const workspace = JSON.parse(readFileSync(join(root, "../package.json"), "utf8")) as { pnpm?: { patchedDependencies?: Record<string, string> } };
  return Object.fromEntries(
    Object.entries(workspace.pnpm?.patchedDependencies ?? {}).map(([spec, file]) => {
      const at = spec.lastIndexOf("@");
      return [spec.slice(0, at), { version: spec.slice(at + 1), patch: createHash("sha256").update(readFileSync(join(root, "..", file))).digest("hex") }];
    }),
  );
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
  noExternal: [/^libphonenumber-js(\/|$)/],
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
    writeFileSync(
      join(root, "dist/build-info.json"),
      JSON.stringify({ version: pkg.version, commit: gitCommit() || null, sourceDigest: sourceDigest(join(root, "src")), bundled: bundledPatches() }, null, 2) + "\n",
    );
  },
});
