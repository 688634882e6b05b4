import { gunzipSync } from "node:zlib";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../testing/index.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("GET /docs", () => {
  it("is an HTML page that loads only this server's Redoc bundle and the served document, under a page CSP", async () => {
    const res = await server.fetch("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await res.text();
    expect(html).toContain('<redoc spec-url="/v1/openapi.json"');
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!.trim());
    expect(scripts).toEqual(['src="/docs/redoc.standalone.js"']); // no inline script
    expect(html).not.toMatch(/https?:\/\//); // nothing from another origin
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });

  it("serves the renderer's bundle, byte for byte the npm package's, gzipped when accepted, revalidated by ETag", async () => {
    const reference = readFileSync(createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js"));
    const plain = await server.fetch("/docs/redoc.standalone.js", { headers: { "accept-encoding": "identity" } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(Buffer.from(await plain.arrayBuffer()).equals(reference)).toBe(true);
    const etag = plain.headers.get("etag")!;
    const gz = await new Promise<Buffer>((resolve, reject) => {
      // fetch would decode the body itself; read the raw bytes.
      import("node:http").then(({ get }) =>
        get(`${server.url}/docs/redoc.standalone.js`, { headers: { "accept-encoding": "gzip" } }, (r) => {
          expect(r.headers["content-encoding"]).toBe("gzip");
          const chunks: Buffer[] = [];
          r.on("data", (c: Buffer) => chunks.push(c));
          r.on("end", () => resolve(Buffer.concat(chunks)));
        }).on("error", reject),
      );
    });
    expect(gz.length).toBeLessThan(reference.length / 2);
    expect(gunzipSync(gz).equals(reference)).toBe(true);
    expect((await server.fetch("/docs/redoc.standalone.js", { headers: { "if-none-match": etag } })).status).toBe(304);
  });
});
