import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Ir21ApiError, errorFromResponse, parseRetryAfter } from "./errors.ts";
import { createTransport, DEFAULT_TIMEOUT_MS, normaliseBaseUrl, resolveRetry, SDK_VERSION, TIMEOUT_MS } from "./transport.ts";
import packageJson from "../package.json" with { type: "json" };

/** A scripted HTTP server: each request takes the next answer; it records what it received. */
type Answer = { status: number; headers?: Record<string, string>; body?: string };
const script: Answer[] = [];
const received: Array<{ method: string; body: string; headers: IncomingMessage["headers"]; at: number }> = [];
let baseUrl = "";
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    received.push({ method: req.method!, body, headers: req.headers, at: Date.now() });
    const answer = script.shift() ?? { status: 200, body: "{}" };
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers }).end(answer.body ?? "");
  });
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  script.length = 0;
  received.length = 0;
});

const limited = (retryAfter?: string): Answer => ({
  status: 429,
  headers: retryAfter === undefined ? {} : { "retry-after": retryAfter },
  body: JSON.stringify({ code: "RATE_LIMITED", message: "slow down", request_id: "req_1" }),
});

describe("createTransport retries", () => {
  it("is off by default: a 429 comes straight back", async () => {
    script.push(limited("1"));
    const response = await createTransport({})(`${baseUrl}/x`);
    expect(response.status).toBe(429);
    expect(received).toHaveLength(1);
  });

  it("waits Retry-After seconds on 429, resends the same body, then returns the success", async () => {
    script.push(limited("1"), { status: 200, body: '{"ok":true}' });
    const retries: Array<{ attempt: number; delayMs: number; code: string }> = [];
    const send = createTransport({ retry: { onRetry: ({ attempt, delayMs, error }) => retries.push({ attempt, delayMs, code: error.code }) } });
    const response = await send(`${baseUrl}/x`, { method: "POST", body: '{"a":1}', headers: { "content-type": "application/json" } });
    expect(await response.json()).toEqual({ ok: true });
    expect(received.map((r) => [r.method, r.body])).toEqual([
      ["POST", '{"a":1}'],
      ["POST", '{"a":1}'],
    ]);
    expect(received[1]!.at - received[0]!.at).toBeGreaterThanOrEqual(990);
    expect(retries).toEqual([{ attempt: 1, delayMs: 1000, code: "RATE_LIMITED" }]);
  });

  it("backs off exponentially on 503 without Retry-After and stops after maxAttempts", async () => {
    script.push({ status: 503 }, { status: 503 }, { status: 503 }, { status: 200 });
    const delays: number[] = [];
    const response = await createTransport({ retry: { maxAttempts: 3, baseDelayMs: 20, onRetry: (r) => delays.push(r.delayMs) } })(`${baseUrl}/x`);
    expect(response.status).toBe(503);
    expect(received).toHaveLength(3);
    expect(delays).toEqual([20, 40]);
  });

  it("never waits past maxTotalWaitMs: a longer Retry-After fails at once", async () => {
    script.push(limited("120"));
    const started = Date.now();
    const response = await createTransport({ retry: { maxTotalWaitMs: 10_000 } })(`${baseUrl}/x`);
    expect(response.status).toBe(429);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(received).toHaveLength(1);
  });

  it("does not retry other statuses", async () => {
    script.push({ status: 500, body: JSON.stringify({ code: "INTERNAL_ERROR", message: "x", request_id: "r" }) }, { status: 400 });
    const send = createTransport({ retry: true });
    expect((await send(`${baseUrl}/x`)).status).toBe(500);
    expect((await send(`${baseUrl}/x`)).status).toBe(400);
    expect(received).toHaveLength(2);
  });

  it("stops waiting when the caller aborts", async () => {
    script.push(limited("5"));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user gave up")), 100);
    await expect(createTransport({ retry: true })(`${baseUrl}/x`, { signal: controller.signal })).rejects.toThrow("user gave up");
    expect(received).toHaveLength(1);
  });

  it("validates its bounds", () => {
    expect(resolveRetry(false)).toBeNull();
    expect(resolveRetry(true)).toMatchObject({ maxAttempts: 3, maxTotalWaitMs: 30_000, baseDelayMs: 1_000 });
    expect(() => resolveRetry({ maxAttempts: 0 })).toThrow(TypeError);
    expect(() => resolveRetry({ maxAttempts: 11 })).toThrow(TypeError);
    expect(() => resolveRetry({ maxTotalWaitMs: Number.POSITIVE_INFINITY })).toThrow(TypeError);
  });
});

describe("createTransport requests", () => {
  it("adds the base headers under the per-request ones", async () => {
    await createTransport({ headers: { "user-agent": "ir21-cli/1.0", "x-api-key": "base" } })(`${baseUrl}/x`, { headers: { "x-api-key": "override" } });
    expect(received[0]!.headers).toMatchObject({ "user-agent": "ir21-cli/1.0", "x-api-key": "override" });
  });

  it("turns a request that got no answer into NETWORK_ERROR", async () => {
    const error = await createTransport({})("http://127.0.0.1:9/x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Ir21ApiError);
    expect(error).toMatchObject({ status: 0, code: "NETWORK_ERROR", requestId: null });
  });
});

describe("createTransport identity, timeouts and retries of unanswered reads", () => {
  it("names itself ir21-sdk/<package version> outside a browser; a caller's user-agent replaces it", async () => {
    await createTransport({})(`${baseUrl}/x`);
    await createTransport({ headers: { "User-Agent": "my-app/2" } })(`${baseUrl}/x`);
    expect(SDK_VERSION).toBe(packageJson.version);
    expect(received.map((r) => r.headers["user-agent"])).toEqual([`ir21-sdk/${packageJson.version}`, "my-app/2"]);
  });

  /** A fetch that never answers until its signal aborts; counts calls. */
  const hanging = () => {
    const calls: string[] = [];
    const fetch = (url: string, init?: RequestInit) => {
      calls.push(String(init?.method ?? "GET"));
      return new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)));
    };
    return { calls, fetch };
  };

  it("gives up on an answer that does not start within timeoutMs (TIMEOUT); per request overrides the client", async () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
    const { fetch } = hanging();
    const error = await createTransport({ fetch, timeoutMs: 20 })("http://127.0.0.1:1/x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Ir21ApiError);
    expect(error).toMatchObject({ status: 0, code: "TIMEOUT", requestId: null });
    // A per-request value wins over the client's (here a client with a long default and a short call).
    const perCall = await createTransport({ fetch, timeoutMs: 60_000 })("http://127.0.0.1:1/x", { [TIMEOUT_MS]: 20 } as RequestInit).catch((e: unknown) => e);
    expect(perCall).toMatchObject({ code: "TIMEOUT" });
    expect(() => createTransport({ timeoutMs: -1 })).toThrow(TypeError);
  });

  it("does not cut off a body that is still streaming after the headers came in time", async () => {
    let push!: (text: string) => void;
    let close!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (text) => controller.enqueue(new TextEncoder().encode(text));
        close = () => controller.close();
      },
    });
    const response = await createTransport({ fetch: async () => new Response(body), timeoutMs: 20 })("http://127.0.0.1:1/x");
    push("a");
    await new Promise((resolve) => setTimeout(resolve, 60));
    push("b");
    close();
    expect(await response.text()).toBe("ab");
  });

  it("with retry on, resends a GET that got no answer (backing off through the injected sleep), never a POST", async () => {
    const slept: number[] = [];
    const retries: string[] = [];
    const sleep = async (ms: number) => void slept.push(ms);
    const get = hanging();
    const error = await createTransport({ fetch: get.fetch, timeoutMs: 10, retry: { maxAttempts: 3, baseDelayMs: 250, sleep, onRetry: ({ error }) => retries.push(error.code) } })("http://127.0.0.1:1/x").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "TIMEOUT" });
    expect(get.calls).toEqual(["GET", "GET", "GET"]);
    expect(slept).toEqual([250, 500]);
    expect(retries).toEqual(["TIMEOUT", "TIMEOUT"]);

    const post = hanging();
    await expect(createTransport({ fetch: post.fetch, timeoutMs: 10, retry: { sleep } })("http://127.0.0.1:1/x", { method: "POST", body: "{}" })).rejects.toMatchObject({ code: "TIMEOUT" });
    expect(post.calls).toEqual(["POST"]);

    // A refused connection (NETWORK_ERROR) is retried too, then the answer that comes is returned.
    let attempts = 0;
    const flaky = async () => {
      if (++attempts < 2) throw new TypeError("fetch failed");
      return new Response("{}", { status: 200 });
    };
    const response = await createTransport({ fetch: flaky, retry: { sleep } })("http://127.0.0.1:1/x");
    expect(response.status).toBe(200);
    expect(attempts).toBe(2);
  });

  it("waits the server's Retry-After through the injected sleep", async () => {
    script.push(limited("7"), { status: 200, body: "{}" });
    const slept: number[] = [];
    const response = await createTransport({ retry: { sleep: async (ms) => void slept.push(ms) } })(`${baseUrl}/x`);
    expect(response.status).toBe(200);
    expect(slept).toEqual([7_000]);
  });

  it("without retry, an unanswered GET fails once", async () => {
    const get = hanging();
    await expect(createTransport({ fetch: get.fetch, timeoutMs: 10 })("http://127.0.0.1:1/x")).rejects.toMatchObject({ code: "TIMEOUT" });
    expect(get.calls).toHaveLength(1);
  });
});

describe("errors from responses", () => {
  it("reads the contract body, or says the response was not the service's", async () => {
    const contract = await errorFromResponse(new Response(JSON.stringify({ code: "RATE_LIMITED", message: "m", request_id: "req_9" }), { status: 429, headers: { "retry-after": "7" } }));
    expect(contract).toMatchObject({ status: 429, code: "RATE_LIMITED", message: "m", requestId: "req_9", retryAfter: 7 });
    const html = await errorFromResponse(new Response("<html>Bad gateway</html>", { status: 502, statusText: "Bad Gateway", headers: { "x-request-id": "edge_1" } }));
    expect(html).toMatchObject({ status: 502, code: "UNEXPECTED_RESPONSE", requestId: "edge_1", retryAfter: null });
  });

  it("parses Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("30", now)).toBe(30);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:01:00 GMT", now)).toBe(60);
    expect(parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("-1", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});

describe("normaliseBaseUrl", () => {
  it("drops trailing slashes, keeps a path prefix, refuses what is not a base", () => {
    expect(normaliseBaseUrl("https://ir21.example.com/")).toBe("https://ir21.example.com");
    expect(normaliseBaseUrl("https://example.com/ir21//")).toBe("https://example.com/ir21");
    expect(() => normaliseBaseUrl("ftp://x")).toThrow(TypeError);
    expect(() => normaliseBaseUrl("https://x.example/?a=1")).toThrow(TypeError);
    expect(() => normaliseBaseUrl("/relative")).toThrow(TypeError);
  });
});
