import { defineConfig } from "tsdown";

/**
 * The published CLI: one ES module, dist/ir21.mjs, holding the CLI, the workspace SDK and every
 * library they use (citty, picocolors, string-width, @clack/prompts, tRPC, superjson…), so the
 * package has no runtime dependencies and runs on Node alone, without compiling anything. The
 * libraries are devDependencies for that reason: tsdown bundles what the package does not declare.
 */
export default defineConfig({
  entry: { ir21: "src/bin.ts" },
  format: ["esm"],
  platform: "node",
  target: "node20.19",
  outDir: "dist",
  clean: true,
  dts: false,
  sourcemap: false,
  minify: false,
  outExtensions: () => ({ js: ".mjs" }),
  banner: { js: "#!/usr/bin/env node" },
  deps: { alwaysBundle: [/^@ir21\//], onlyBundle: false },
  outputOptions: { codeSplitting: false },
});
