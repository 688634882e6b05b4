import { defineConfig } from "tsdown";

/**
 * The published SDK: ES module and CommonJS builds of both entries, with @trpc/client, superjson (with copy-anything) and
 * eventsource-parser bundled in (they are devDependencies, so nothing is installed beside the SDK),
 * and declarations made self-contained: the types it uses from @trpc/server and @trpc/client, and
 * the server's router type, are inlined, so consumers need neither those packages nor TypeScript.
 */
export default defineConfig({
  entry: { index: "src/index.ts", webhooks: "src/webhooks.ts" },
  format: ["esm", "cjs"],
  platform: "neutral",
  target: "es2022",
  dts: true,
  // Everything bare that is not one of these stays external (the server's own imports: its types are
  // all the SDK takes from it, and the type bundle keeps only what the router type reaches).
  deps: { neverBundle: [/^(?!(?:@ir21\/server|@trpc\/(?:client|server)(?:\/.*)?|superjson|copy-anything|is-what|eventsource-parser)$)[^./]/] },
});
