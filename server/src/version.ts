import { readFileSync } from "node:fs";

/**
 * The server's release identity: its package version, and the git commit it was built from when known
 * (docs/operations.md "Version"). The bundle gets both at build time (tsdown.config.ts `define`); a
 * checkout run through tsx reads package.json and takes the commit from IR21_COMMIT when set.
 */
declare const __IR21_VERSION__: string | undefined;
declare const __IR21_COMMIT__: string | undefined;

function packageVersion(): string {
  if (typeof __IR21_VERSION__ === "string") return __IR21_VERSION__;
  // src/version.ts → server/package.json
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

const commitPattern = /^[0-9a-f]{7,40}$/;

function buildCommit(): string | null {
  const built = typeof __IR21_COMMIT__ === "string" ? __IR21_COMMIT__ : "";
  const commit = built || process.env.IR21_COMMIT || "";
  return commitPattern.test(commit) ? commit.slice(0, 12) : null;
}

export const VERSION: string = packageVersion();
export const COMMIT: string | null = buildCommit();

/** `0.1.0` or `0.1.0+3f2c9a1b7d0e`: the X-IR21-Version header and the `--version` line. */
export const VERSION_LABEL = COMMIT ? `${VERSION}+${COMMIT}` : VERSION;

/** "bundle" when running the release build (dist/*.mjs), "source" when tsx runs src/ (the start log says which). */
export const RUNTIME: "bundle" | "source" = import.meta.url.endsWith(".mjs") ? "bundle" : "source";
