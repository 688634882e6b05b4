import type { H3 } from "h3";
import { afterAll, beforeAll, expect } from "vitest";
import { createApp } from "../src/app/http-app.ts";
import { createApiKey, signIn, type SignedIn } from "./accounts.ts";
import { startTestServer, type TestServer } from "./server.ts";

/**
 * The harness of the direct-answer tests (lookup-direct, lookup-batch-direct): a route's `serialised`
 * way against its generic one (`handle`, the output schema, h3's serialisation), over one server's
 * state. Only the date may differ, and the rate limit's remaining count, which must fall by one
 * between the two answers: each way counts the attempt. Request ids are given inbound, so they are
 * compared too.
 */
export interface Answer {
  status: number;
  /** Every header but `date`; the RateLimit header with its remaining count and reset as placeholders. */
  headers: Record<string, string>;
  body: string;
  /** The rate limit's remaining count, when the answer has one. */
  remaining: number | null;
}

/** Sends one request to an app (the request id given inbound) and reads its answer. */
export async function send(app: H3, path: string, init: RequestInit, requestId: string): Promise<Answer> {
  const response = await app.fetch(new Request(`http://127.0.0.1${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), "x-request-id": requestId } }));
  const headers: Record<string, string> = {};
  let remaining: number | null = null;
  for (const [name, value] of response.headers) {
    if (name === "date") continue;
    if (name === "ratelimit") {
      remaining = Number(/;r=(\d+)/.exec(value)?.[1]);
      headers[name] = value.replace(/;r=\d+/, ";r=N").replace(/;t=\d+/, ";t=T");
    } else headers[name] = value;
  }
  return { status: response.status, headers, body: await response.text(), remaining };
}

/**
 * Both ways of a server's app: `both(path, init)` sends the request the generic way, then the direct
 * way, asserts they answer alike and returns both answers (the generic one first).
 */
export function directAndGeneric(server: TestServer) {
  const direct = createApp(server.deps);
  const generic = createApp(server.deps, { directAnswers: false });
  let serial = 0;
  async function both(path: string, init: RequestInit = {}): Promise<[Answer, Answer]> {
    const id = `pair-${++serial}`;
    const reference = await send(generic, path, init, id);
    const answer = await send(direct, path, init, id);
    expect({ path, status: answer.status, headers: answer.headers, body: answer.body }).toEqual({ path, status: reference.status, headers: reference.headers, body: reference.body });
    if (reference.remaining !== null && reference.remaining > 0) expect(answer.remaining, `${path}: the direct way counts the attempt`).toBe(reference.remaining - 1);
    return [reference, answer];
  }
  return { direct, generic, both };
}

/** What a direct-answer test file works with, filled in by `directAnswersSuite`'s beforeAll. */
export interface DirectAnswersSuite extends ReturnType<typeof directAndGeneric> {
  server: TestServer;
  /** A signed-in account on the free plan. */
  alice: SignedIn;
  /** An API key of alice's: `{ "x-api-key": … }`. */
  key: Record<string, string>;
  /** Alice's successful queries this month (GET /console/usage `used`). */
  usedOf(): Promise<number>;
}

/**
 * The shared set-up of a direct-answer test file: registers a beforeAll that starts a server on the
 * demo dataset (the free plan's monthly quota `quota`, 60 anonymous requests a minute), signs alice in
 * with an API key and builds both apps, and an afterAll that stops it. Call at the top of the file;
 * read the fields in tests (they are set once beforeAll ran).
 */
export function directAnswersSuite(quota: number): DirectAnswersSuite {
  const suite = {} as DirectAnswersSuite;
  beforeAll(async () => {
    const server = await startTestServer({ dataset: "demo", env: { PLAN_FREE_MONTHLY_QUOTA: String(quota), ANONYMOUS_RATE_LIMIT_PER_MINUTE: "60" } });
    const alice = await signIn(server);
    const key = (await createApiKey(server, alice)).headers;
    const usedOf = async () => (await server.json("/console/usage", { headers: alice.headers })).body.data.used as number;
    Object.assign(suite, { server, alice, key, usedOf, ...directAndGeneric(server) });
  }, 120_000);
  afterAll(() => suite.server?.close());
  return suite;
}
