import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REST_BINDINGS } from "../app/rest-bindings.ts";
import { startTestServer, type TestServer } from "../../testing/index.ts";
import { DATA_ROUTES } from "../catalog/routes/index.ts";
import { EVENT_TYPES } from "../contract/events.ts";
import { HEADERS, STANDARD_HEADERS } from "../webhooks/delivery/signing.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("GET /v1/openapi.json", () => {
  it("is an OpenAPI 3.1 document of every /v1 route and every frozen REST binding, even before the first import", async () => {
    const res = await server.fetch("/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const doc = await res.json();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.paths["/console/listen-sessions/stream"].get.responses["200"].content).toHaveProperty("text/event-stream");
    const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    // ... and the listen stream, the one console route that is not a binding (it streams), and this document.
    const expected = [...DATA_ROUTES, { method: "GET", path: "/v1/openapi.json" }, ...REST_BINDINGS, { method: "GET", path: "/console/listen-sessions/stream" }].map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`);
    expect(operations.sort()).toEqual(expected.sort());
    // Every reference resolves.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of new Set(refs)) expect(doc.components.schemas, ref).toHaveProperty(ref);
    // The anonymous projection is part of the contract.
    expect(doc.paths["/v1/operators"].get.responses["200"].content["application/json"].schema.properties.data.anyOf).toHaveLength(2);
    // Operators' territories (additive, docs/catalog.md "Territories"): a required list of codes in the full projection.
    expect(doc.components.schemas.Operator.properties.territories).toMatchObject({ type: "array", items: { type: "string" } });
    expect(doc.components.schemas.Operator.required).toContain("territories");
    expect(doc.paths["/v1/operators"].get.description).toMatch(/territor/);
    expect(doc.paths["/v1/lookup/batch"].post.requestBody.content["application/json"].schema.properties.numbers.maxItems).toBe(100);
    expect(doc.paths["/contact"].post.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/ContactInquiryInput");
  });

  it("describes the webhook deliveries: one entry per event type, its payload, the X-IR21-* and the Standard Webhooks headers", async () => {
    const doc = (await server.json("/v1/openapi.json")).body as any;
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    const post = doc.webhooks["ir21.operator.added"].post;
    expect(post.parameters.map((p: { name: string }) => p.name).sort()).toEqual([...Object.values(HEADERS), ...Object.values(STANDARD_HEADERS)].sort());
    expect(post.parameters.find((p: { name: string }) => p.name === "X-IR21-Signature-Previous").required).toBe(false);
    expect(post.requestBody.content["application/json"].schema.properties.type.const).toBe("ir21.operator.added");
  });

  it("names PUBLIC_ORIGIN as its server and carries an example on every operation", async () => {
    const other = await startTestServer({ env: { PUBLIC_ORIGIN: "https://api.example.test" } });
    try {
      const doc = (await other.json("/v1/openapi.json")).body as any;
      expect(doc.servers).toEqual([{ url: "https://api.example.test", description: expect.any(String) }]);
    } finally {
      await other.close();
    }
    const doc = (await server.json("/v1/openapi.json")).body as any;
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(methods)) {
        const examples = Object.values(op.responses["200"].content ?? {}).filter((media: any) => media.example !== undefined);
        expect(examples.length, `${method} ${path}`).toBeGreaterThan(0);
      }
    }
    // Schema-level examples reach the sampled ones, so they satisfy the patterns (Redocly checks all).
    const lookup = doc.paths["/v1/lookup"].get.responses["200"].content["application/json"].example;
    expect(lookup.meta.ingested_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
