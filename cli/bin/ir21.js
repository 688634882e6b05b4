#!/usr/bin/env node
// Runs the CLI from its bundle (dist/main.mjs, built by `pnpm install` and by the test command) when
// the bundle is current, else from the TypeScript sources through tsx, so an edited checkout needs no
// build step and never runs stale code. IR21_CLI_FROM_SOURCE=1 forces the sources.
import { fileURLToPath } from "node:url";
import { bundleIsCurrent } from "./launch.js";

const at = (path) => fileURLToPath(new URL(path, import.meta.url));

// `ir21 … | head` closes the pipe early: that is the reader's choice, not a failure to report.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

const fromBundle =
  process.env.IR21_CLI_FROM_SOURCE !== "1" &&
  bundleIsCurrent(at("../dist/main.mjs"), { sourceDirs: [at("../src"), at("../../sdk/src")], files: [at("../package.json")] });
let main;
if (fromBundle) {
  ({ main } = await import("../dist/main.mjs"));
} else {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import("../src/main.ts"));
}
process.exitCode = await main(process.argv.slice(2));
