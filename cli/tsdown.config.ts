import { defineConfig } from "tsdown";

/**
 * The CLI's bundle, cli/dist/main.mjs: the CLI's and the workspace SDK's sources in one ES module,
 * published packages left to node_modules. bin/ir21.js runs it when it is current; a process then
 * starts without compiling TypeScript (about a third of the time under tsx).
 */
export default defineConfig({
  entry: { main: "src/main.ts" },
  format: ["esm"],
  platform: "node",
  target: "node20.19",
  outDir: "dist",
  dts: false,
  sourcemap: true,
  // The workspace SDK is a dependency too, but its package points at TypeScript: bundle it.
  deps: { alwaysBundle: [/^@ir21\//] },
});
