/**
 * Issue 3 benchmark: import + diff of a synthetic 1,000,000-range dataset against a previous version
 * with 1 % of the ranges changed (0.5 % updated, 0.25 % removed, 0.25 % added), on SQLite and (when
 * reachable) MariaDB/MySQL. Targets: under 30 s and under 1 GiB peak RSS on SQLite.
 *
 * Each measured step runs in its own child process so its peak RSS is its own: `seed` imports version
 * A into a fresh database, `diff` imports version B over it. The baseline, measured in the same run, is
 * generating and hashing the same 1,000,000 candidate records without a database.
 *
 * Run: `pnpm bench catalog-import` (set BENCH_RANGES to change the size).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { ManualClock } from "../../server/src/clock.ts";
import { openDatabase } from "../../server/src/db/db.ts";
import { migrateToLatest } from "../../server/src/db/migrate.ts";
import { importDataset } from "../../server/src/catalog/import/import.ts";
import { csvExport } from "../../server/src/catalog/exports/snapshot.ts";
import { currentVersion } from "../../server/src/catalog/model/versions.ts";
import { DEMO_SOURCE } from "../../server/src/catalog/import/importers/demo.ts";
import type { CandidateDataset, NumberRangeRecord, OperatorRecord, NetworkRecord } from "../../server/src/catalog/model/records.ts";
import { createTestDatabase, type TestTarget } from "../../server/testing/databases.ts";

const RANGES = Number(process.env.BENCH_RANGES ?? 1_000_000);
const OPERATORS = 100;

function* ranges(variant: "a" | "b"): Generator<NumberRangeRecord> {
  for (let i = 0; i < RANGES; i++) {
    const bucket = i % 400;
    // b: 0.25 % removed (bucket 0), 0.5 % updated (buckets 1-2), and 0.25 % added (below).
    if (variant === "b" && bucket === 0) continue;
    const updated = variant === "b" && (bucket === 1 || bucket === 2);
    const digits = `99${String(i).padStart(8, "0")}`;
    yield {
      id: `e164-${digits}`,
      plan: "e164",
      kind: "mobile",
      country_iso2: "CN",
      prefix: digits,
      start: null,
      end: null,
      mcc: null,
      mnc: null,
      operator_id: `cn.bench-${(i + (updated ? 1 : 0)) % OPERATORS}`,
      network_id: null,
      range_holder: `Bench Operator ${(i + (updated ? 1 : 0)) % OPERATORS}`,
      range_holder_local: null,
      source: "demo",
      source_date: null,
      status: null,
      range_holder_id: null,
    };
  }
  if (variant === "b") {
    for (let i = 0; i < RANGES / 400; i++) {
      const digits = `98${String(i).padStart(8, "0")}`;
      yield { id: `e164-${digits}`, plan: "e164", kind: "mobile", country_iso2: "CN", prefix: digits, start: null, end: null, mcc: null, mnc: null, operator_id: null, network_id: null, range_holder: "New Holder", range_holder_local: null, source: "demo", source_date: null, status: null, range_holder_id: null };
    }
  }
}

function candidate(variant: "a" | "b"): CandidateDataset {
  const operators: OperatorRecord[] = Array.from({ length: OPERATORS }, (_, i) => ({
    id: `cn.bench-${i}`, country_iso2: "CN", name: `Bench Operator ${i}`, name_local: null, brand: null, tadig: null, status: "active", successor_id: null, lineage: null, listed: true, territories: ["CN"], register_ids: [], source: "demo",
  }));
  const networks: NetworkRecord[] = Array.from({ length: OPERATORS }, (_, i) => ({
    id: `460-${String(100 + i)}`, mcc: "460", mnc: String(100 + i), country_iso2: "CN", operator_id: `cn.bench-${i}`, name: `Bench ${i}`, tadig: null,
    network_type: "national", status: "operational", technologies: ["LTE"], bands: [], source: "demo",
  }));
  return {
    sourceMode: "demo",
    sources: [{ ...DEMO_SOURCE, name: "benchmark dataset" }],
    countries: [{ iso2: "CN", iso3: "CHN", name: "China", name_zh: "中国", calling_codes: ["86"], mccs: ["460"] }],
    operators,
    networks,
    // Re-iterable, so the import reads it twice (compare, then write) instead of holding it.
    numberRanges: { [Symbol.iterator]: () => ranges(variant) },
    capabilities: [],
  };
}

interface ExportReport {
  seconds: number;
  peak_rss_mib: number;
  csv_mib: number;
  rows: number;
}

/** Streams number-ranges.csv of the current version through the export generator, discarding it. */
async function exportStep(url: string): Promise<ExportReport> {
  const { db, close } = openDatabase(url);
  try {
    const version = (await currentVersion(db))!;
    const started = performance.now();
    let bytes = 0;
    let rows = -1;
    for await (const chunk of csvExport(db, "number-ranges", version)) {
      bytes += Buffer.byteLength(chunk);
      for (let i = chunk.indexOf("\r\n"); i !== -1; i = chunk.indexOf("\r\n", i + 2)) rows++;
    }
    return {
      seconds: Math.round(((performance.now() - started) / 1000) * 100) / 100,
      peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
      csv_mib: Math.round(bytes / 1024 / 1024),
      rows,
    };
  } finally {
    await close();
  }
}

interface StepReport {
  seconds: number;
  peak_rss_mib: number;
  events: number;
  version: string;
  created: boolean;
}

/** One measured step, in a child process: import variant a (seed) or b (diff) into DATABASE_URL. */
async function child(step: "seed" | "diff", url: string): Promise<StepReport> {
  const { db, close } = openDatabase(url);
  try {
    if (step === "seed") await migrateToLatest(db);
    const clock = new ManualClock();
    if (step === "diff") clock.advance(86_400_000);
    const started = performance.now();
    const result = await importDataset({ db, clock }, candidate(step === "seed" ? "a" : "b"));
    const seconds = (performance.now() - started) / 1000;
    return {
      seconds: Math.round(seconds * 100) / 100,
      peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
      events: result.events,
      version: result.version,
      created: result.created,
    };
  } finally {
    await close();
  }
}

function runChild<T = StepReport>(step: "seed" | "diff" | "export", url: string): T {
  const out = spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), fileURLToPath(import.meta.url), step, url], {
    encoding: "utf8",
    env: { ...process.env, BENCH_CHILD: "1" },
    maxBuffer: 16 * 1024 * 1024,
  });
  if (out.status !== 0) throw new Error(`${step} failed: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split("\n").at(-1)!) as T;
}

/** Generating and hashing the same candidate without a database: what the import cannot go below. */
function baselineSeconds(): number {
  const started = performance.now();
  let sink = 0;
  for (const record of ranges("b")) sink ^= createHash("sha1").update(JSON.stringify(record)).digest()[0]!;
  if (sink < 0) console.log(sink);
  return Math.round(((performance.now() - started) / 1000) * 100) / 100;
}

async function mysqlReachable(): Promise<boolean> {
  try {
    const database = await createTestDatabase("mysql");
    await database.drop();
    return true;
  } catch {
    return false;
  }
}

export async function run() {
  const baseline = baselineSeconds();
  const targets: TestTarget[] = ["sqlite", ...((await mysqlReachable()) ? (["mysql"] as const) : [])];
  const results: Record<string, unknown> = {};
  for (const target of targets) {
    const database = await createTestDatabase(target);
    try {
      const seed = runChild("seed", database.url);
      const diff = runChild("diff", database.url);
      const exported = runChild<ExportReport>("export", database.url);
      results[target] = {
        seed_import: seed,
        diff_import: diff,
        csv_export_number_ranges: exported,
        diff_vs_baseline: Math.round((diff.seconds / baseline) * 100) / 100,
        target_met: target === "sqlite" ? diff.seconds < 30 && diff.peak_rss_mib < 1024 : undefined,
      };
    } finally {
      await database.drop();
    }
  }
  return {
    ranges: RANGES,
    changed: { updated: RANGES / 200, removed: RANGES / 400, added: RANGES / 400 },
    baseline_generate_and_hash_seconds: baseline,
    ...results,
    note: "diff_import = import + diff of version B (1 % changed) over A; seed_import = first import of A; csv_export_number_ranges = the CSV export generator over the result (flat memory: its peak RSS does not grow with the file). Each in its own process (peak RSS is the step's own).",
  };
}

if (process.env.BENCH_CHILD === "1") {
  const [step, url] = process.argv.slice(2) as ["seed" | "diff" | "export", string];
  (step === "export" ? exportStep(url) : child(step, url)).then(
    (report) => {
      console.log(JSON.stringify(report));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
