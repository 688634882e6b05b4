/**
 * The common suite (DESIGN.md "Tests and benchmarks"): every route the OpenAPI document lists —
 * the /v1 data API and the frozen auth/console/webhook paths — is asked the same hostile questions:
 * no credentials, wrong credentials, a key where a session is required, malformed JSON, a body of the
 * wrong shape or media type, out-of-range page sizes. Each answer must be the contract's error body
 * with its request id. Driven by the document, so a route added later is covered without a new row.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type SignedIn, type TestServer } from "@ir21/server/testing";

interface Operation {
  method: string;
  path: string;
  /** Alternatives: `{}` anonymous, `{apiKey: []}`, `{session: []}`. */
  security: Array<Record<string, unknown>>;
  parameters: Array<{ in: string; name: string; schema?: { minimum?: number; maximum?: number } }>;
  hasBody: boolean;
}

let server: TestServer;
let owner: SignedIn;
let apiKey: Record<string, string>;
let operations: Operation[];

beforeAll(async () => {
  server = await startTestServer({ dataset: "demo" });
  owner = await signIn(server);
  apiKey = (await createApiKey(server, owner)).headers;
  const doc = (await server.json("/v1/openapi.json")).body as { paths: Record<string, Record<string, any>> };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      security: op.security ?? [],
      parameters: op.parameters ?? [],
      hasBody: Boolean(op.requestBody),
    })),
  );
}, 120_000);
afterAll(() => server.close());

/** A concrete URL for a templated path: plausible values that name nothing in particular. */
function urlOf(op: Operation, query = ""): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === "file" ? "networks.csv" : name === "iso2" ? "CN" : `${name}_nonexistent0000`));
  return query ? `${path}?${query}` : path;
}

const anonymousAllowed = (op: Operation) => op.security.some((alternative) => Object.keys(alternative).length === 0);
const sessionOnly = (op: Operation) => op.security.length > 0 && op.security.every((alternative) => "session" in alternative);
const acceptsApiKey = (op: Operation) => op.security.some((alternative) => "apiKey" in alternative);
/** Logout is idempotent by design (docs/auth.md): without a session it still answers logged_out. */
const isLogout = (op: Operation) => op.path === "/auth/logout";

async function call(op: Operation, init: { headers?: Record<string, string>; body?: string; query?: string } = {}) {
  const response = await server.fetch(urlOf(op, init.query), {
    method: op.method,
    headers: { ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...init.headers },
    body: init.body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

/** The contract's error body, exactly, with the request id also in X-Request-Id. */
function expectErrorBody(label: string, answer: { status: number; headers: Headers; text: string }, status: number, code?: string) {
  expect(answer.status, `${label}: ${answer.text.slice(0, 200)}`).toBe(status);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  expect(Object.keys(body).sort(), label).toEqual(["code", "message", "request_id"]);
  expect(typeof body.code === "string" && /^[A-Z][A-Z0-9_]*$/.test(body.code), `${label}: code ${String(body.code)}`).toBe(true);
  if (code) expect(body.code, label).toBe(code);
  expect(body.request_id, label).toBe(answer.headers.get("x-request-id"));
  expect(answer.text, label).not.toMatch(/\bat .+\.(ts|js):\d+|stack/i);
}

describe("every route in the OpenAPI document", () => {
  it("covers the whole surface", () => {
    expect(operations.length).toBeGreaterThanOrEqual(40);
    for (const path of ["/auth/login", "/console/api-keys", "/console/webhooks/{id}/rotate-secret", "/contact", "/v1/lookup", "/v1/changes", "/v1/snapshot"]) {
      expect(operations.map((op) => op.path)).toContain(path);
    }
  });

  it("refuses a caller without credentials where credentials are required (401)", async () => {
    const guarded = operations.filter((op) => !anonymousAllowed(op) && !isLogout(op));
    expect(guarded.length).toBeGreaterThan(20);
    for (const op of guarded) expectErrorBody(`${op.method} ${op.path}`, await call(op, op.hasBody ? { body: "{}" } : {}), 401, "UNAUTHORIZED");
  });

  it("refuses an unknown or malformed API key on every data route instead of answering anonymously (401)", async () => {
    const dataRoutes = operations.filter((op) => acceptsApiKey(op) && op.path !== "/v1/openapi.json");
    expect(dataRoutes.length).toBeGreaterThan(10);
    for (const key of [`ir21_${"0".repeat(43)}`, "not-a-key"]) {
      for (const op of dataRoutes) {
        expectErrorBody(`${op.method} ${op.path} key=${key.slice(0, 8)}`, await call(op, { headers: { "x-api-key": key }, ...(op.hasBody ? { body: "{}" } : {}) }), 401, "UNAUTHORIZED");
      }
    }
  });

  it("refuses a forged or revoked session cookie (401)", async () => {
    const cookieName = owner.cookie.split("=")[0]!;
    const forged = { cookie: `${cookieName}=ses_00000000000000000000000000.forgedsecretforgedsecretforged` };
    const routes = operations.filter((op) => !anonymousAllowed(op) && !isLogout(op));
    for (const op of routes) expectErrorBody(`${op.method} ${op.path}`, await call(op, { headers: forged, ...(op.hasBody ? { body: "{}" } : {}) }), 401, "UNAUTHORIZED");
  });

  it("does not let an API key act for the account on console routes (403)", async () => {
    const consoleRoutes = operations.filter((op) => sessionOnly(op) && !isLogout(op) && op.path !== "/auth/me");
    expect(consoleRoutes.length).toBeGreaterThan(15);
    for (const op of consoleRoutes) expectErrorBody(`${op.method} ${op.path}`, await call(op, { headers: apiKey, ...(op.hasBody ? { body: "{}" } : {}) }), 403, "FORBIDDEN");
  });

  it("answers malformed JSON, a non-object body and a non-JSON media type with 400/400/415", async () => {
    const withBody = operations.filter((op) => op.hasBody);
    expect(withBody.length).toBeGreaterThan(8);
    for (const op of withBody) {
      const label = `${op.method} ${op.path}`;
      expectErrorBody(`${label} malformed`, await call(op, { headers: owner.headers, body: '{"name": ' }), 400, "MALFORMED_JSON");
      expectErrorBody(`${label} array`, await call(op, { headers: owner.headers, body: "[1, 2]" }), 400, "INVALID_REQUEST");
      expectErrorBody(`${label} text`, await call(op, { headers: { ...owner.headers, "content-type": "text/plain" }, body: "hello" }), 415, "UNSUPPORTED_MEDIA_TYPE");
    }
  });

  it("refuses page sizes outside each list's documented range (400)", async () => {
    const paged = operations.flatMap((op) => {
      const limit = op.parameters.find((p) => p.in === "query" && p.name === "limit");
      return limit ? [{ op, min: limit.schema?.minimum ?? 1, max: limit.schema?.maximum }] : [];
    });
    expect(paged.length).toBeGreaterThan(5);
    // The contract fixes 1..100 for the delivery list; the data lists document their own maximum.
    expect(paged.find(({ op }) => op.path.endsWith("/deliveries"))).toMatchObject({ min: 1, max: 100 });
    for (const { op, min, max } of paged) {
      expect(max, `${op.path} documents its maximum limit`).toBeTypeOf("number");
      for (const limit of [String(min - 1), String(max! + 1), "ten"]) {
        expectErrorBody(`${op.method} ${op.path} limit=${limit}`, await call(op, { headers: owner.headers, query: `limit=${limit}` }), 400, "INVALID_REQUEST");
      }
    }
  });
});
