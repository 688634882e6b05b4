import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REST_BINDINGS } from "../../http/rest-bindings.ts";
import { startTestServer, type TestServer } from "../../testing/index.ts";
import { DATA_ROUTES } from "./index.ts";
import { buildOpenApiDocument } from "./openapi.ts";

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
    // ... and the listen stream, the one console route that is not a binding (it streams).
    const expected = [...DATA_ROUTES, ...REST_BINDINGS, { method: "GET", path: "/console/listen-sessions/stream" }].map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`);
    expect(operations.sort()).toEqual(expected.sort());
    // Every reference resolves.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of new Set(refs)) expect(doc.components.schemas, ref).toHaveProperty(ref);
    // The anonymous projection is part of the contract.
    expect(doc.paths["/v1/operators"].get.responses["200"].content["application/json"].schema.properties.data.oneOf).toHaveLength(2);
    expect(doc.paths["/v1/lookup/batch"].post.requestBody.content["application/json"].schema.properties.numbers.maxItems).toBe(100);
    expect(doc.paths["/contact"].post.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/ContactInquiryInput");
  });

  it("matches the committed snapshot (update it deliberately with vitest -u when the API changes)", async () => {
    await expect(JSON.stringify(buildOpenApiDocument(DATA_ROUTES), null, 2) + "\n").toMatchFileSnapshot("./__snapshots__/openapi.json");
  });
});
