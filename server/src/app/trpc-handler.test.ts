import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../testing/index.ts";
import { MAX_BATCH_CALLS } from "./trpc-handler.ts";

/** Batched tRPC calls (docs/architecture.md "The HTTP edge"): bounded, and each call rate-limited like a single one. */
const CONTACT_LIMIT = 5;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { CONTACT_IP_HOURLY_LIMIT: String(CONTACT_LIMIT), TRUST_PROXY: "true" } });
});
afterAll(() => server.close());

const inquiry = (i: number) => ({ json: { name: `Batch ${i}`, email: `b${i}@example.com`, company: "Batch Ltd", message: "A batched enterprise inquiry." } });

/** POST /trpc/<path>,<path>,…?batch=1 with one input per call, from `address`. */
function batch(calls: number, address: string) {
  const paths = Array(calls).fill("contact.submit").join(",");
  const inputs = Object.fromEntries(Array.from({ length: calls }, (_, i) => [String(i), inquiry(i)]));
  return server.fetch(`/trpc/${paths}?batch=1`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": address },
    body: JSON.stringify(inputs),
  });
}

describe("tRPC batches", () => {
  it(`more than ${MAX_BATCH_CALLS} calls in one request are refused whole with 400, nothing runs`, async () => {
    const response = await batch(MAX_BATCH_CALLS + 1, "198.51.100.1");
    expect(response.status).toBe(400);
    const body = (await response.json()) as Array<{ error: { json: { data: { appCode: string } } } }> | { error: { json: { data: { appCode: string } } } };
    const errors = Array.isArray(body) ? body : [body];
    expect(errors.every((e) => e.error.json.data.appCode === "INVALID_REQUEST")).toBe(true);
    expect(await server.deps.db.selectFrom("contact_inquiries").select("id").where("ip", "=", "198.51.100.1").execute()).toEqual([]);
  });

  it(`a batch of ${MAX_BATCH_CALLS} runs, and every call counts against the rate limit as if it came alone`, async () => {
    const response = await batch(MAX_BATCH_CALLS, "198.51.100.2");
    const results = (await response.json()) as Array<{ result?: unknown; error?: { json: { data: { appCode: string } } } }>;
    expect(results).toHaveLength(MAX_BATCH_CALLS);
    expect(results.filter((r) => r.result)).toHaveLength(CONTACT_LIMIT);
    expect(results.filter((r) => r.error?.json.data.appCode === "RATE_LIMITED")).toHaveLength(MAX_BATCH_CALLS - CONTACT_LIMIT);
    expect(await server.deps.db.selectFrom("contact_inquiries").select("id").where("ip", "=", "198.51.100.2").execute()).toHaveLength(CONTACT_LIMIT);
    // ...and the window is used up for single calls too.
    expect((await batch(1, "198.51.100.2")).status).toBe(429);
  });

  it("a batch mixing queries and mutations is refused with tRPC's JSON error, typed as JSON (found by tests/edge)", async () => {
    const response = await server.fetch("/trpc/auth.agreement,contact.submit?batch=1");
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await response.json()) as { error: { json: { data: { appCode: string } } } };
    expect(body.error.json.data.appCode).toBe("INVALID_REQUEST");
  });
});
