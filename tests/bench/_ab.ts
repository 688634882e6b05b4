import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { createApiKey, signIn, startTestServer } from "@ir21/server/testing";
import { cpuOf, freePort, spawnServe } from "./serve-process.ts";
const limits = { PLAN_FREE_MONTHLY_QUOTA: "1000000000", PLAN_FREE_RATE_LIMIT_PER_MINUTE: "1000000000", ANONYMOUS_RATE_LIMIT_PER_MINUTE: "1000000000" };
const setup = await startTestServer({ dataset: "reference", env: limits });
const key = await createApiKey(setup, await signIn(setup));
const { child, url } = await spawnServe(setup, limits);
const peerPort = await freePort();
const peer = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./careful-user-server.ts", import.meta.url))], { cwd: fileURLToPath(new URL("..", import.meta.url)), env: { ...process.env, PORT: String(peerPort) }, stdio: ["ignore", "ignore", "inherit"] });
for (let i = 0; i < 300; i++) { if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break; await new Promise((r) => setTimeout(r, 100)); }
const ranges = (await setup.json("/v1/number-ranges?country=CN&limit=200", { headers: key.headers })).body.data.items as { prefix: string }[];
const nums = ranges.map((r) => `%2B${(r.prefix + "12345678901234").slice(0, 13)}`);
const F = process.env.FIELDS ?? "number,country_iso2,valid,number_type,range_holder";
const ir = nums.map((n) => `/v1/lookup?number=${n}&fields=${F}`);
const pp = nums.map((n) => `/lookup?number=${n}`);
const run = async (u: string, h: Record<string, string>, paths: string[], pid: number | undefined, s: number) => {
  const b = cpuOf(pid);
  const r = await autocannon({ url: u, connections: 50, duration: s, headers: h, requests: paths.map((path) => ({ method: "GET", path })) });
  const a = cpuOf(pid);
  return { rps: Math.round(r.requests.average), cpu: Math.round(((a! - b!) / r.requests.total) * 10) / 10, non2xx: r.non2xx };
};
await new Promise((r) => setTimeout(r, 8000));
await run(url, key.headers, ir, child.pid, 3);
await run(`http://127.0.0.1:${peerPort}`, {}, pp, peer.pid, 3);
for (let i = 0; i < Number(process.env.ROUNDS ?? 3); i++) {
  const a = await run(url, key.headers, ir, child.pid, 5);
  const b = await run(`http://127.0.0.1:${peerPort}`, {}, pp, peer.pid, 5);
  console.log(JSON.stringify({ ir21: a, peer: b, ratio: Math.round((a.rps / b.rps) * 100) / 100, cpu_ratio: Math.round((b.cpu / a.cpu) * 100) / 100 }));
}
child.kill("SIGTERM"); peer.kill("SIGTERM");
await new Promise((r) => setTimeout(r, 500));
await setup.close();
