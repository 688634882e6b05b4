#!/usr/bin/env node
// Which code runs (docs/operations.md "The release"):
// - the bundle (dist/main.mjs, built by `pnpm -F @ir21/server build`) when it exists and either no
//   sources are beside it (an installed package) or it was built from exactly these sources (the
//   digest in dist/build-info.json matches src/: a checkout whose sources changed since the build never
//   runs stale code);
// - otherwise, or when IR21_DEV=1, the TypeScript sources through tsx (development: no build step,
//   stack traces point at the real files).
// Before either, `.env` (or IR21_ENV_FILE) is loaded under the variables already set (env-file.js).
import { existsSync, readFileSync } from "node:fs";
import { EnvFileError, loadEnvFile } from "./env-file.js";

// As PID 1 (a container's command, without an init) the kernel gives node no default action for a
// signal it has no handler for: a SIGTERM before `serve` installs its graceful stop (during the first
// start's import, say) would be ignored and lost. Until a command installs its own handler, a signal
// then ends the process as the default action does elsewhere (exit 128 + its number); once there is
// one, this one steps aside. JavaScript handlers run between tasks, so a signal arriving during a long
// synchronous step takes effect after it. Elsewhere the default action is left alone.
if (process.pid === 1) {
  for (const [signal, number] of [["SIGTERM", 15], ["SIGINT", 2]]) {
    process.on(signal, () => {
      if (process.listenerCount(signal) === 1) process.exit(128 + number);
    });
  }
}

try {
  loadEnvFile();
} catch (error) {
  if (!(error instanceof EnvFileError)) throw error;
  console.error(`ir21-server: ${error.message}`);
  process.exit(78); // EX_CONFIG, as for an invalid variable
}

const dist = new URL("../dist/main.mjs", import.meta.url);
const src = new URL("../src/", import.meta.url);

async function useBundle() {
  if (process.env.IR21_DEV === "1" || !existsSync(dist)) return false;
  if (!existsSync(src)) return true;
  try {
    const info = JSON.parse(readFileSync(new URL("../dist/build-info.json", import.meta.url), "utf8"));
    const { sourceDigest } = await import("./source-digest.js");
    return info.sourceDigest === sourceDigest(src.pathname);
  } catch {
    return false;
  }
}

// `--version` answers without loading the server: from the build's record, else package.json.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  const read = (path) => JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));
  const bundled = (await useBundle()) ? read("../dist/build-info.json") : null;
  const commit = (bundled ? bundled.commit : process.env.IR21_COMMIT) || "";
  const shown = /^[0-9a-f]{7,40}$/.test(commit) ? ` (commit ${commit.slice(0, 12)})` : "";
  console.log(`ir21-server ${bundled ? bundled.version : read("../package.json").version}${shown}`);
  process.exit(0);
}

let main;
if (await useBundle()) {
  ({ main } = await import(dist.href));
} else if (existsSync(src)) {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import("../src/app/main.ts"));
} else {
  console.error("ir21-server: neither dist/main.mjs nor src/ found; reinstall the package");
  process.exit(70); // EX_SOFTWARE
}
await main(args);
