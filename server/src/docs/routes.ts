import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import type { H3, H3Event } from "h3";
import { AppError } from "../errors.ts";
import { pageSecurityHeaders, type CspDirectives } from "../http/security-headers.ts";
import { OPENAPI_PATH } from "./openapi.ts";

/**
 * The API reference (docs/api.md "Reference page"), rendered in the browser by Redoc from
 * GET /v1/openapi.json; everything comes from this server, nothing from a CDN:
 *
 *   GET /docs                          the page: a <redoc spec-url> element, which Redoc's standalone
 *                                      bundle initialises by itself (no inline script)
 *   GET /docs/redoc.standalone.js      Redoc's standalone bundle (npm `redoc`), gzip when accepted
 *   GET /v1/openapi.json               the document (openapi.ts), public, not metered, no dataset needed:
 *                                      credentials are not even read
 *
 * The release copies the bundle to dist/docs (tsdown.config.ts); a checkout reads it from the `redoc`
 * package.
 */
const BUNDLED = fileURLToPath(new URL("./docs/redoc.standalone.js", import.meta.url));
const ASSET_PATH = "/docs/redoc.standalone.js";

/**
 * The strict CSP plus what Redoc cannot work without, and nothing more: its CSS-in-JS
 * (styled-components) inserts <style> elements at run time, so `style-src 'unsafe-inline'`; its
 * search index runs in a Web Worker made from a blob: URL, so `worker-src blob:`; its icons are
 * data: images. Scripts stay `'self'` only: no inline script, no eval.
 */
export const DOCS_CSP: CspDirectives = {
  "style-src": ["'self'", "'unsafe-inline'"],
  "worker-src": ["'self'", "blob:"],
  "img-src": ["'self'", "data:"],
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ir21 API reference</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<noscript>The reference needs JavaScript. The document itself: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1).</noscript>
<redoc spec-url="/v1/openapi.json" hide-download-button="false"></redoc>
<script src="${ASSET_PATH}"></script>
</body>
</html>
`;

interface Asset {
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

function redocPath(): string {
  if (existsSync(BUNDLED)) return BUNDLED;
  return createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js");
}

let asset: Asset | null = null;
function loadAsset(): Asset {
  if (asset) return asset;
  let body: Buffer;
  try {
    body = readFileSync(redocPath());
  } catch {
    throw new AppError("SERVICE_UNAVAILABLE", "The API reference renderer (redoc) is not installed; GET /v1/openapi.json serves the document itself");
  }
  asset = { body, gzip: gzipSync(body, { level: 9 }), etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
  return asset;
}

/**
 * Mounts the reference page, its renderer and the OpenAPI document; `document` is asked on the first
 * request and kept (the wiring builds it from the route lists, docs/openapi.ts).
 * @example
 * mountApiDocs(app, () => buildOpenApiDocument(surface, origin));
 */
export function mountApiDocs(app: H3, document: () => object): void {
  let json: string | null = null;
  app.get(OPENAPI_PATH, () => {
    json ??= JSON.stringify(document());
    return new Response(json, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" } });
  });
  app.get("/docs", () => new Response(PAGE, { headers: { ...pageSecurityHeaders(DOCS_CSP), "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } }));
  app.get(ASSET_PATH, (event: H3Event) => {
    const file = loadAsset();
    const headers = new Headers({ "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache", etag: file.etag, vary: "Accept-Encoding", "x-content-type-options": "nosniff" });
    if (event.req.headers.get("if-none-match")?.split(",").some((tag) => tag.trim() === file.etag)) return new Response(null, { status: 304, headers });
    const gzip = /\bgzip\b/.test(event.req.headers.get("accept-encoding") ?? "");
    if (gzip) headers.set("content-encoding", "gzip");
    const body = gzip ? file.gzip : file.body;
    headers.set("content-length", String(body.byteLength));
    return new Response(body as Uint8Array<ArrayBuffer>, { headers });
  });
}
