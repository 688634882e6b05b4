// `pnpm env:example`: writes .env.example at the repository root from the configuration reference
// (server/src/config-reference.ts: every variable the server reads, its default and meaning).
// Usage (from server/, whose tsx runs it): node --import tsx ../scripts/env-example.ts [--check]
//   --check  write nothing; exit 1 when .env.example differs from what would be written
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderEnvExample } from "../server/src/config-reference.ts";

const target = fileURLToPath(new URL("../.env.example", import.meta.url));
const text = renderEnvExample();
if (process.argv.includes("--check")) {
  if (!existsSync(target) || readFileSync(target, "utf8") !== text) {
    console.error(".env.example is stale: run `pnpm env:example`");
    process.exit(1);
  }
  console.log(".env.example is current");
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
