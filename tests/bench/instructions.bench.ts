/**
 * Instructions per answer, counted by valgrind's callgrind (`pnpm bench instructions`): issue 34's small
 * answer (`GET /v1/lookup` with an API key and `fields=number,country_iso2,valid,number_type,range_holder`)
 * against the careful-user peer (careful-user-server.ts) on the same numbers, and other answers on
 * request (BENCH_INSTRUCTIONS_VARIANTS); with BENCH_AB_BEFORE=<another checkout, built> that checkout's
 * server is counted too. One count per server process: a second
 * dump of the same process read back wrong totals (callgrind with separate threads), so another
 * variant needs its own process.
 *
 * Why: on a shared 2-core machine a server's CPU per answer moves by ±30 % from one round to the next
 * (docs/performance.md "Lookup: what the peer comparison measures"), so a 2–5 % lever cannot be told
 * from the noise by timing. The instructions one process's main thread executes per answer repeat
 * within about ±1.5 % in one series of runs; between series an hour apart the same build moved by up
 * to 5 % (the JIT's and the GC's choices), so compare builds in the same run, as this does. Each server runs under callgrind with
 * instrumentation off until it has answered BENCH_INSTRUCTIONS_WARM (8,000) requests (the JIT settled),
 * then counts BENCH_INSTRUCTIONS_N (3,000) answers at 20 connections. Reported: the main thread's
 * instructions per answer (the JavaScript, node's HTTP, V8's runtime and the scavenges' main-thread
 * share) and the other threads' (GC helpers, the optimising compiler: they vary more) apart.
 *
 * What it does not count: the kernel (the socket writes, a third to four fifths of either server's
 * CPU), cache misses and other cycles beyond instructions. It orders levers in user space; the
 * timed benchmarks (`lookup`, `compare-builds`) say what a caller sees. Needs valgrind
 * (`apt-get install valgrind`); skipped without it.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { createApiKey, signIn, startTestServer, type TestServer } from "@ir21/server/testing";
import { benchNumbers, freePort, serveEnv } from "./serve-process.ts";

const WARM = Number(process.env.BENCH_INSTRUCTIONS_WARM ?? 8000);
const COUNTED = Number(process.env.BENCH_INSTRUCTIONS_N ?? 3000);
const CONNECTIONS = 20;
const SMALL_FIELDS = "number,country_iso2,valid,number_type,range_holder";
/**
 * Which answers to count (BENCH_INSTRUCTIONS_VARIANTS, comma-separated; `small` by default): `small`
 * (issue 34's), `location` (a small answer with the number's Chinese location: text that is not
 * ASCII), `anonymous` (the whole public answer, 814 bytes). Each is counted in a server of its own.
 */
const VARIANTS = (process.env.BENCH_INSTRUCTIONS_VARIANTS ?? "small").split(",");
const limits = { PLAN_FREE_MONTHLY_QUOTA: "1000000000", PLAN_FREE_RATE_LIMIT_PER_MINUTE: "1000000000", ANONYMOUS_RATE_LIMIT_PER_MINUTE: "1000000000" };
const thisServer = fileURLToPath(new URL("../../server/bin/ir21-server.js", import.meta.url));
const peerServer = fileURLToPath(new URL("./careful-user-server.ts", import.meta.url));

interface Counted {
  main_thread_per_answer: number;
  other_threads_per_answer: number;
}

/** A server under callgrind, instrumentation off until `count` turns it on. */
class UnderCallgrind {
  readonly url: string;
  readonly #child: ChildProcess;
  readonly #dir: string;
  /** vgdb finds the process by a file named after USER and HOST: the same values on both sides. */
  readonly #vgdbEnv: NodeJS.ProcessEnv;

  constructor(port: number, command: string[], env: Record<string, string>, cwd?: string) {
    this.url = `http://127.0.0.1:${port}`;
    this.#dir = mkdtempSync(join(tmpdir(), "ir21-callgrind-"));
    this.#vgdbEnv = { ...process.env, USER: "bench", LOGNAME: "bench", HOST: "127.0.0.1" };
    this.#child = spawn(
      "valgrind",
      ["--tool=callgrind", "--smc-check=all-non-file", "--instr-atstart=no", "--separate-threads=yes", `--callgrind-out-file=${this.#dir}/out`, process.execPath, ...command],
      { cwd, env: { ...this.#vgdbEnv, ...env, PORT: String(port) }, stdio: ["ignore", "ignore", "ignore"] },
    );
  }

  async ready(path: string): Promise<void> {
    for (let i = 0; i < 1500; i++) {
      if (this.#child.exitCode !== null) throw new Error(`${this.url}: exited with ${this.#child.exitCode} under valgrind`);
      if (await fetch(this.url + path, { signal: AbortSignal.timeout(10_000) }).then((r) => r.ok, () => false)) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${this.url}: not up after 5 minutes under valgrind`);
  }

  async count(requests: autocannon.Request[], headers: Record<string, string>): Promise<Counted> {
    const load = async (amount: number) => {
      // A long timeout: under valgrind the first answers wait for the JIT, and the machine may be busy.
      const result = await autocannon({ url: this.url, connections: CONNECTIONS, amount, headers, requests, timeout: 120 });
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${this.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      return result.requests.total;
    };
    await load(WARM);
    this.#control("-i", "on");
    const answered = await load(COUNTED);
    this.#control("-d");
    this.#control("-i", "off");
    let main = 0;
    let others = 0;
    for (const file of readdirSync(this.#dir)) {
      // A dump is out.<n>-<thread> (thread 01 the main thread); out-<thread> is written at exit.
      const thread = /^out\.\d+-(\d+)$/.exec(file)?.[1];
      if (!thread) continue;
      const total = Number(/^summary: (\d+)$/m.exec(readFileSync(join(this.#dir, file), "utf8"))?.[1] ?? 0);
      if (thread === "01") main += total;
      else others += total;
    }
    return { main_thread_per_answer: Math.round(main / answered), other_threads_per_answer: Math.round(others / answered) };
  }

  #control(...args: string[]): void {
    const done = spawnSync("callgrind_control", [...args, String(this.#child.pid)], { env: this.#vgdbEnv, encoding: "utf8" });
    if (done.status !== 0) throw new Error(`callgrind_control ${args.join(" ")}: ${done.stderr || done.stdout}`);
  }

  /**
   * Ends the server as an operator would (SIGTERM: it flushes its usage counts and closes the database,
   * which the next build serves), then kills it if it has not exited within a minute.
   */
  async stop(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      const exited = new Promise((resolve) => this.#child.once("exit", resolve));
      this.#child.kill("SIGTERM");
      const timer = setTimeout(() => this.#child.kill("SIGKILL"), 60_000);
      await exited;
      clearTimeout(timer);
    }
    // BENCH_INSTRUCTIONS_KEEP=<dir>: the dumps are kept there, for `callgrind_annotate` (function by function).
    const keep = process.env.BENCH_INSTRUCTIONS_KEEP;
    if (keep && existsSync(this.#dir)) cpSync(this.#dir, join(keep, basename(this.#dir)), { recursive: true });
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/**
 * The API process of a scale-out (`--no-webhook-worker`): the delivery worker polls on real time, and
 * valgrind's ~50 × slowdown gave its polling some fifty times its share of each answer (7k of 190k
 * instructions, measured; its `sqlite3_step` alone 5.8k), where at full speed it is a few
 * microseconds a second.
 */
function serveUnderCallgrind(setup: TestServer, port: number, bin: string): UnderCallgrind {
  return new UnderCallgrind(port, [bin, "serve", "--no-webhook-worker"], serveEnv(setup, limits));
}

export async function run() {
  if (spawnSync("valgrind", ["--version"]).status !== 0) return { skipped: "valgrind is not installed (apt-get install valgrind)" };
  const setup = await startTestServer({ dataset: "reference", env: limits });
  const servers: UnderCallgrind[] = [];
  try {
    const key = await createApiKey(setup, await signIn(setup));
    const numbers = await benchNumbers(setup, key.headers);
    const gets = (path: (n: string) => string) => numbers.map((n) => ({ method: "GET" as const, path: path(encodeURIComponent(n)) }));
    const variants: Record<string, { requests: autocannon.Request[]; headers: Record<string, string> }> = {
      small: { requests: gets((n) => `/v1/lookup?number=${n}&fields=${SMALL_FIELDS}`), headers: key.headers },
      location: { requests: gets((n) => `/v1/lookup?number=${n}&fields=number,location`), headers: key.headers },
      anonymous: { requests: gets((n) => `/v1/lookup?number=${n}`), headers: {} },
    };
    const counted = VARIANTS.map((name) => {
      if (!variants[name]) throw new Error(`BENCH_INSTRUCTIONS_VARIANTS: no variant ${name} (${Object.keys(variants).join(", ")})`);
      return name;
    });

    const builds: Record<string, string> = { this_build: thisServer };
    if (process.env.BENCH_AB_BEFORE) builds.before = join(process.env.BENCH_AB_BEFORE, "server/bin/ir21-server.js");
    const report: Record<string, unknown> = { warm_up_requests: WARM, counted_answers: COUNTED, connections: CONNECTIONS };
    // One server at a time: valgrind runs a process some 20-50 times slower, and two would share the cores.
    for (const variant of counted) {
      for (const [name, bin] of Object.entries(builds)) {
        const server = serveUnderCallgrind(setup, await freePort(), bin);
        servers.push(server);
        await server.ready("/readyz");
        report[`${name}_${variant}_answer`] = await server.count(variants[variant]!.requests, variants[variant]!.headers);
        await server.stop();
      }
      if (builds.before) {
        const ratio = (report[`this_build_${variant}_answer`] as Counted).main_thread_per_answer / (report[`before_${variant}_answer`] as Counted).main_thread_per_answer;
        report[`${variant}_answer_this_build_to_before_main_thread`] = Math.round(ratio * 1000) / 1000;
      }
    }
    if (counted.includes("small")) {
      const peer = new UnderCallgrind(await freePort(), ["--import", "tsx", peerServer], {}, fileURLToPath(new URL("..", import.meta.url)));
      servers.push(peer);
      const peerRequests = gets((n) => `/lookup?number=${n}`);
      await peer.ready(peerRequests[0]!.path);
      report.careful_user_peer = await peer.count(peerRequests, {});
      await peer.stop();
      const mainOf = (name: string) => (report[name] as Counted).main_thread_per_answer;
      report.small_answer_to_peer_main_thread = Math.round((mainOf("this_build_small_answer") / mainOf("careful_user_peer")) * 100) / 100;
    }
    return report;
  } finally {
    for (const server of servers) await server.stop();
    await setup.close();
  }
}
