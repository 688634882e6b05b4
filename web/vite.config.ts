import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

/**
 * The console is served by the server under /app/ (docs/console.md "Web console"): the index for `/`
 * and every `/app/*` route, hashed files under /app/assets/ (cached as immutable). Nothing is loaded
 * from another origin, and the built index has no inline script (the server's CSP forbids it).
 *
 * `pnpm -F @ir21/web dev` serves it with hot reload and forwards the API paths to a server on :8787;
 * start that server with PUBLIC_ORIGIN=http://localhost:8787,http://localhost:5173 so sign-in from the
 * dev origin passes the cross-site check.
 */
const api = process.env.IR21_DEV_API ?? "http://localhost:8787";

export default defineConfig({
  base: "/app/",
  plugins: [react(), precompress()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // One file of inline script would break the CSP; keep every asset a file, however small.
    assetsInlineLimit: 0,
  },
  server: {
    proxy: Object.fromEntries(["/trpc", "/v1", "/auth", "/console", "/contact", "/docs"].map((path) => [path, api])),
  },
});

/**
 * Writes `<file>.br` and `<file>.gz` beside every script, stylesheet, SVG and HTML file of the build,
 * so the server sends compressed bytes without compressing per request or per start. A few lines of
 * node:zlib rather than a plugin dependency; files that do not shrink are left alone.
 */
function precompress(): Plugin {
  return {
    name: "ir21-precompress",
    apply: "build",
    writeBundle(options) {
      const dir = options.dir!;
      const walk = (folder: string): string[] => readdirSync(folder, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(folder, e.name)) : [join(folder, e.name)]));
      for (const file of walk(dir).filter((f) => /\.(js|css|html|svg|json)$/.test(f))) {
        const raw = readFileSync(file);
        const br = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
        const gz = gzipSync(raw, { level: 9 });
        if (br.length < raw.length) writeFileSync(`${file}.br`, br);
        if (gz.length < raw.length) writeFileSync(`${file}.gz`, gz);
      }
    },
  };
}
