/**
 * GET /docs in Chromium: Redoc renders the served OpenAPI document with every operation's heading,
 * under the page's CSP, loading nothing from another origin (docs/api.md "Reference page").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import type { TestServer } from "@ir21/server/testing";
import { launchChromium, runBrowserTests, screenshot, startBrowserServer, watchPage } from "./harness.ts";

describe.skipIf(!runBrowserTests)("the API reference in Chromium", { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startBrowserServer();
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows a heading for every operation and every webhook of the document, with no CSP violation", async () => {
    const doc = (await server.json("/v1/openapi.json")).body as { paths: Record<string, Record<string, { operationId: string; summary: string }>>; webhooks: Record<string, { post: { operationId: string; summary: string } }> };
    const operations = [...Object.values(doc.paths).flatMap((methods) => Object.values(methods)), ...Object.values(doc.webhooks).map((w) => w.post)];
    expect(operations.length).toBeGreaterThan(40);
    const page = await browser.newPage();
    const watch = watchPage(page, server.url);
    await page.goto(`${server.url}/docs`);
    // Redoc gives each operation a section whose id ends in operation/<operationId>, headed by its summary.
    await page.waitForSelector(`[id$="operation/${operations[0]!.operationId}"] h2`, { timeout: 90_000 });
    const headings = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll("[id*='operation/']")].map((section) => [section.id.replace(/^.*operation\//, ""), (section.querySelector("h2")?.textContent ?? "").trim()])));
    for (const operation of operations) {
      // Redoc badges webhooks: "<summary>  Webhook".
      const webhook = operation.operationId.startsWith("webhook_");
      expect(headings[operation.operationId], operation.operationId).toBe(webhook ? `${operation.summary}  Webhook` : operation.summary);
    }
    await screenshot(page, "api-docs");
    // Redoc's footer always asks for its logo from cdn.redoc.ly: the page CSP refuses it (and Redoc then
    // hides the image). That refused attempt is the only cross-origin one, and nothing else is refused.
    const LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";
    const other = watch.problems.filter((p) => !p.includes(LOGO));
    expect(other).toEqual([]);
    expect(watch.problems.filter((p) => p.startsWith("CSP:") && p.includes(LOGO)).length).toBeLessThanOrEqual(1);
    expect(await page.evaluate(() => [...document.images].filter((img) => img.complete && img.naturalWidth > 0 && !img.src.startsWith(location.origin) && !img.src.startsWith("data:")).length)).toBe(0);
    await page.close();
  });
});
