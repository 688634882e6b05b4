/**
 * Issue 34: what each field of a number's answer costs (docs/api.md "Lookup fields"). In process, with
 * the server's own functions on the lookup benchmark's 200 numbers (China and the UK), warm: CPU µs per
 * answer of `findNumber` (with only the work the selection needs) + `NumberAnswers.writeSelected` for
 * `fields=number`, then for `number,<field>` for every field of the full answer; a field's cost is the
 * difference. The whole answer (no `fields=`) and the small answer are given beside them.
 * Every variant runs once per round, ROUNDS rounds (BENCH_ROUNDS, default 5) interleaved; medians.
 * What a request costs besides (HTTP, the API key, metering, the envelope) is lookup.bench.ts's.
 */
import { createApiKey, signIn, startTestServer } from "@ir21/server/testing";
import { lookupFields } from "../../server/src/catalog/lookup/answer-fields.ts";
import { LookupIndexes } from "../../server/src/catalog/lookup/lookup-index.ts";
import { findNumber } from "../../server/src/catalog/lookup/lookup.ts";
import { NumberLookup } from "../../server/src/contract/catalog.ts";
import { Utf8Builder } from "../../server/src/utf8-builder.ts";
import { benchNumbers, median } from "./serve-process.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = 4000;
const SMALL_FIELDS = "number,country_iso2,valid,number_type,range_holder";

/** CPU µs per call of `work` over CALLS calls, after one pass to warm up. */
function cpuPerCall(work: (i: number) => void): number {
  for (let i = 0; i < CALLS; i++) work(i);
  const before = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) work(i);
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / CALLS;
}

export async function run() {
  const setup = await startTestServer({ dataset: "reference" });
  try {
    const key = await createApiKey(setup, await signIn(setup));
    const numbers = await benchNumbers(setup, key.headers);
    const index = await new LookupIndexes(setup.deps.db).at((await setup.deps.datasetMeta.pinned()).seq);
    const n = numbers.length;

    const whole = () => cpuPerCall((i) => {
      const out = new Utf8Builder();
      index.answers.write(findNumber(index, numbers[i % n]!), "full", out);
      out.toBuffer();
    });
    const selected = (fields: string) => {
      const selection = lookupFields("number", "full", fields);
      return () => cpuPerCall((i) => {
        const out = new Utf8Builder();
        index.answers.writeSelected(findNumber(index, numbers[i % n]!, undefined, selection.needs), "full", selection, out);
        out.toBuffer();
      });
    };
    const fieldNames = Object.keys(NumberLookup.shape).filter((name) => name !== "number");
    const variants: Record<string, () => number> = {
      whole_answer: whole,
      small_answer: selected(SMALL_FIELDS),
      number: selected("number"),
      ...Object.fromEntries(fieldNames.map((name) => [`number,${name}`, selected(`number,${name}`)])),
    };
    const rounds: Record<string, number>[] = [];
    for (let round = 0; round < ROUNDS; round++) rounds.push(Object.fromEntries(Object.entries(variants).map(([name, measure]) => [name, measure()])));
    const medianOf = (name: string) => median(rounds.map((r) => r[name]!));
    const r2 = (x: number) => Math.round(x * 100) / 100;
    const base = medianOf("number");
    return {
      numbers: n,
      rounds: ROUNDS,
      cpu_us_per_answer: { whole_answer: r2(medianOf("whole_answer")), small_answer: r2(medianOf("small_answer")), number_only: r2(base) },
      // Each field's cost on top of `fields=number` (µs per answer; ~0 is within noise).
      field_cost_us: Object.fromEntries(fieldNames.map((name) => [name, r2(medianOf(`number,${name}`) - base)])),
      ratio_whole_to_small: r2(medianOf("whole_answer") / medianOf("small_answer")),
    };
  } finally {
    await setup.close();
  }
}
