#!/usr/bin/env node
// Imports each register file of a folder, one at a time, into a fresh SQLite database with the real
// command (`ir21-server import registers <file> --date <its date>`), and reads the import report's
// "silent drops: N" lines: the reader's (rows read − kept − listed) and, for the MCC/MNC files, the
// catalogue's (entries − networks made, updated, confirmed, merged, IMSI blocks, listed). Prints one
// line a file and exits 1 when any count is not 0 or an import fails (docs/catalog.md "Networks from
// the MCC/MNC sources"). A manual check: the test suite never reads the shared folder.
//
//   node scripts/registers/check-silent-drops.js ../shared/registers
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(process.argv[2] ?? "../shared/registers");
const cli = join(dirname(fileURLToPath(import.meta.url)), "../../server/bin/ir21-server.js");

const files = (dir) =>
  readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return files(path);
      return /\.md$/i.test(name) ? [] : [path];
    });

/** The download's date from the name (`_2025-09-13`, `_2023-07` → the 1st) or the folder (`2026-04-20/`). */
function dateOf(path) {
  const named = /_(\d{4}-\d{2}(?:-\d{2})?)\./.exec(basename(path))?.[1] ?? /(\d{4}-\d{2}-\d{2})$/.exec(dirname(path))?.[1];
  if (!named) return null;
  return named.length === 7 ? `${named}-01` : named;
}

let failed = 0;
for (const path of files(root)) {
  const dir = mkdtempSync(join(tmpdir(), "ir21-drops-"));
  const date = dateOf(path);
  const run = spawnSync(process.execPath, [cli, "import", "registers", path, ...(date ? ["--date", date] : [])], {
    env: { ...process.env, DATABASE_URL: `file:${join(dir, "check.sqlite")}`, DATA_DIR: dir },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  rmSync(dir, { recursive: true, force: true });
  const output = `${run.stdout}\n${run.stderr}`;
  const readerDrops = [...output.matchAll(/^ {2}silent drops: (-?\d+)$/gm)].map((m) => Number(m[1]));
  const name = basename(path).replace(/\.(json|csv|zip)$/, "");
  const networkDrops = [...output.matchAll(/^ {2}(\S+) \(([^)]+)\): \d+ entr.*silent drops: (-?\d+)$/gm)].filter((m) => name.startsWith(m[2].replace(/\.(json|csv)$/, "")) || m[2].startsWith(name)).map((m) => Number(m[3]));
  const drops = [...readerDrops, ...networkDrops];
  const ok = run.status === 0 && readerDrops.length > 0 && drops.every((n) => n === 0);
  if (!ok) failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${relative(root, path)}: silent drops ${drops.length ? drops.join(" + ") : "?"}${run.status === 0 ? "" : ` (exit ${run.status}: ${output.trim().split("\n").slice(-3).join(" | ")})`}`);
}
process.exit(failed ? 1 : 0);
