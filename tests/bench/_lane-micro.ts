import { createApiKey, signIn, startTestServer } from "@ir21/server/testing";
import { serveOnNode } from "../../server/src/data-api/lane.ts";
import { catalogApi } from "../../server/src/app/deps.ts";
import { lookupRoute } from "../../server/src/catalog/routes/lookup.ts";
const limits = { PLAN_FREE_MONTHLY_QUOTA: "1000000000", PLAN_FREE_RATE_LIMIT_PER_MINUTE: "1000000000", ANONYMOUS_RATE_LIMIT_PER_MINUTE: "1000000000", LOG_LEVEL: "warn" };
const setup = await startTestServer({ dataset: "reference", env: limits });
const key = await createApiKey(setup, await signIn(setup));
const lane = serveOnNode(lookupRoute, catalogApi(setup.deps));
const ranges = (await setup.json("/v1/number-ranges?country=CN&limit=200", { headers: key.headers })).body.data.items as { prefix: string }[];
const F = process.env.FIELDS ?? "number,country_iso2,valid,number_type,range_holder";
const urls = ranges.map((r) => `/v1/lookup?number=%2B${(r.prefix + "12345678901234").slice(0, 13)}${F ? `&fields=${F}` : ""}`);
const socket = { remoteAddress: "127.0.0.1" };
let done = 0; let bytes = 0;
const one = (i: number) => new Promise<void>((resolve) => {
  const req = { method: "GET", url: urls[i % urls.length], headers: { host: "x", "x-api-key": key.headers["x-api-key"] }, socket } as any;
  const res = { writeHead() {}, end(b: Buffer) { bytes = b.length; done++; resolve(); }, destroy() {} } as any;
  if (!lane(req, res)) throw new Error("not taken");
});
const batch = async (n: number) => { for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => one(i + j))); };
await batch(20000);
for (let r = 0; r < 5; r++) {
  const c = process.cpuUsage(); await batch(20000); const u = process.cpuUsage(c);
  console.log("us/req", ((u.user + u.system) / 20000).toFixed(2), "bytes", bytes);
}
await setup.close();
