/**
 * The socket-level HTTP fuzzer (issue 31; tests/edge/README.md, docs/architecture.md "The HTTP edge"):
 * seeded raw HTTP/1.x over TCP to every route of the server's OpenAPI document, its static paths and
 * its tRPC procedures, against `ir21-server serve` in its own process. After each case:
 *
 * - the process is alive (no exit event, the pid running);
 * - a request on a new connection is answered (`GET /healthz` 200);
 * - the fuzzed connection got nothing or well-formed HTTP answers (node's own parser) whose error
 *   bodies are the contract's `{code, message, request_id}`, no 5xx but a documented 503;
 * - it was answered or closed within a bound: a well-formed request the client waits for is answered,
 *   and once the client half-closes, the server closes too (a parked connection first stays open past
 *   the edge's timers while later cases run, since a timer that outlives its request only does harm
 *   while its connection is still there);
 * - every line the server wrote meanwhile is one JSON object, none at level error or fatal.
 *
 * Reproduce a run: `FC_SEED=<seed> npx vitest run --project sqlite tests/edge` (the seed is printed);
 * one case: add `FC_PATH=<path>` from the failure. `FC_RUNS` sets the number of cases.
 */
import { readFileSync } from "node:fs";
import { get } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractProblems, isStream, parseForRequests } from "./answers.ts";
import { caseArbitrary, describeCase, proceduresOf, render, type Case, type OpenApiDocument, type RenderContext, type Rendered } from "./messages.ts";
import { startServerProcess, type ServerProcess } from "./server-process.ts";

/** CI's seed: the same cases every run. */
const DEFAULT_SEED = 31_0002;
/** About a minute and a half per database on the 2-core machine. */
const DEFAULT_RUNS = 600;
const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : DEFAULT_SEED;
const runs = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : DEFAULT_RUNS;
const replayPath = process.env.FC_PATH || undefined;

const BODY_LIMIT_BYTES = 64 * 1024;
/** A well-formed request the client waits for is answered within this (generous: a loaded 2-core machine). */
const ANSWER_BOUND_MS = 10_000;
/** A malformed or partial request: the client waits this long after the last byte either way, then half-closes. */
const QUIET_MS = 120;
/**
 * After the client half-closes, the server closes within this: node ends a connection whose client
 * ended; the edge's longest timers are the unread-body discard (5 s) and the lingering close (1 s).
 */
const CLOSE_BOUND_MS = 7_000;
/**
 * A parked connection stays open this long after its answers (while later cases run): past the edge's
 * timers, the unread-body discard's 5 s above all, so a timer that assumes its connection is still
 * there runs with the connection still there (issue 31's crash needed exactly that).
 */
const PARK_MS = 6_000;
/** A fault in a timer shows within this after the case that set it (a parked connection's, plus margin). */
const FAULT_DELAY_MS = PARK_MS + 3_000;
/** Shrinking a failure (each step a real exchange) stops after this much time; the seed still reproduces. */
const SHRINK_BUDGET_MS = 60_000;

let server: ServerProcess;
let doc: OpenApiDocument;
let context: RenderContext;

beforeAll(async () => {
  server = await startServerProcess({ BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) });
  doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as OpenApiDocument;
  context = { ...(await signInAndCreateKey(server)), origin: "http://localhost:8787", bodyLimitBytes: BODY_LIMIT_BYTES };
}, 180_000);
afterAll(() => server?.dispose());

/** A session and an API key through the real HTTP flow (the dev SMS provider writes the code to DATA_DIR). */
async function signInAndCreateKey(s: ServerProcess): Promise<{ sessionCookie: string; apiKey: string }> {
  const call = async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${s.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as { data: any };
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
    return { response, data: json.data };
  };
  const agreement = { agreed: true, ...(await call("/auth/agreement")).data };
  const phone = `138${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`;
  const { data: sent } = await call("/auth/sms/code", { phone, ...agreement });
  const outbox = readFileSync(join(s.dir, "sms-outbox.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { phone: string; code: string });
  const code = outbox.filter((m) => m.phone === `+86${phone}`).at(-1)!.code;
  const { response } = await call("/auth/login", { phone, challenge_id: sent.challenge_id, code, ...agreement });
  const sessionCookie = response.headers.getSetCookie().find((c) => /ir21_session=/.test(c))!.split(";")[0]!;
  const { data: key } = await call("/console/api-keys", { name: "edge fuzz" }, { cookie: sessionCookie, origin: "http://localhost:8787" });
  return { sessionCookie, apiKey: key.key as string };
}

// ---------------------------------------------------------------------------------------------------
// One exchange on a raw connection

interface Exchange {
  /** What came back until the case's checks (for a parked connection: before it was parked). */
  received: Buffer;
  /** A parked connection: everything it got, and whether it closed, once its parking time is over. */
  parked: Promise<{ received: Buffer; hanging: boolean }> | null;
  /** The server closed the connection before the client ended it. */
  closedByServer: boolean;
  /** A well-formed request waited for was not answered within ANSWER_BOUND_MS. */
  unanswered: string | null;
  /** The connection was still open CLOSE_BOUND_MS after the client half-closed. */
  hanging: boolean;
}

const finalAnswers = (bytes: Buffer, methods: string[]) => parseForRequests(bytes, methods).answers.filter((a) => a.status >= 200);

async function exchange(port: number, c: Case, rendered: Rendered): Promise<Exchange> {
  const socket = connect(port, "127.0.0.1");
  socket.setNoDelay(true);
  const chunks: Buffer[] = [];
  let closed = false;
  let lastActivity = performance.now();
  let wake = () => undefined as void;
  socket.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    lastActivity = performance.now();
    wake();
  });
  socket.on("close", () => {
    closed = true;
    wake();
  });
  // ECONNRESET, EPIPE: the server may cut a connection; what it sent before is still judged.
  socket.on("error", () => undefined);
  const until = async (done: () => boolean, ms: number): Promise<boolean> => {
    const deadline = performance.now() + ms;
    while (!done()) {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 25));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return true;
  };
  await until(() => !socket.connecting || closed, 5_000);

  for (const piece of rendered.pieces) {
    if (closed) break;
    socket.write(piece.bytes);
    lastActivity = performance.now();
    if (piece.pauseMs) await sleep(piece.pauseMs);
  }
  const received = () => Buffer.concat(chunks);
  if (c.ending === "reset") {
    socket.resetAndDestroy();
    return { received: received(), parked: null, closedByServer: false, unanswered: null, hanging: false };
  }
  let unanswered: string | null = null;
  if (c.ending === "keep-open" || c.ending === "park") {
    const expected = rendered.expectedAnswers;
    if (expected !== null) {
      const answered = () => {
        const finals = finalAnswers(received(), rendered.methods);
        return finals.filter((a) => a.complete).length >= expected || finals.some(isStream);
      };
      if (!(await until(() => closed || answered(), ANSWER_BOUND_MS))) {
        unanswered = `${finalAnswers(received(), rendered.methods).filter((a) => a.complete).length} of ${expected} answers within ${ANSWER_BOUND_MS} ms, the connection still open`;
      }
    } else {
      await until(() => closed || performance.now() - lastActivity >= QUIET_MS, 5_000);
    }
  }
  const closedByServer = closed;
  const endAndWait = async () => {
    if (!closed) socket.end();
    const hanging = !(await until(() => closed, CLOSE_BOUND_MS));
    socket.destroy();
    return hanging;
  };
  if (c.ending === "park" && !closed) {
    const before = received();
    const parked = sleep(PARK_MS).then(async () => ({ hanging: await endAndWait(), received: received() }));
    return { received: before, parked, closedByServer, unanswered, hanging: false };
  }
  const hanging = await endAndWait();
  return { received: received(), parked: null, closedByServer, unanswered, hanging };
}

/** GET /healthz on a connection of its own. */
function healthOnNewConnection(port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const request = get({ host: "127.0.0.1", port, path: "/healthz", agent: false, timeout: 10_000 }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => (text += c));
      res.on("end", () => resolve(res.statusCode === 200 && JSON.parse(text).data?.status === "ok" ? null : `GET /healthz on a new connection answered ${res.statusCode}: ${text.slice(0, 200)}`));
    });
    request.on("timeout", () => request.destroy(new Error("no answer within 10 s")));
    request.on("error", (error) => resolve(`GET /healthz on a new connection failed: ${error.message}`));
  });
}

/** The server's stdout lines from `from` on that are not one JSON object, or are at level error/fatal. */
function logProblems(from: number): string[] {
  const lines = server.stdoutLines();
  // The last element is the line being written (empty after a newline).
  return lines.slice(from, lines.length - 1).flatMap((line) => {
    try {
      const record = JSON.parse(line) as { level?: unknown };
      if (!record || typeof record !== "object" || Array.isArray(record)) return [`a log line that is not an object: ${line.slice(0, 300)}`];
      return typeof record.level === "number" && record.level >= 50 ? [`an ${record.level >= 60 ? "fatal" : "error"} log line: ${line.slice(0, 600)}`] : [];
    } catch {
      return [`a log line that is not JSON: ${line.slice(0, 300)}`];
    }
  });
}

/** What the fuzzed connection got, against the contract; empty when it holds. */
function answerProblems(c: Case, rendered: Rendered, result: Exchange): string[] {
  if (c.ending === "reset") return [];
  const problems: string[] = [];
  if (result.hanging) problems.push(`the connection was still open ${CLOSE_BOUND_MS} ms after the client half-closed`);
  if (result.unanswered) problems.push(`unanswered: ${result.unanswered}`);
  const parsed = parseForRequests(result.received, rendered.methods);
  if (parsed.error) problems.push(`the bytes received are not HTTP answers: ${parsed.error}`);
  const trpc = c.requests.some((r) => r.route.target.startsWith("/trpc/"));
  parsed.answers.forEach((answer, i) => problems.push(...contractProblems(answer, { trpc }).map((p) => `answer ${i + 1} (${answer.status}): ${p}`)));
  // A server that closes before every owed answer must have said so (Connection: close) in its last one.
  const finals = parsed.answers.filter((a) => a.status >= 200);
  const expected = rendered.expectedAnswers;
  if (expected !== null && result.closedByServer && finals.length < expected && !finals.some(isStream)) {
    const last = finals.at(-1);
    if (!last || !/\bclose\b/i.test(last.headers.connection ?? "")) problems.push(`the server closed the connection after ${finals.length} of ${expected} answers without Connection: close`);
  }
  return problems;
}

function preview(received: Buffer): string {
  const text = received.toString("latin1");
  return JSON.stringify(text.length > 1500 ? `${text.slice(0, 1500)}…` : text);
}

// ---------------------------------------------------------------------------------------------------
// Faults: which case ended the process

interface Ran {
  index: number;
  /** fast-check's path to this case: FC_PATH replays it alone. */
  path: string;
  c: Case;
  startedAt: number;
}

/** Runs `group` against a fresh process; true when the process exits within FAULT_DELAY_MS after it. */
async function killsServer(group: Ran[]): Promise<boolean> {
  await server.restart();
  for (const ran of group) {
    await exchange(server.port, ran.c, render(ran.c, context)).catch(() => undefined);
    if (!server.alive()) return true;
  }
  const deadline = Date.now() + FAULT_DELAY_MS;
  while (server.alive() && Date.now() < deadline) await sleep(100);
  return !server.alive();
}

/**
 * The process died while or after running `suspects` (the cases of the last FAULT_DELAY_MS: a timer
 * may fire seconds after its case). Bisects them on fresh processes to the one that ends it.
 */
async function findCulprit(suspects: Ran[]): Promise<{ culprit: Ran; confirmed: boolean }> {
  if (!suspects.length) throw new Error("the server process ended before any case ran");
  let candidates = suspects;
  while (candidates.length > 1) {
    const half = candidates.slice(0, Math.ceil(candidates.length / 2));
    candidates = (await killsServer(half)) ? half : candidates.slice(half.length);
  }
  const confirmed = await killsServer(candidates);
  if (!server.alive()) await server.restart();
  return { culprit: candidates[0]!, confirmed };
}

const reproduce = (path: string) => `Reproduce: FC_SEED=${seed} FC_PATH=${path} npx vitest run --project ${server.target} tests/edge`;

async function exitOf(s: ServerProcess): Promise<string> {
  const exit = await s.exited(2_000);
  return exit ? `exit code ${exit.code}${exit.signal ? `, signal ${exit.signal}` : ""}` : "its pid is gone";
}

// ---------------------------------------------------------------------------------------------------

interface Tally {
  cases: number;
  exits: number;
  unanswered: number;
  closedByServer: number;
  statuses: Map<number, number>;
  features: Map<string, number>;
  operations: Set<string>;
}

/** What a case exercises, counted over the run so a generator that stops producing one is noticed. */
function featuresOf(c: Case): string[] {
  const features = new Set<string>();
  const add = (name: string, when: boolean) => when && features.add(name);
  add(`ending ${c.ending}`, true);
  add("pipelined", c.requests.length > 1);
  add("pipelined after a body", c.requests.length > 1 && c.requests[0]!.body.kind !== "none");
  add("cut off mid-way", c.cut !== null);
  add("slow writer", c.writes.some((w) => w.pauseMs > 0));
  for (const r of c.requests) {
    const f = r.framing;
    add(`method ${r.method === "CONNECT" || r.method === "TRACE" || r.method === "OPTIONS" || r.method === "HEAD" ? r.method : r.method.toUpperCase() !== r.method || !/^[A-Z]+$/.test(r.method) ? "lower-case or odd" : "other"}`, true);
    add("HTTP/1.0 keep-alive", r.version === "HTTP/1.0" && /keep-alive/i.test(r.connection ?? ""));
    add("HTTP/1.0 close", r.version === "HTTP/1.0" && !/keep-alive/i.test(r.connection ?? ""));
    add("Expect: 100-continue", r.expect === "100-continue");
    add(`header ${r.quirk.kind}`, r.quirk.kind !== "none");
    add("tRPC", r.route.label.startsWith("tRPC"));
    if (f.kind === "length") add(`Content-Length ${f.lie}`, true);
    if (f.kind === "chunked") {
      const size = r.body.kind === "padded" ? r.body.size : 0;
      add("chunked over the limit", size > BODY_LIMIT_BYTES);
      add("chunked under the limit", size <= BODY_LIMIT_BYTES);
      add("chunked over the limit to a JSON route", size > BODY_LIMIT_BYTES && r.route.takesJson && r.method === r.route.method);
      add(`chunk sizes ${f.size}`, true);
      add("chunk extensions", f.extension !== "");
      add(`chunked end ${f.end}`, true);
      add("Content-Length with Transfer-Encoding", f.alsoLength !== null);
    }
  }
  return [...features];
}

/** Every feature the brief asks of the fuzzer: a default run must send each at least once. */
const REQUIRED_FEATURES = [
  "chunked over the limit to a JSON route",
  "chunked under the limit",
  "chunk sizes garbage",
  "chunk sizes larger",
  "chunk extensions",
  "chunked end missing",
  "chunked end trailers",
  "Content-Length with Transfer-Encoding",
  "Content-Length conflicting",
  "Content-Length duplicate",
  "pipelined",
  "pipelined after a body",
  "cut off mid-way",
  "ending half-close",
  "ending reset",
  "ending park",
  "Expect: 100-continue",
  "method CONNECT",
  "method TRACE",
  "method OPTIONS",
  "method lower-case or odd",
  "HTTP/1.0 keep-alive",
  "HTTP/1.0 close",
  "slow writer",
  "header obs-fold",
  "header bare-lf",
  "header nul",
  "header near-limit",
  "tRPC",
];

describe(`socket-level HTTP fuzz of ir21-server serve (seed ${seed})`, () => {
  it(`${replayPath ? `case ${replayPath}` : `${runs} raw-TCP cases`}: the process lives, every connection is answered or closed, every answer keeps the contract`, async () => {
    console.log(`[edge fuzz ${server.target}] seed ${seed}, ${runs} runs${replayPath ? `, path ${replayPath}` : ""} (FC_SEED=${seed} reproduces)`);
    const tally: Tally = { cases: 0, exits: 0, unanswered: 0, closedByServer: 0, statuses: new Map(), features: new Map(), operations: new Set() };
    const history: Ran[] = [];
    let generated = 0;
    let shrinkingSince: number | null = null;
    /** A failure found outside the case being run (the process ended, a parked connection): no shrinking then. */
    let fault: string | null = null;
    const parked: Promise<void>[] = [];
    const lateProblems: string[] = [];

    const property = fc.asyncProperty(caseArbitrary(doc, BODY_LIMIT_BYTES), async (c) => {
      // After a process exit the report is made (below): shrinking a case that did not cause it would mislead.
      if (fault) return;
      if (lateProblems.length) {
        fault = lateProblems.join("\n\n");
        throw new Error(fault);
      }
      if (shrinkingSince !== null && Date.now() - shrinkingSince > SHRINK_BUDGET_MS) return;
      const index = generated++;
      const ran: Ran = { index, path: replayPath ?? String(index), c, startedAt: Date.now() };
      if (shrinkingSince === null) history.push(ran);
      tally.cases++;
      for (const feature of featuresOf(c)) tally.features.set(feature, (tally.features.get(feature) ?? 0) + 1);
      for (const r of c.requests) tally.operations.add(r.route.label);
      const rendered = render(c, context);
      const logFrom = server.stdoutLines().length - 1;
      const result = await exchange(server.port, c, rendered);

      if (!server.alive()) {
        tally.exits++;
        const exit = await exitOf(server);
        const tail = server.stdoutLines().slice(-8).join("\n");
        const suspects = history.filter((h) => h.startedAt >= ran.startedAt - FAULT_DELAY_MS);
        const { culprit, confirmed } = await findCulprit(suspects);
        const culpritRendered = render(culprit.c, context);
        fault = [
          `The server process ended (${exit}) during or after case ${ran.path} (seed ${seed}).`,
          `${confirmed ? "Replayed alone on a fresh process, this case ends it" : `Not reproduced alone on a fresh process; the likeliest of the ${suspects.length} cases run in the ${FAULT_DELAY_MS} ms before`}: case ${culprit.path}`,
          describeCase(culprit.c, culpritRendered),
          reproduce(culprit.path),
          `The server's last lines:\n${tail}\n${server.stderr().slice(-2000)}`,
        ].join("\n");
        shrinkingSince ??= Date.now();
        throw new Error(fault);
      }

      for (const a of parseForRequests(result.received, rendered.methods).answers) tally.statuses.set(a.status, (tally.statuses.get(a.status) ?? 0) + 1);
      if (result.closedByServer) tally.closedByServer++;
      if (result.unanswered || result.hanging) tally.unanswered++;
      if (result.parked) {
        const repro = shrinkingSince === null ? `\n${reproduce(ran.path)}` : "";
        parked.push(
          result.parked.then((late) => {
            if (late.hanging) tally.unanswered++;
            const problems = answerProblems(c, rendered, { ...result, ...late, parked: null });
            if (problems.length) lateProblems.push(`Case ${ran.path}, a connection parked for ${PARK_MS} ms:\n${problems.join("\n")}\nThe case:\n${describeCase(c, rendered)}\nReceived: ${preview(late.received)}${repro}`);
          }),
        );
      }
      const problems = [...answerProblems(c, rendered, result)];
      const health = await healthOnNewConnection(server.port);
      if (health) problems.push(health);
      problems.push(...logProblems(logFrom));
      if (problems.length) {
        shrinkingSince ??= Date.now();
        throw new Error(`${problems.join("\n")}\nThe case:\n${describeCase(c, rendered)}\nReceived: ${preview(result.received)}`);
      }
    });

    // With a path, fast-check starts at that case and goes on for numRuns: one replays it alone.
    const details = await fc.check(property, { seed, numRuns: replayPath ? 1 : runs, path: replayPath, endOnFailure: false });
    const runEndedAt = Date.now();

    // Parked connections end, and a timer set by one of the last cases may end the process after the
    // run: wait as long as either could take.
    await Promise.all(parked);
    if (!fault && lateProblems.length) fault = lateProblems.join("\n\n");
    if (!fault) {
      const deadline = Date.now() + FAULT_DELAY_MS;
      while (server.alive() && Date.now() < deadline) await sleep(100);
      if (!server.alive()) {
        tally.exits++;
        const exit = await exitOf(server);
        const suspects = history.filter((h) => h.startedAt >= runEndedAt - FAULT_DELAY_MS);
        const { culprit, confirmed } = await findCulprit(suspects);
        fault = [
          `The server process ended (${exit}) after the last case (seed ${seed}).`,
          `${confirmed ? "Replayed alone on a fresh process, this case ends it" : "Not reproduced alone; the likeliest"}: case ${culprit.path}`,
          describeCase(culprit.c, render(culprit.c, context)),
          reproduce(culprit.path),
        ].join("\n");
      }
    }

    const statuses = [...tally.statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(" ");
    console.log(
      `[edge fuzz ${server.target}] seed ${seed}: ${tally.cases} cases, ${tally.exits} process exits, ${tally.unanswered} unanswered connections; ` +
        `answers ${statuses}; ${tally.closedByServer} connections closed by the server; ${tally.operations.size} routes`,
    );

    if (fault) throw new Error(fault);
    if (details.failed) {
      const message = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      throw new Error(
        `${message}\n\nSeed ${seed}, counterexample path ${details.counterexamplePath} (after ${details.numShrinks} shrinks).\n` +
          reproduce(details.counterexamplePath ?? ""),
      );
    }
    expect(tally.exits).toBe(0);
    expect(tally.unanswered).toBe(0);

    // The run sent what the fuzzer is for (a generator change that stops sending one fails here).
    expect(proceduresOf(doc).length, "tRPC procedures named by the OpenAPI document").toBeGreaterThan(0);
    if (!replayPath && runs >= DEFAULT_RUNS) {
      const missing = REQUIRED_FEATURES.filter((f) => !tally.features.get(f));
      expect(missing, "features no case exercised").toEqual([]);
      const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((m) => m !== "parameters").map((m) => `${m.toUpperCase()} ${path}`));
      if (seed === DEFAULT_SEED) expect(operations.filter((o) => !tally.operations.has(o)), "OpenAPI operations no case reached").toEqual([]);
    }

    // stdout stays one JSON object per line over the whole run (each case's lines were checked as they came).
    const lines = server.stdoutLines().filter((l) => l !== "");
    const notJson = lines.filter((l) => {
      try {
        return typeof JSON.parse(l) !== "object";
      } catch {
        return true;
      }
    });
    expect(notJson, "stdout lines that are not JSON").toEqual([]);
    expect(lines.some((l) => l.includes('"msg":"request"')), "request lines were collected").toBe(true);
  }, 900_000);
});
