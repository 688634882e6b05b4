#!/usr/bin/env node
// `pnpm release:pack`: builds the three published packages and writes their tarballs to one folder
// (release/ by default), as `pnpm pack` makes them (workspace: versions resolved, publishConfig
// applied). Usage: node scripts/release-pack.js [--out DIR] [--skip-build]
//   --skip-build  pack what is built already, with lifecycle scripts off (the server's prepack would
//                 rebuild it): the tests build first, and must not rebuild a bundle other tests are running.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const outIndex = args.indexOf("--out");
const out = resolve(outIndex >= 0 ? args[outIndex + 1] : join(root, "release"));
const skipBuild = args.includes("--skip-build");

/** The packages released, in dependency order (the CLI bundles the SDK). */
const PACKAGES = [
  { name: "@ir21/sdk", dir: "sdk" },
  { name: "@ir21/cli", dir: "cli" },
  { name: "@ir21/server", dir: "server" },
];

const env = skipBuild ? { ...process.env, npm_config_ignore_scripts: "true" } : process.env;
const pnpm = (cwd, ...argv) => execFileSync("pnpm", argv, { cwd, env, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });

mkdirSync(out, { recursive: true });
for (const entry of readdirSync(out)) if (entry.endsWith(".tgz")) rmSync(join(out, entry));

for (const { name, dir } of PACKAGES) {
  const cwd = join(root, dir);
  const manifest = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8"));
  // Without --skip-build each package is built first (the server's prepack builds it again, with the console).
  if (!skipBuild && manifest.scripts?.build) pnpm(cwd, "run", "build");
  pnpm(cwd, "pack", "--pack-destination", out);
  process.stderr.write(`packed ${name}@${manifest.version}\n`);
}

for (const entry of readdirSync(out).filter((f) => f.endsWith(".tgz")).sort()) {
  process.stdout.write(`${join(out, entry)}\t${statSync(join(out, entry)).size}\n`);
}
