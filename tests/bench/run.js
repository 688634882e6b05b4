#!/usr/bin/env node
// `pnpm bench [name…]`: runs each tests/bench/<name>.bench.ts and <name>-*.bench.ts (all of them when
// no name is given): `pnpm bench lookup` runs lookup and lookup-batch.
// A benchmark module exports `run(): Promise<BenchReport>`; figures are reported as ratios against a
// baseline measured in the same run, never asserted against wall-clock thresholds.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { register } from "tsx/esm/api";

register();
const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => wanted.length === 0 || wanted.some((name) => f === `${name}.bench.ts` || f.startsWith(`${name}-`)))
  .sort((a, b) => a.length - b.length || a.localeCompare(b));
if (files.length === 0) {
  console.error(`No benchmark matches ${wanted.join(", ") || "(none exist yet)"}`);
  process.exit(1);
}
for (const file of files) {
  const { run } = await import(pathToFileURL(join(here, file)).href);
  console.log(`\n## ${file.replace(/\.bench\.ts$/, "")}`);
  const report = await run();
  console.log(JSON.stringify(report, null, 2));
}
