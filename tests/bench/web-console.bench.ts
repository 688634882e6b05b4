// The web console's budget (issue 18; docs/console.md "Web console"): the first load carries at most
// 200 KB of JavaScript gzipped, and the page is interactive within 1 s on loopback in headless
// Chromium. Each round opens a fresh browser context (empty cache) and measures, from navigation
// start (performance.now() in the page), when the sign-in form's "Send code" button exists and, for a
// signed-in person, when the usage meter is drawn. The baseline is the same browser opening a minimal
// page with one button from a bare node:http server in the same run, so the ratio says what the
// console adds over the cheapest possible page on this machine.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { signIn } from "@ir21/server/testing";
import { launchChromium, startBrowserServer } from "../browser/harness.ts";

const ROUNDS = 7;
const BUDGET_JS_GZIP_BYTES = 200 * 1024;
const BUDGET_INTERACTIVE_MS = 1000;
type Ready = "baseline" | "sign-in" | "usage";
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function run() {
  const server = await startBrowserServer({ dataset: "demo", env: { LOG_LEVEL: "silent" } });
  const baseline = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>b</title><button id=b>Send code</button>"));
  await new Promise<void>((resolve) => baseline.listen(0, "127.0.0.1", resolve));
  const baselineUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/`;
  const browser = await launchChromium();
  const user = await signIn(server);
  const [cookieName, cookieValue] = [user.cookie.slice(0, user.cookie.indexOf("=")), user.cookie.slice(user.cookie.indexOf("=") + 1)];

  /** One cold load: ms from navigation start until `ready` holds, and the scripts it fetched. */
  async function load(url: string, ready: Ready, signedIn = false) {
    const context = await browser.newContext();
    if (signedIn) await context.addCookies([{ name: cookieName, value: cookieValue, url: server.url }]);
    const page = await context.newPage();
    const scripts = new Map<string, number>();
    page.on("response", async (response) => {
      if (response.request().resourceType() !== "script") return;
      const body = await response.body().catch(() => null);
      if (body) scripts.set(response.url(), gzipSync(body, { level: 9 }).length);
    });
    await page.goto(url, { waitUntil: "commit" });
    // A function, not a string: the console's CSP (rightly) forbids evaluating strings.
    const handle = await page.waitForFunction(
      (what: Ready) => {
        const ok =
          what === "sign-in" ? [...document.querySelectorAll("button")].some((b) => b.textContent?.includes("Send code")) : what === "usage" ? document.querySelector("meter") !== null : document.getElementById("b") !== null;
        return ok ? performance.now() : false;
      },
      ready,
      { polling: "raf", timeout: 30_000 },
    );
    const ms = Number(await handle.jsonValue());
    await page.waitForLoadState("networkidle");
    await context.close();
    return { ms, jsGzipBytes: [...scripts.values()].reduce((a, b) => a + b, 0), scripts: scripts.size };
  }

  try {
    const signInReady: Ready = "sign-in";
    const usageReady: Ready = "usage";
    // Warm the server's file cache and the browser's code caches once; every measured round is cold.
    await load(`${server.url}/app/sign-in`, signInReady);
    const rounds = { baseline: [] as number[], signIn: [] as number[], usage: [] as number[] };
    let signInJs = 0;
    let usageJs = 0;
    let signInScripts = 0;
    for (let i = 0; i < ROUNDS; i++) {
      rounds.baseline.push((await load(baselineUrl, "baseline")).ms);
      const first = await load(`${server.url}/app/sign-in`, signInReady);
      rounds.signIn.push(first.ms);
      signInJs = first.jsGzipBytes;
      signInScripts = first.scripts;
      const usage = await load(`${server.url}/app/usage`, usageReady, true);
      rounds.usage.push(usage.ms);
      usageJs = usage.jsGzipBytes;
    }
    const baselineMs = median(rounds.baseline);
    const signInMs = median(rounds.signIn);
    const usageMs = median(rounds.usage);
    return {
      rounds: ROUNDS,
      first_load_js_gzip_kb: Math.round((signInJs / 1024) * 10) / 10,
      first_load_scripts: signInScripts,
      usage_page_js_gzip_kb: Math.round((usageJs / 1024) * 10) / 10,
      js_budget_kb: BUDGET_JS_GZIP_BYTES / 1024,
      js_within_budget: signInJs <= BUDGET_JS_GZIP_BYTES && usageJs <= BUDGET_JS_GZIP_BYTES,
      interactive_ms: { baseline_page: Math.round(baselineMs), sign_in: Math.round(signInMs), usage_signed_in: Math.round(usageMs) },
      interactive_ratio_to_baseline: { sign_in: Math.round((signInMs / baselineMs) * 100) / 100, usage_signed_in: Math.round((usageMs / baselineMs) * 100) / 100 },
      interactive_budget_ms: BUDGET_INTERACTIVE_MS,
      interactive_within_budget: signInMs <= BUDGET_INTERACTIVE_MS && usageMs <= BUDGET_INTERACTIVE_MS,
    };
  } finally {
    await browser.close();
    baseline.close();
    await server.close();
  }
}
