import { readFileSync } from "node:fs";
import { STATUS_CODES } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../testing/index.ts";

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
  it("wraps a success in {code: 0, data, meta} and echoes the request id in X-Request-Id; /healthz names the version", async () => {
    const { status, headers, body } = await server.json("/healthz");
    expect(status).toBe(200);
    expect(body.code).toBe(0);
    // The independent reference for the version: the package's own manifest.
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    expect(body.data).toEqual({ status: "ok", version, commit: process.env.IR21_COMMIT ? expect.any(String) : null });
    expect(headers.get("x-ir21-version")).toBe(version);
    expect(Object.keys(body.meta).sort()).toEqual(["dataset_version", "ingested_at", "request_id", "source_mode", "source_published_at"]);
    expect(headers.get("x-request-id")).toBe(body.meta.request_id);
  });

  it("gives every request its own id unless the caller sends an acceptable X-Request-Id or traceparent", async () => {
    const a = await server.json("/healthz");
    const b = await server.json("/healthz");
    expect(a.body.meta.request_id).toMatch(/^req_[0-9a-z]{26}$/);
    expect(a.body.meta.request_id).not.toBe(b.body.meta.request_id);
    // Adopted: [A-Za-z0-9._-]{1,64}, echoed in the header, meta and error bodies.
    const adopted = await server.json("/healthz", { headers: { "x-request-id": "lb-7f3a.b_9" } });
    expect(adopted.body.meta.request_id).toBe("lb-7f3a.b_9");
    expect(adopted.headers.get("x-request-id")).toBe("lb-7f3a.b_9");
    const failed = await server.json("/no/such/route", { headers: { "x-request-id": "x".repeat(64) } });
    expect(Object.keys(failed.body as object).sort()).toEqual(["code", "message", "request_id"]);
    expect((failed.body as { request_id: string }).request_id).toBe("x".repeat(64));
    expect(failed.headers.get("x-request-id")).toBe("x".repeat(64));
    // A W3C traceparent's trace id when there is no acceptable X-Request-Id.
    const traced = await server.json("/healthz", { headers: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "x-request-id": "has space" } });
    expect(traced.body.meta.request_id).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    // Ignored: too long, characters outside the set, an all-zero or malformed trace id.
    const variants: Record<string, string>[] = [{ "x-request-id": "y".repeat(65) }, { "x-request-id": "a\"b" }, { "x-request-id": "ab/cd" }, { traceparent: `00-${"0".repeat(32)}-00f067aa0ba902b7-01` }, { traceparent: "00-4bf92f35-01" }];
    for (const headers of variants) {
      const ignored = await server.json("/healthz", { headers });
      expect(ignored.body.meta.request_id, JSON.stringify(headers)).toMatch(/^req_[0-9a-z]{26}$/);
    }
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

describe("headers every answer carries", () => {
  it("X-Request-Id and X-Ir21-Version on successes and on errors of every kind, RateLimit on a /v1 query that failed, a reason phrase on every status line", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    const answers = {
      success: await server.fetch("/healthz"),
      "unknown route": await server.fetch("/no/such/route"),
      "body too large": await server.fetch("/contact", { method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(4096) }),
      "tRPC error": await server.fetch("/trpc/nope.nothing"),
      "tRPC success": await server.fetch("/trpc/auth.me"),
      "/v1 query that failed": await server.fetch("/v1/lookup?number=x"),
      "/v1 method not allowed": await server.fetch("/v1/lookup", { method: "DELETE" }),
    };
    for (const [name, response] of Object.entries(answers)) {
      await response.arrayBuffer();
      expect(response.headers.get("x-request-id"), name).toMatch(/^req_[0-9a-z]{26}$/);
      expect(response.headers.get("x-ir21-version")?.split("+")[0], name).toBe(version);
      // http/status-line.ts: srvx alone wrote `HTTP/1.1 200 ` with an empty phrase.
      expect(response.statusText, name).toBe(STATUS_CODES[response.status]);
    }
    expect([answers["unknown route"].status, answers["body too large"].status, answers["tRPC error"].status, answers["/v1 query that failed"].status]).toEqual([404, 413, 404, 400]);
    expect(answers["/v1 query that failed"].headers.get("ratelimit")).toMatch(/^"minute";r=\d+;t=\d+$/);
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
