import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The built web console (web/dist, from `pnpm -F @ir21/web build`, which `pnpm install` runs) held in
 * memory: a few hundred kilobytes, with the .br/.gz variants the build wrote beside each file, so a
 * request never touches the disk or compresses anything.
 */

export interface ConsoleFile {
  body: Uint8Array;
  /** Precompressed variants by content-coding, when the build wrote them. */
  encoded: Partial<Record<"br" | "gzip", Uint8Array>>;
  type: string;
  etag: string;
}

export interface ConsoleFiles {
  dir: string;
  index: ConsoleFile;
  /** By URL path under /app/, e.g. "assets/index-3f9a.js", "favicon.svg". */
  files: Map<string, ConsoleFile>;
  /** index.html's mtime when read: a rebuild while the server runs is picked up at the next request. */
  indexMtimeMs: number;
}

/**
 * The console's build: dist/web beside the server bundle (the release copies it there), else web/dist
 * of this checkout, beside the server package.
 */
const BUNDLED_WEB_DIR = fileURLToPath(new URL("./web", import.meta.url));
export const DEFAULT_WEB_DIST_DIR = existsSync(join(BUNDLED_WEB_DIR, "index.html")) ? BUNDLED_WEB_DIR : fileURLToPath(new URL("../../../web/dist", import.meta.url));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** Whether `dir` holds a build (its index.html); the server explains a missing one instead of failing. */
export function consoleBuilt(dir: string): boolean {
  return existsSync(join(dir, "index.html"));
}

export function indexMtimeMs(dir: string): number | null {
  try {
    return statSync(join(dir, "index.html")).mtimeMs;
  } catch {
    return null;
  }
}

/** Reads every file of the build. Throws when the directory has no index.html. */
export function loadConsoleFiles(dir: string): ConsoleFiles {
  const indexMtime = indexMtimeMs(dir);
  if (indexMtime === null) throw new Error(`No web console build in ${dir}`);
  const files = new Map<string, ConsoleFile>();
  const walk = (folder: string): string[] => readdirSync(folder, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(folder, e.name)) : [join(folder, e.name)]));
  const paths = walk(dir);
  const present = new Set(paths);
  for (const path of paths) {
    if (path.endsWith(".br") || path.endsWith(".gz")) continue;
    const body = readFileSync(path);
    const encoded: ConsoleFile["encoded"] = {};
    if (present.has(`${path}.br`)) encoded.br = readFileSync(`${path}.br`);
    if (present.has(`${path}.gz`)) encoded.gzip = readFileSync(`${path}.gz`);
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
    files.set(relative(dir, path).split(sep).join("/"), { body, encoded, type: TYPES[extname(path)] ?? "application/octet-stream", etag });
  }
  return { dir, index: files.get("index.html")!, files, indexMtimeMs: indexMtime };
}
