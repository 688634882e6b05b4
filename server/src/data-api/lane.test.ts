import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "srvx/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app/http-app.ts";
import { answerAtEndOfTurn } from "../http/end-of-turn.ts";
import { ReasonPhraseResponse } from "../http/status-line.ts";
import { startServer, type RunningServer } from "../app/serve.ts";
import { catalogApi } from "../app/deps.ts";
import { createApiKey, signIn, startTestServer, type SignedIn, type TestServer } from "../../testing/index.ts";
import { lookupRoute } from "../catalog/routes/lookup.ts";
import { serveOnNode } from "./lane.ts";

/**
 * GET /v1/lookup on node's lane (on-node.ts) against the app's way, over HTTP, over one server's
 * state: the reference is the real server with `lookupOnNode: false`; the lane's server is wired as
 * serve.ts wires it, counting the requests the lane takes. Every request goes to both; their status
 * lines, headers and bodies must be the same, but for `date`, the rate limit's remaining count (which
 * must fall by one) and the body's framing (the app sends error answers chunked, the lane with a
 * length; each length is checked against its body). Request ids are given inbound unless the case is
 * about them.
 */
interface Answer {
  /** The status line's code and reason phrase. */
  status: string;
  headers: Record<string, string>;
  body: string;
  remaining: number | null;
}

interface Case {
  method?: string;
  path: string;
  headers?: Record<string, string | string[]>;
}

function send(port: number, { method = "GET", path, headers = {} }: Case): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const bytes = Buffer.concat(chunks);
        const answer: Answer = { status: `${res.statusCode} ${res.statusMessage}`, headers: {}, body: bytes.toString("utf8"), remaining: null };
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!.toLowerCase();
          let value = res.rawHeaders[i + 1]!;
          if (name === "date") continue;
          // The body's framing is HTTP's, not the answer's: the app sends its error answers chunked.
          if (name === "transfer-encoding") continue;
          if (name === "content-length") {
            expect(Number(value), `${path}: content-length`).toBe(bytes.length);
            continue;
          }
          if (name === "ratelimit") {
            answer.remaining = Number(/;r=(\d+)/.exec(value)?.[1]);
            value = value.replace(/;r=\d+/, ";r=N").replace(/;t=\d+/, ";t=T");
          }
          expect(answer.headers[name], `${path}: ${name} once`).toBeUndefined();
          answer.headers[name] = value;
        }
        resolve(answer);
      });
    });
    req.on("error", reject);
    req.end();
  });
}

const QUOTA = 200;
const ANONYMOUS_PER_MINUTE = 80;

describe("GET /v1/lookup on node's lane and through the app answer alike", () => {
  let server: TestServer;
  let reference: RunningServer;
  let lane: Server;
  let lanePort: number;
  let taken = 0;
  let alice: SignedIn;
  let key: Record<string, string>;
  const usedOf = async () => (await server.json("/console/usage", { headers: alice.headers })).body.data.used as number;

  beforeAll(async () => {
    server = await startTestServer({ dataset: "demo", env: { PLAN_FREE_MONTHLY_QUOTA: String(QUOTA), ANONYMOUS_RATE_LIMIT_PER_MINUTE: String(ANONYMOUS_PER_MINUTE) } });
    alice = await signIn(server);
    key = (await createApiKey(server, alice)).headers;
    reference = await startServer(server.deps, { port: 0, host: "127.0.0.1" }, { warmLookups: false, lookupOnNode: false });
    const onNode = serveOnNode(lookupRoute, catalogApi(server.deps));
    const toApp = toNodeHandler(answerAtEndOfTurn(createApp(server.deps).fetch));
    lane = createServer({ ServerResponse: ReasonPhraseResponse }, (req, res) => {
      if (onNode(req, res)) taken++;
      else void toApp(req as never, res as never);
    });
    await new Promise<void>((resolve) => lane.listen(0, "127.0.0.1", resolve));
    lanePort = (lane.address() as AddressInfo).port;
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => lane?.close(resolve));
    // Only its listener: the deps are the test server's, closed with it.
    await new Promise((resolve) => reference?.server.close(resolve));
    await server?.close();
  });

  let serial = 0;
  async function both(c: Case, givenId = true): Promise<[Answer, Answer, boolean]> {
    const id = `pair-${++serial}`;
    const sent = givenId ? { ...c, headers: { "x-request-id": id, ...c.headers } } : c;
    const before = taken;
    const expected = await send(reference.port, sent);
    const answer = await send(lanePort, sent);
    const label = `${c.method ?? "GET"} ${c.path} ${JSON.stringify(c.headers ?? {})}`;
    if (givenId) expect({ label, ...answer, remaining: null }).toEqual({ label, ...expected, remaining: null });
    if (expected.remaining !== null && expected.remaining > 0) expect(answer.remaining, `${label}: the lane counts the attempt`).toBe(expected.remaining - 1);
    return [expected, answer, taken > before];
  }

  it("numbers, IMSIs, both projections, bad input, bad credentials: the lane takes them and answers as the app", async () => {
    const anonymous = {};
    const withKey = key;
    const seen = new Set<string>();
    for (const who of [anonymous, withKey]) {
      for (const query of [
        "number=%2B8613912345678",
        "number=13312345678&country=CN",
        "number=%2B447700900123",
        "number=+8613912345678", // a plus in a query is a space: not a number
        "number=%2B86+139+1234+5678", // spaces between the groups
        "number=%2B86(139)12345678",
        "number=%2B8680012345678", // toll-free: no range named
        "number=%2B861391234", // too short
        "number=%2B999123456789", // no such calling code
        "number=%E0%A4%A", // malformed percent-encoding
        "imsi=460001234567890",
        "imsi=46000",
        "number=not-a-number",
        "number=13912345678", // national without a country
        "number=%2B8613912345678&imsi=460001234567890",
        "number=%2B8613912345678&number=%2B8613312345678",
        "number=%2B8613912345678&country=XX",
        "number=%2B8613912345678&unknown=1",
        // Small answers (one write with their head, lane.ts), one with Chinese in it.
        "number=%2B8613912345678&fields=number,country_iso2,valid,number_type,range_holder",
        "number=%2B8613912345678&fields=number,location",
        "",
      ]) {
        const path = `/v1/lookup${query ? `?${query}` : ""}`;
        const usedBefore = await usedOf();
        const [expected, , tookIt] = await both({ path, headers: who });
        expect(tookIt, `${path}: taken by the lane`).toBe(true);
        seen.add(expected.status);
        // Quota: both ways charge a keyed success, and nothing else.
        expect(await usedOf(), path).toBe(usedBefore + (expected.status.startsWith("200 ") && who === withKey ? 2 : 0));
      }
    }
    const credentials: Record<string, string | string[]>[] = [{ "x-api-key": "ir21_not_a_key" }, { "x-api-key": "" }, { "x-api-key": [key["x-api-key"]!, key["x-api-key"]!] }, { ...key, cookie: alice.headers.cookie }];
    for (const headers of credentials) {
      const [expected, , tookIt] = await both({ path: "/v1/lookup?number=%2B8613912345678", headers });
      expect(tookIt).toBe(true);
      seen.add(expected.status);
    }
    // Status lines with their reason phrase, both ways (http/status-line.ts).
    expect([...seen].sort()).toEqual(expect.arrayContaining(["200 OK", "400 Bad Request", "401 Unauthorized"]));
  });

  it("request ids: an acceptable inbound one, a traceparent, a refused one, none (a fresh id each way)", async () => {
    const trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const cases: [Record<string, string>, RegExp][] = [
      [{ "x-request-id": "given-1" }, /^given-1$/],
      [{ traceparent: `00-${trace}-00f067aa0ba902b7-01` }, new RegExp(`^${trace}$`)],
      [{ "x-request-id": "has space" }, /^req_/],
      [{}, /^req_/],
    ];
    for (const [headers, id] of cases) {
      const [expected, answer, tookIt] = await both({ path: "/v1/lookup?number=%2B8613912345678", headers: { ...key, ...headers } }, false);
      expect(tookIt).toBe(true);
      for (const a of [expected, answer]) {
        expect(a.headers["x-request-id"]).toMatch(id);
        expect(JSON.parse(a.body).meta.request_id).toBe(a.headers["x-request-id"]);
      }
      const strip = (a: Answer) => ({ ...a, remaining: null, headers: { ...a.headers, "x-request-id": "" }, body: a.body.replace(a.headers["x-request-id"]!, "") });
      expect(strip(answer)).toEqual(strip(expected));
    }
  });

  it("leaves to the app what it would not answer alike: sessions, bodies, other methods and paths, unusual queries", async () => {
    const cases: Case[] = [
      { path: "/v1/lookup?number=%2B8613912345678", headers: alice.headers },
      { path: "/v1/lookup?number=%2B8613912345678", headers: { cookie: "ir21_session=forged" } },
      { method: "HEAD", path: "/v1/lookup?number=%2B8613912345678", headers: key },
      { method: "OPTIONS", path: "/v1/lookup?number=%2B8613912345678" },
      { method: "POST", path: "/v1/lookup?number=%2B8613912345678", headers: key },
      { path: "/v1/lookup?number=%2B8613912345678", headers: { ...key, "content-length": "0" } },
      { path: "/v1/lookup/?number=%2B8613912345678", headers: key },
      { path: "/v1/lookupx?number=%2B8613912345678", headers: key },
      { path: "/v1/lookup?number=\"%2B8613912345678\"", headers: key },
      { path: "/v1/lookup?number=%2B8613912345678#fragment", headers: key },
    ];
    for (const c of cases) {
      const [, , tookIt] = await both(c);
      expect(tookIt, `${c.method ?? "GET"} ${c.path}`).toBe(false);
    }
  });

  it("parallel lookups on the lane: every keyed success charged once, the anonymous rate limit exact", async () => {
    const usedBefore = await usedOf();
    const keyed = await Promise.all(Array.from({ length: 40 }, (_, i) => send(lanePort, { path: `/v1/lookup?number=%2B86139123456${String(i).padStart(2, "0")}`, headers: key })));
    expect(keyed.map((a) => a.status)).toEqual(Array(40).fill("200 OK"));
    expect(await usedOf()).toBe(usedBefore + 40);
    // The anonymous limit is per address and minute, shared by both servers: fill it, then ask in parallel.
    const probe = await send(lanePort, { path: "/v1/lookup?number=%2B8613912345678" });
    const left = probe.remaining!;
    const anonymous = await Promise.all(Array.from({ length: left + 10 }, () => send(lanePort, { path: "/v1/lookup?number=%2B8613912345678" })));
    expect(anonymous.filter((a) => a.status === "200 OK")).toHaveLength(left);
    const refused = anonymous.filter((a) => a.status !== "200 OK");
    expect(refused).toHaveLength(10);
    for (const a of refused) {
      expect(a.status).toBe("429 Too Many Requests");
      expect(JSON.parse(a.body).code).toBe("RATE_LIMITED");
      expect(a.headers["retry-after"]).toMatch(/^\d+$/);
    }
    // Refused alike both ways.
    await both({ path: "/v1/lookup?number=%2B8613912345678" });
  });

  it("over quota: both refuse with the same 429 QUOTA_EXCEEDED", async () => {
    for (let i = 0; (await usedOf()) < QUOTA && i <= QUOTA; i++) await send(lanePort, { path: "/v1/lookup?number=%2B8613912345678", headers: key });
    const [expected, , tookIt] = await both({ path: "/v1/lookup?number=%2B8613912345678", headers: key });
    expect(tookIt).toBe(true);
    expect(expected.status).toBe("429 Too Many Requests");
    expect(JSON.parse(expected.body).code).toBe("QUOTA_EXCEEDED");
  });
});
