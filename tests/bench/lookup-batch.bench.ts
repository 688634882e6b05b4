/**
 * Issue 20, part 2: numbers per second through `POST /v1/lookup/batch` (100 numbers a request, the
 * route's bound, unless BENCH_BATCH says fewer) against the data work itself, measured in the same
 * run: an in-process loop of libphonenumber-js (`/max`, as the server uses) parse + getType over the same numbers. Target: the
 * batch route reaches at least 0.5 of the loop's numbers per second.
 *
 * The server is the real `ir21-server serve` in its own process on the reference dataset (API key,
 * quota and rate limits out of the way), loaded by autocannon from this process at CONNECTIONS
 * connections; the loop runs in this process between the server's measurements, so the two never
 * compete for a core. Rounds (BENCH_ROUNDS, default 3) alternate the two; ratios are per round.
 * Each side also reports CPU per number (the server's process from /proc, the loop's own): on a shared
 * machine the CPU ratio moves less than the rates.
 *
 * A second in-process loop says what the target asks of the answers themselves: each number's whole
 * answer made with the server's own functions (`findNumber`: parse, type, formats, location, time
 * zones, prefix match; `NumberAnswers.write`: the range's prebuilt fragment and the number's own fields
 * through the schema) into bytes, with no HTTP, credential, metering or input schema. Its ratio to the
 * parse + getType loop is the most any batch of these answers could reach.
 * Issue 34: the same batches with `?fields=number,country_iso2,valid,number_type,range_holder`
 * (`batch_route_fields`), in the same rounds. Target: at least 2 × the whole answers' numbers per second
 * per core, read as the ratio of CPU per number (whole ÷ fields, the server's process from /proc),
 * which the machine's other load moves less than the rates (also reported).
 * `pnpm bench lookup` runs this after lookup.bench.ts
 * (or alone: `pnpm bench lookup-batch`; BENCH_CPU_PROFILE=<dir> writes a V8 CPU profile of the server).
 */
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import autocannon from "autocannon";
import { createApiKey, signIn, startTestServer } from "@ir21/server/testing";
import { LookupIndexes, type LookupIndex } from "../../server/src/catalog/lookup/lookup-index.ts";
import { findNumber } from "../../server/src/catalog/lookup/lookup.ts";
import { Utf8Builder } from "../../server/src/utf8-builder.ts";
import { benchNumbers, cpuOf, median, spawnServe } from "./serve-process.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 8;
// Numbers a request: the route's bound by default; BENCH_BATCH=10 (for one) shows the per-request
// cost the batch spreads (docs/performance.md "Batch lookup").
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
// The server's own copy of libphonenumber-js (with the project's patch), resolved from its package.
const { parsePhoneNumberFromString } = createRequire(new URL("../../server/package.json", import.meta.url))("libphonenumber-js/max") as {
  parsePhoneNumberFromString(number: string): { number: string; getType(): string | undefined } | undefined;
};

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const spread = (values: number[]) => ({ median: r3(median(values)), min: r3(Math.min(...values)), max: r3(Math.max(...values)) });

/** `work` on every number, for `seconds`; numbers per second and CPU per number. `work` says whether it got a result. */
function loop(numbers: string[], seconds: number, work: (number: string) => boolean) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let done = 0;
  let results = 0;
  while (performance.now() - started < seconds * 1000) {
    for (const number of numbers) {
      if (work(number)) results++;
      done++;
    }
  }
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (results === 0) throw new Error("no number gave a result: the sample is wrong");
  return { numbers_per_s: Math.round(done / (ms / 1000)), cpu_us_per_number: r3((used.user + used.system) / done) };
}

/** The target's yardstick: libphonenumber-js parse + getType of every number. */
const libphonenumberLoop = (numbers: string[], seconds: number) => loop(numbers, seconds, (number) => Boolean(parsePhoneNumberFromString(number)?.getType()));

/** Each number's whole answer (the full projection, as an API key gets it) as bytes, with the server's functions. */
const answerLoop = (index: LookupIndex, numbers: string[], seconds: number) =>
  loop(numbers, seconds, (number) => {
    const out = new Utf8Builder();
    index.answers.write(findNumber(index, number), "full", out);
    return out.toBuffer().length > 0;
  });

/** Issue 34's small answer (the careful-user peer's fields, lookup.bench.ts). */
const SMALL_FIELDS = "number,country_iso2,valid,number_type,range_holder";

async function batchLoad(url: string, headers: Record<string, string>, bodies: string[], pid: number | undefined, seconds: number, path = "/v1/lookup/batch") {
  const before = cpuOf(pid);
  let next = 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: "POST",
        path,
        headers: { ...headers, "content-type": "application/json" },
        setupRequest: ((req: Record<string, unknown>) => ({ ...req, body: bodies[next++ % bodies.length] })) as never,
      },
    ],
  });
  const after = cpuOf(pid);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`batch lookups failed: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const numbers = result.requests.total * BATCH;
  return {
    numbers_per_s: Math.round(numbers / seconds),
    requests_per_s: Math.round(result.requests.total / seconds),
    p99_ms: result.latency.p99,
    cpu_us_per_number: before === null || after === null ? null : r3((after - before) / numbers),
  };
}

export async function run() {
  const limits = { PLAN_FREE_MONTHLY_QUOTA: "1000000000", PLAN_FREE_RATE_LIMIT_PER_MINUTE: "1000000000", ANONYMOUS_RATE_LIMIT_PER_MINUTE: "1000000000" };
  const setup = await startTestServer({ dataset: "reference", env: limits });
  const user = await signIn(setup);
  const key = await createApiKey(setup, user);
  const { child: server, url } = await spawnServe(setup, limits);
  try {
    for (let i = 0; ; i++) {
      if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
      const up = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
      if (up) break;
      if (i > 300) throw new Error("the server did not come up");
      await new Promise((r) => setTimeout(r, 100));
    }
    const numbers = await benchNumbers(setup, key.headers);
    const bodies = Array.from({ length: Math.ceil(numbers.length / BATCH) }, (_, i) => JSON.stringify({ numbers: numbers.slice(i * BATCH, (i + 1) * BATCH) }));
    // The answer is checked once against the loop's own parse, so both sides do the same numbers.
    const check = await setup.json("/v1/lookup/batch", { method: "POST", headers: key.headers, body: JSON.parse(bodies[0]!) });
    const items = check.body.data.items as Array<{ number?: string; number_type?: string | null }>;
    if (items.length !== JSON.parse(bodies[0]!).numbers.length || items.some((item, i) => item.number !== parsePhoneNumberFromString(numbers[i]!)!.number)) throw new Error("the batch answer does not match the numbers sent");

    const index = await new LookupIndexes(setup.deps.db).at((await setup.deps.datasetMeta.pinned()).seq);

    // Warm-up: JIT, the lookup index, connections.
    await batchLoad(url, key.headers, bodies, server.pid, 2);
    const fieldsPath = `/v1/lookup/batch?fields=${SMALL_FIELDS}`;
    const small = await setup.json(fieldsPath, { method: "POST", headers: key.headers, body: JSON.parse(bodies[0]!) });
    if (small.status !== 200 || Object.keys(small.body.data.items[0]).join(",") !== SMALL_FIELDS) throw new Error(`the batch with fields answers ${small.status} ${JSON.stringify(small.body).slice(0, 200)}`);
    await batchLoad(url, key.headers, bodies, server.pid, 2, fieldsPath);
    libphonenumberLoop(numbers, 1);
    answerLoop(index, numbers, 1);

    type Loop = ReturnType<typeof loop>;
    const rounds: Array<{ batch: Awaited<ReturnType<typeof batchLoad>>; fields: Awaited<ReturnType<typeof batchLoad>>; loop: Loop; answers: Loop }> = [];
    const load: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const batch = await batchLoad(url, key.headers, bodies, server.pid, SECONDS);
      const fields = await batchLoad(url, key.headers, bodies, server.pid, SECONDS, fieldsPath);
      const parseLoop = libphonenumberLoop(numbers, SECONDS);
      const answers = answerLoop(index, numbers, SECONDS);
      rounds.push({ batch, fields, loop: parseLoop, answers });
      load.push(Number(loadavg()[0]!.toFixed(2)));
    }
    const ratio = spread(rounds.map((r) => r.batch.numbers_per_s / r.loop.numbers_per_s));
    // Issue 34: whole answers' CPU per number over the small answers' (numbers per second per core, fields ÷ whole).
    const fieldsPerCore = spread(rounds.filter((r) => r.batch.cpu_us_per_number !== null && r.fields.cpu_us_per_number !== null).map((r) => r.batch.cpu_us_per_number! / r.fields.cpu_us_per_number!));
    return {
      database: setup.target,
      batch_size: BATCH,
      connections: CONNECTIONS,
      seconds_each: SECONDS,
      rounds: ROUNDS,
      load_average_1m: load,
      target:
        "batch numbers/s >= 0.5 of the in-process libphonenumber-js parse + getType loop (median ratio); " +
        `issue 34: the batch with fields=${SMALL_FIELDS} >= 2 x the whole answers' numbers/s per core (CPU per number, median ratio)`,
      target_met: ratio.median >= 0.5 && (fieldsPerCore.median >= 2 || Number.isNaN(fieldsPerCore.median)),
      targets_met: { batch_to_loop: ratio.median >= 0.5, fields_per_core: Number.isNaN(fieldsPerCore.median) ? null : fieldsPerCore.median >= 2 },
      ratio_fields_to_whole_per_core: fieldsPerCore,
      ratio_fields_to_whole_numbers_per_s: spread(rounds.map((r) => r.fields.numbers_per_s / r.batch.numbers_per_s)),
      ratio_batch_to_loop: ratio,
      cpu_ratio_batch_to_loop: spread(rounds.filter((r) => r.batch.cpu_us_per_number !== null).map((r) => r.batch.cpu_us_per_number! / r.loop.cpu_us_per_number)),
      batch_route: {
        numbers_per_s: median(rounds.map((r) => r.batch.numbers_per_s)),
        requests_per_s: median(rounds.map((r) => r.batch.requests_per_s)),
        p99_ms: median(rounds.map((r) => r.batch.p99_ms)),
        cpu_us_per_number: median(rounds.map((r) => r.batch.cpu_us_per_number ?? NaN)),
      },
      batch_route_fields: {
        numbers_per_s: median(rounds.map((r) => r.fields.numbers_per_s)),
        requests_per_s: median(rounds.map((r) => r.fields.requests_per_s)),
        p99_ms: median(rounds.map((r) => r.fields.p99_ms)),
        cpu_us_per_number: median(rounds.map((r) => r.fields.cpu_us_per_number ?? NaN)),
      },
      libphonenumber_loop: {
        numbers_per_s: median(rounds.map((r) => r.loop.numbers_per_s)),
        cpu_us_per_number: median(rounds.map((r) => r.loop.cpu_us_per_number)),
      },
      // The answers' own work in process, and its ratio to the loop: what the batch cannot pass.
      answer_loop: {
        numbers_per_s: median(rounds.map((r) => r.answers.numbers_per_s)),
        cpu_us_per_number: median(rounds.map((r) => r.answers.cpu_us_per_number)),
      },
      ratio_answer_loop_to_loop: spread(rounds.map((r) => r.answers.numbers_per_s / r.loop.numbers_per_s)),
      // What the caller pays: one quota unit per number (docs/api.md), whatever the batch size.
      quota_units_per_number: 1,
    };
  } finally {
    await new Promise<void>((resolve) => {
      if (server.exitCode !== null) return resolve();
      server.once("exit", () => resolve());
      server.kill("SIGTERM");
    });
    await setup.close();
  }
}
