import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/index.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { BODY_LIMIT_BYTES: "2048" } });
});
afterAll(() => server.close());

const expectErrorBody = (body: unknown, code: string, requestId?: string | null) => {
  expect(Object.keys(body as object).sort()).toEqual(["code", "message", "request_id"]);
  const b = body as { code: string; message: string; request_id: string };
  expect(b.code).toBe(code);
  expect(b.message.length).toBeGreaterThan(0);
  expect(b.message).not.toMatch(/at .*\.ts:\d+/); // no stack frames
  expect(b.request_id).toMatch(/^req_[0-9a-z]{26}$/);
  if (requestId !== undefined) expect(b.request_id).toBe(requestId);
};

describe("envelope", () => {
  it("wraps a success in {code: 0, data, meta} and echoes the request id in X-Request-Id", async () => {
    const { status, headers, body } = await server.json("/healthz");
    expect(status).toBe(200);
    expect(body.code).toBe(0);
    expect(body.data).toEqual({ status: "ok" });
    expect(Object.keys(body.meta).sort()).toEqual(["dataset_version", "ingested_at", "request_id", "source_mode", "source_published_at"]);
    expect(headers.get("x-request-id")).toBe(body.meta.request_id);
  });

  it("gives every request its own id and ignores one sent by the client", async () => {
    const a = await server.json("/healthz", { headers: { "x-request-id": "secret-token-123" } });
    const b = await server.json("/healthz");
    expect(a.body.meta.request_id).not.toBe(b.body.meta.request_id);
    expect(a.body.meta.request_id).not.toContain("secret");
  });
});

describe("error body", () => {
  it("404 for an unknown route", async () => {
    const { status, headers, body } = await server.json("/no/such/route");
    expect(status).toBe(404);
    expectErrorBody(body, "NOT_FOUND", headers.get("x-request-id"));
  });

  it("405 with Allow for a known path and another method", async () => {
    const { status, headers, body } = await server.json("/contact", { method: "DELETE" });
    expect(status).toBe(405);
    expect(headers.get("allow")).toBe("POST");
    expectErrorBody(body, "METHOD_NOT_ALLOWED");
  });

  it("400 MALFORMED_JSON for a body that does not parse", async () => {
    const { status, body } = await server.json("/contact", { method: "POST", body: '{"name": ', headers: { "content-type": "application/json" } });
    expect(status).toBe(400);
    expectErrorBody(body, "MALFORMED_JSON");
  });

  it("400 INVALID_REQUEST naming the field for wrong types", async () => {
    const { status, body } = await server.json("/contact", { method: "POST", body: { name: 42, email: "a@example.com", company: "C", message: "hello there team" } });
    expect(status).toBe(400);
    expectErrorBody(body, "INVALID_REQUEST");
    expect(body.message).toMatch(/^name: /);
  });

  it("400 when the body is JSON but not an object", async () => {
    const { status, body } = await server.json("/contact", { method: "POST", body: "[1,2]", headers: { "content-type": "application/json" } });
    expect(status).toBe(400);
    expectErrorBody(body, "INVALID_REQUEST");
  });

  it("415 for a body that is not declared JSON", async () => {
    const response = await server.fetch("/contact", { method: "POST", body: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(response.status).toBe(415);
    expectErrorBody(await response.json(), "UNSUPPORTED_MEDIA_TYPE");
  });

  it("413 for a body over the limit, declared or streamed", async () => {
    const big = JSON.stringify({ name: "x".repeat(4000) });
    const declared = await server.json("/contact", { method: "POST", body: big, headers: { "content-type": "application/json" } });
    expect(declared.status).toBe(413);
    expectErrorBody(declared.body, "PAYLOAD_TOO_LARGE");

    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 8; i++) controller.enqueue(encoder.encode(i === 0 ? `{"name":"${"y".repeat(500)}` : "y".repeat(500)));
        controller.enqueue(encoder.encode('"}'));
        controller.close();
      },
    });
    const streamed = await server.fetch("/contact", {
      method: "POST",
      body: stream,
      headers: { "content-type": "application/json" },
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expectErrorBody(await streamed.json(), "PAYLOAD_TOO_LARGE");
  });

  it("400 for a malformed percent-encoded path, still in the contract body", async () => {
    const { status, body } = await server.json("/contact%zz");
    expect(status).toBe(400);
    expectErrorBody(body, "INVALID_REQUEST");
  });
});

describe("tRPC mount", () => {
  it("carries the contract code, status and request id on errors", async () => {
    const response = await server.fetch("/trpc/contact.submit", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ json: { name: "", email: "x", company: "", message: "" } }),
    });
    expect(response.status).toBe(400);
    const requestId = response.headers.get("x-request-id");
    expect(requestId).toMatch(/^req_/);
    const body = await response.json();
    expect(body.error.json.data).toMatchObject({ appCode: "INVALID_REQUEST", httpStatus: 400, requestId });
    expect(JSON.stringify(body)).not.toContain("stack");
  });

  it("404 for an unknown procedure, with the contract code", async () => {
    const response = await server.fetch("/trpc/nope.nothing");
    expect(response.status).toBe(404);
    const body = await response.json();
    expect(body.error.json.data.appCode).toBe("NOT_FOUND");
  });
});

describe("connections", () => {
  it("keeps idle keep-alive sockets longer than a load balancer's usual 60 s idle timeout", async () => {
    const response = await server.fetch("/healthz");
    await response.arrayBuffer();
    // Node announces its idle timeout; a proxy that reuses sockets must see the server outlast it.
    expect(Number(response.headers.get("keep-alive")?.match(/timeout=(\d+)/)?.[1])).toBeGreaterThan(60);
  });
});

describe("ops endpoints", () => {
  it("/readyz is 503 until a dataset is imported", async () => {
    const { status, body } = await server.json("/readyz");
    expect(status).toBe(503);
    expectErrorBody(body, "SERVICE_UNAVAILABLE");
  });
});
