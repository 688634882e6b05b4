import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { memoryCookieJar } from "../cookies.ts";
import { toDownload } from "./files.ts";
import { createDataHttp } from "./http.ts";

/** A scripted server standing in for odd answers the live server never gives (proxies, 502s). */
type Answer = { status: number; headers?: Record<string, string>; body?: string };
const script: Answer[] = [];
const received: Array<{ method: string; url: string; body: string; headers: IncomingMessage["headers"] }> = [];
let baseUrl = "";
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    received.push({ method: req.method!, url: req.url!, body, headers: req.headers });
    const answer = script.shift() ?? { status: 200, body: JSON.stringify({ code: 0, data: {}, meta }) };
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers }).end(answer.body ?? "");
  });
});
const meta = { request_id: "req_1", dataset_version: "2026-01-01.000001", source_mode: "demo", source_published_at: null, ingested_at: "2026-01-01T00:00:00.000Z" };
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/base/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  script.length = 0;
  received.length = 0;
});

describe("createDataHttp", () => {
  it("sends the API key, encodes the query (lists comma-joined, undefined left out) under a base path, and unwraps the envelope", async () => {
    script.push({ status: 200, body: JSON.stringify({ code: 0, data: { items: [1] }, meta }) });
    const http = createDataHttp({ baseUrl, apiKey: "ir21_key", headers: { "user-agent": "app/1" } });
    const result = await http.json("GET", "/v1/lookup", { query: { number: "+8613912345678", country: undefined, types: ["a.b", "c.d"], limit: 5 } });
    expect(result).toEqual({ data: { items: [1] }, meta });
    expect(received[0]!.url).toBe("/base/v1/lookup?number=%2B8613912345678&types=a.b%2Cc.d&limit=5");
    expect(received[0]!.headers).toMatchObject({ "x-api-key": "ir21_key", "user-agent": "app/1", accept: "application/json" });
  });

  it("posts JSON bodies and sends a session cookie from a jar instead of a key", async () => {
    const http = createDataHttp({ baseUrl, cookies: memoryCookieJar("ir21_session=ses_a.b") });
    await http.json("POST", "/v1/lookup/batch", { body: { numbers: ["1"] } });
    expect(received[0]).toMatchObject({ method: "POST", body: '{"numbers":["1"]}' });
    expect(received[0]!.headers).toMatchObject({ "content-type": "application/json", cookie: "ir21_session=ses_a.b" });
    expect(received[0]!.headers["x-api-key"]).toBeUndefined();
  });

  it("throws the contract error, or UNEXPECTED_RESPONSE for a 2xx that is not the envelope", async () => {
    script.push({ status: 401, body: JSON.stringify({ code: "UNAUTHORIZED", message: "bad key", request_id: "req_9" }) });
    script.push({ status: 200, headers: { "x-request-id": "req_8" }, body: "<html>captive portal</html>" });
    const http = createDataHttp({ baseUrl, apiKey: "ir21_key" });
    await expect(http.json("GET", "/v1/meta")).rejects.toMatchObject({ status: 401, code: "UNAUTHORIZED", message: "bad key", requestId: "req_9" });
    await expect(http.json("GET", "/v1/meta")).rejects.toMatchObject({ status: 200, code: "UNEXPECTED_RESPONSE", requestId: "req_8" });
  });

  it("refuses an API key that cannot be a header value", () => {
    expect(() => createDataHttp({ baseUrl, apiKey: "ir21_a\nb" })).toThrow(TypeError);
    expect(() => createDataHttp({ baseUrl, apiKey: "" })).toThrow(TypeError);
  });

  it("file(): sends If-None-Match, passes 200 and 304 through, throws errors", async () => {
    script.push({ status: 304, headers: { etag: '"v1"' } }, { status: 200, headers: { etag: '"v2"' }, body: "a,b\r\n" }, { status: 503, body: JSON.stringify({ code: "NO_DATASET", message: "x", request_id: "r" }) });
    const http = createDataHttp({ baseUrl, apiKey: "ir21_key" });
    expect((await http.file("/v1/snapshot", { ifNoneMatch: '"v1"' })).status).toBe(304);
    expect(received[0]!.headers["if-none-match"]).toBe('"v1"');
    expect(await (await http.file("/v1/exports/operators.csv")).text()).toBe("a,b\r\n");
    await expect(http.file("/v1/snapshot")).rejects.toMatchObject({ status: 503, code: "NO_DATASET" });
  });
});

describe("toDownload", () => {
  it("reports progress as the body is read and reads the download name", async () => {
    const chunks = ["id,name\r\n", "1,a\r\n", "2,b\r\n"];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
        controller.close();
      },
    });
    const progress: number[] = [];
    const download = toDownload(new Response(body, { headers: { etag: '"v-operators"', "content-disposition": 'attachment; filename="ir21-operators-v.csv"', "content-type": "text/csv" } }), {
      onProgress: ({ bytes }) => progress.push(bytes),
    });
    expect(download).toMatchObject({ notModified: false, etag: '"v-operators"', filename: "ir21-operators-v.csv", contentType: "text/csv" });
    expect(await new Response(download.body).text()).toBe(chunks.join(""));
    expect(progress).toEqual([9, 14, 19]);
  });

  it("a 304 has no body and keeps the ETag", () => {
    expect(toDownload(new Response(null, { status: 304 }), { ifNoneMatch: '"v1"' })).toMatchObject({ notModified: true, body: null, etag: '"v1"' });
  });
});
