#!/usr/bin/env node
// The server runs from its TypeScript sources: tsx compiles on load, so a checkout
// needs no build step and stack traces point at the real files.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/main.ts");
await main(process.argv.slice(2));
