import { defineConfig } from "tsdown";

export default defineConfig({
  entry: { index: "src/index.ts", webhooks: "src/webhooks.ts" },
  format: ["esm"],
  platform: "neutral",
  dts: true,
  deps: { neverBundle: [/^(?!@ir21\/server$)[^./]/] },
});
