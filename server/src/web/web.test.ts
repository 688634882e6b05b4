import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, brotliDecompressSync, gzipSync, brotliCompressSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../testing/index.ts";

/** A build as Vite writes it: the page, a hashed script with its .br/.gz, and a public file. */
const INDEX = '<!doctype html><html><head><script type="module" src="/app/assets/index-AbC123.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify("x".repeat(2000))});`;

let dist: string;
let server: TestServer;
beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), "ir21-web-dist-"));
  mkdirSync(join(dist, "assets"));
  writeFileSync(join(dist, "index.html"), INDEX);
  writeFileSync(join(dist, "assets", "index-AbC123.js"), SCRIPT);
  writeFileSync(join(dist, "assets", "index-AbC123.js.gz"), gzipSync(SCRIPT));
  writeFileSync(join(dist, "assets", "index-AbC123.js.br"), brotliCompressSync(SCRIPT));
  writeFileSync(join(dist, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  server = await startTestServer({ env: { WEB_DIST_DIR: dist } });
});
afterAll(async () => {
  await server.close();
  rmSync(dist, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}) => server.fetch(path, { headers, redirect: "manual" });

describe("the web console's files", () => {
  it("answers / and every /app route with the page: no-cache, an ETag, and the security headers", async () => {
    for (const path of ["/", "/app", "/app/", "/app/keys", "/app/webhooks/whk_1/deliveries/dlv_2", "/app/explorer/browse?country=CN"]) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(await response.text(), path).toBe(INDEX);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expect(response.headers.get("etag")).toMatch(/^"[\w-]{22}"$/);
      expect(response.headers.get("x-request-id")).toMatch(/^req_/);
      const csp = response.headers.get("content-security-policy")!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe-inline");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("referrer-policy")).toBe("same-origin");
    }
  });

  it("revalidates the page with If-None-Match (304) and answers HEAD without a body", async () => {
    const first = await get("/app/usage");
    const etag = first.headers.get("etag")!;
    const again = await get("/app/keys", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const head = await server.fetch("/app/keys", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(INDEX)));
  });

  it("serves hashed assets as immutable, in the encoding the client prefers", async () => {
    const raw = await get("/app/assets/index-AbC123.js", { "accept-encoding": "identity" });
    expect(raw.status).toBe(200);
    expect(raw.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(raw.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(raw.headers.get("content-encoding")).toBeNull();
    expect(await raw.text()).toBe(SCRIPT);

    // Read the wire bytes (fetch would decode them): node:http through a plain request.
    const wire = async (acceptEncoding: string) => {
      const { request } = await import("node:http");
      return new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
        request(`${server.url}/app/assets/index-AbC123.js`, { headers: { "accept-encoding": acceptEncoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ encoding: res.headers["content-encoding"], body: Buffer.concat(chunks) }));
        })
          .on("error", reject)
          .end();
      });
    };
    const br = await wire("gzip, deflate, br");
    expect(br.encoding).toBe("br");
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);
    const gz = await wire("gzip;q=1, br;q=0");
    expect(gz.encoding).toBe("gzip");
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);
    expect((await get("/app/assets/index-AbC123.js")).headers.get("vary")).toBe("Accept-Encoding");
  });

  it("answers a missing asset with the contract's 404, never with the page", async () => {
    for (const path of ["/app/assets/index-old999.js", "/app/missing.css"]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(Object.keys(await response.json()).sort()).toEqual(["code", "message", "request_id"]);
    }
    const favicon = await get("/app/favicon.svg");
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get("content-type")).toBe("image/svg+xml");
    expect(favicon.headers.get("cache-control")).toBe("no-cache");
  });

  it("refuses writes (405 with Allow) and redirects /login to the sign-in page", async () => {
    const post = await server.fetch("/app/keys", { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect((await post.json()).code).toBe("METHOD_NOT_ALLOWED");
    const login = await get("/login");
    expect(login.status).toBe(302);
    expect(login.headers.get("location")).toBe("/app/sign-in");
  });

  it("leaves the API paths alone: /console/* GETs, /v1, /auth, /healthz", async () => {
    expect((await get("/console/api-keys")).status).toBe(401);
    expect((await get("/auth/me")).status).toBe(401);
    expect((await get("/healthz")).status).toBe(200);
    expect((await get("/v1/meta")).headers.get("content-type")).toMatch(/json/);
    expect((await get("/console")).headers.get("content-type")).toMatch(/json/);
  });
});

describe("without a build", () => {
  it("says the console is not built (503 naming the command) instead of failing, and the API still works", async () => {
    const empty = mkdtempSync(join(tmpdir(), "ir21-web-empty-"));
    const bare = await startTestServer({ env: { WEB_DIST_DIR: empty } });
    try {
      for (const path of ["/", "/app/keys", "/app/assets/index-AbC123.js"]) {
        const response = await bare.fetch(path);
        expect(response.status, path).toBe(503);
        const body = await response.json();
        expect(body.code).toBe("SERVICE_UNAVAILABLE");
        expect(body.message).toContain("pnpm -F @ir21/web build");
      }
      expect(bare.logs.entries().some((entry) => /web console not built/.test(String(entry.msg)))).toBe(true);
      expect((await bare.fetch("/healthz")).status).toBe(200);
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
