import autocannon from "autocannon";
import { createApiKey, signIn, startTestServer } from "@ir21/server/testing";
import { spawnServe } from "./serve-process.ts";
const limits = { PLAN_FREE_MONTHLY_QUOTA: "1000000000", PLAN_FREE_RATE_LIMIT_PER_MINUTE: "1000000000", ANONYMOUS_RATE_LIMIT_PER_MINUTE: "1000000000" };
const setup = await startTestServer({ dataset: "reference", env: limits });
const key = await createApiKey(setup, await signIn(setup));
const { child, url } = await spawnServe(setup, limits);
for (let i = 0; i < 300; i++) { if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break; await new Promise((r) => setTimeout(r, 100)); }
const ranges = (await setup.json("/v1/number-ranges?country=CN&limit=200", { headers: key.headers })).body.data.items as { prefix: string }[];
const paths = ranges.map((r) => `/v1/lookup?number=%2B${(r.prefix + "12345678901234").slice(0, 13)}&fields=number,country_iso2,valid,number_type,range_holder`);
await new Promise((r) => setTimeout(r, Number(process.env.WAIT ?? 0)));
await autocannon({ url, connections: 50, duration: 3, headers: key.headers, requests: paths.map((path) => ({ method: "GET", path })) });
const r = await autocannon({ url, connections: 50, duration: Number(process.env.SECS ?? 8), headers: key.headers, requests: paths.map((path) => ({ method: "GET", path })) });
console.log("rps", r.requests.average);
await new Promise<void>((resolve) => { child.once("exit", () => resolve()); child.kill("SIGTERM"); });
await setup.close();
