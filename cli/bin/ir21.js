#!/usr/bin/env node
// Runs the CLI from its TypeScript sources (tsx compiles on load), so a checkout needs no build step.
import { register } from "tsx/esm/api";

register();
// `ir21 … | head` closes the pipe early: that is the reader's choice, not a failure to report.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv.slice(2));
