#!/usr/bin/env node
// Runs the CLI from its TypeScript sources (tsx compiles on load), so a checkout needs no build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv.slice(2));
