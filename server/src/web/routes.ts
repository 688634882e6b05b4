import type { H3, H3Event } from "h3";
import type { Config } from "../config.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { pageSecurityHeaders } from "../http/security-headers.ts";
import { requestIdOf } from "../http/request-id.ts";
import { consoleBuilt, DEFAULT_WEB_DIST_DIR, indexMtimeMs, loadConsoleFiles, type ConsoleFile, type ConsoleFiles } from "./console-files.ts";

/**
 * The web console (docs/console.md "Web console"), served at `/` and under `/app/`:
 *
 *   GET /                    the console's page (it moves the address to /app/)
 *   GET /app, /app/<route>   the same page for every route of the app: deep links work
 *   GET /app/assets/<file>   hashed scripts and styles, `Cache-Control: immutable`
 *   GET /app/<file>          other files of the build (favicon.svg), revalidated
 *   GET /login               302 to /app/sign-in
 *
 * The page answers `no-cache` with an ETag, and every answer carries the strict CSP. The app's routes
 * live under /app because GETs under /console are API paths. Without a build the server says so (503
 * SERVICE_UNAVAILABLE naming the command) and every other route works as before.
 */
const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "no-cache";

export function mountWebConsole(app: H3, deps: { config: Pick<Config, "webDistDir">; log: Logger }): void {
  const dir = deps.config.webDistDir ?? DEFAULT_WEB_DIST_DIR;
  let loaded: ConsoleFiles | null = null;
  let warned = false;

  /** The build, read at the first request and again when index.html changes (a rebuild). */
  const current = (): ConsoleFiles => {
    const mtime = indexMtimeMs(dir);
    if (mtime === null || !consoleBuilt(dir)) {
      if (!warned) deps.log.warn({ dir }, "web console not built: run `pnpm -F @ir21/web build` (or set WEB_DIST_DIR)");
      warned = true;
      throw new AppError("SERVICE_UNAVAILABLE", `The web console is not built (no index.html in ${dir}). Build it with \`pnpm -F @ir21/web build\` (pnpm install does it) or point WEB_DIST_DIR at a build, then reload.`);
    }
    if (!loaded || loaded.indexMtimeMs !== mtime) loaded = loadConsoleFiles(dir);
    return loaded;
  };

  const page = (event: H3Event) => send(event, current().index, REVALIDATE);
  app.all("/", (event) => (refuseWrites(event), page(event)));
  app.all("/app", (event) => (refuseWrites(event), page(event)));
  app.all("/app/**", (event) => {
    refuseWrites(event);
    const path = event.url.pathname.slice("/app/".length);
    const files = current();
    const file = files.files.get(path);
    if (file && path !== "index.html") return send(event, file, path.startsWith("assets/") ? IMMUTABLE : REVALIDATE);
    // A missing asset is an error, never the page: a stale script URL must not get HTML back.
    if (path.startsWith("assets/") || /\.[a-z0-9]+$/i.test(path)) throw new AppError("NOT_FOUND", `No file /app/${path} in the web console`);
    return page(event);
  });
  app.get("/login", () => new Response(null, { status: 302, headers: { location: "/app/sign-in", "cache-control": "no-cache" } }));
}

function refuseWrites(event: H3Event): void {
  const method = event.req.method;
  if (method !== "GET" && method !== "HEAD") throw new AppError("METHOD_NOT_ALLOWED", `${method} is not allowed here: the web console is read with GET`, { headers: { Allow: "GET, HEAD" } });
}

function send(event: H3Event, file: ConsoleFile, cacheControl: string): Response {
  const headers = new Headers({
    ...pageSecurityHeaders(),
    "content-type": file.type,
    "cache-control": cacheControl,
    etag: file.etag,
    vary: "Accept-Encoding",
    "x-request-id": requestIdOf(event),
  });
  if (ifNoneMatch(event.req.headers.get("if-none-match"), file.etag)) return new Response(null, { status: 304, headers });
  const coding = preferredCoding(event.req.headers.get("accept-encoding"), file);
  const body = coding ? file.encoded[coding]! : file.body;
  if (coding) headers.set("content-encoding", coding === "gzip" ? "gzip" : "br");
  headers.set("content-length", String(body.byteLength));
  return new Response(event.req.method === "HEAD" ? null : (body as Uint8Array<ArrayBuffer>), { status: 200, headers });
}

function ifNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t === etag || t === `W/${etag}`;
  });
}

/** br over gzip when the client accepts it (q > 0) and the build has it; identity otherwise. */
function preferredCoding(header: string | null, file: ConsoleFile): "br" | "gzip" | null {
  if (!header) return null;
  const accepted = new Map<string, number>();
  for (const part of header.split(",")) {
    const [coding = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    accepted.set(coding.trim(), q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const ok = (coding: string) => (accepted.get(coding) ?? accepted.get("*") ?? 0) > 0;
  if (file.encoded.br && ok("br")) return "br";
  if (file.encoded.gzip && ok("gzip")) return "gzip";
  return null;
}
