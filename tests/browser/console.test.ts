/**
 * The web console in a real browser (Debian Chromium through playwright-core), against the real
 * server: a person finds every control by its visible label, signs in by SMS with the code from the
 * development outbox, creates and revokes a key, creates a webhook to a local HTTPS receiver, sends a
 * test, opens the delivery and retries it, rotates the secret, looks up a number, reads the usage
 * chart, switches to Chinese, shrinks to 375 px, opens every kind of page in Chinese (no value shown
 * as it is on the wire, catalogue names in Chinese, 您 never 你), and signs out — and web storage never
 * holds anything of the session. axe-core checks every page (no serious or critical violation) and
 * each page is saved as a screenshot in tests/browser/output/.
 *
 * Runs in the sqlite project only: the console is a client of the same API whose behaviour on
 * MariaDB + Redis the API tests cover; the browser adds what only a browser can check (docs/console.md
 * "Web console").
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { createConsoleClient, listenStream, memoryCookieJar, type Network, type Operator } from "@ir21/sdk";
import { DeliveryWorker, lastSmsCode, randomPhone, readOutbox, signIn, startTestReceiver, type TestReceiver, type TestServer } from "@ir21/server/testing";
import { zh } from "../../web/src/i18n/zh.ts";
import { CONTRACT_ENUMS, OTHER_CONTRACT_VALUES, answeredValues, isChineseName } from "./enums.ts";
import { OUTPUT_DIR, informalAddress, launchChromium, localhostCertificate, rawValuesShown, runBrowserTests, screenshot, seriousViolations, startBrowserServer, watchPage, webStorage } from "./harness.ts";

const WAIT = 10_000;
let failures = 0;
/** Waits for the element; on failure saves what the page looked like (tests/browser/output/failure-N.png). */
async function visible(locator: Locator): Promise<void> {
  try {
    await locator.first().waitFor({ state: "visible", timeout: WAIT });
  } catch (error) {
    await locator.page().screenshot({ path: join(OUTPUT_DIR, `failure-${++failures}.png`), fullPage: true }).catch(() => {});
    throw error;
  }
}

// Generous: on a shared machine under load (ten runnable tasks a core) a test's pages take minutes.
describe.skipIf(!runBrowserTests)("web console in Chromium", { timeout: 180_000 }, () => {
  let browser: Browser;
  let server: TestServer;
  let receiver: TestReceiver;
  let worker: DeliveryWorker;
  let context: BrowserContext;
  let page: Page;
  let watch: { problems: string[] };
  const phone = randomPhone();
  const secrets: string[] = [];
  let apiKey = "";
  /** Console routes of what the tests create (the webhook, its delivery, the listen session and its delivery), for the Chinese pages. */
  const routes: Record<"webhook" | "delivery" | "listenSession" | "listenDelivery", string> = { webhook: "", delivery: "", listenSession: "", listenDelivery: "" };
  const route = () => new URL(page.url()).pathname.replace(/^\/app/, "");
  /** The catalogue's name of China, as the API answers (docs/api.md "/v1/countries"). */
  let china: { name: string; name_zh: string };

  /** Opens an app route, checks it with axe and saves its screenshot. */
  async function visit(path: string, heading: string | RegExp, shot: string) {
    await page.goto(`${server.url}/app${path}`);
    await visible(page.getByRole("heading", { level: 1, name: heading }));
    await audit(shot);
  }
  async function audit(shot: string) {
    await page.waitForLoadState("networkidle");
    expect(await seriousViolations(page), shot).toEqual([]);
    await screenshot(page, shot);
  }

  beforeAll(async () => {
    const tls = localhostCertificate();
    receiver = await startTestReceiver({ tls });
    server = await startBrowserServer({
      dataset: "reference",
      env: { WEBHOOK_ALLOW_HOSTS: "localhost" },
      // The receiver listens on 127.0.0.1; its certificate names localhost.
      hostResolver: async (host) => [{ address: host === "localhost" ? "127.0.0.1" : "93.184.215.14", family: 4 }],
    });
    worker = new DeliveryWorker(server.deps.webhooks, { ca: tls.cert, random: () => 0, limits: { totalTimeoutMs: 5_000, connectTimeoutMs: 2_000 } });
    browser = await launchChromium();
    context = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    page = await context.newPage();
    watch = watchPage(page, server.url);
    china = (await server.json("/v1/countries/CN")).body.data;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await server?.close();
  });

  it("signs in by SMS: agreement, resend countdown, a wrong code's remaining attempts, then the right code", async () => {
    await page.goto(`${server.url}/`);
    await page.waitForURL(/\/app\/sign-in/);
    await visible(page.getByRole("heading", { level: 1, name: "Sign in" }));
    // The agreement shows the server's current versions.
    const { termsVersion, privacyVersion } = server.deps.config.agreement;
    await visible(page.getByText(`Terms of Service (version ${termsVersion})`));
    expect(await page.getByText(`Privacy Policy (version ${privacyVersion})`).count()).toBe(1);
    await audit("sign-in");

    await page.getByLabel("Mobile number").fill(phone);
    const send = page.getByRole("button", { name: "Send code" });
    expect(await send.isDisabled(), "no code before the agreement is ticked").toBe(true);
    await page.getByLabel(/I have read and accept/).check();
    await send.click();
    await visible(page.getByRole("button", { name: /New code in/ }));
    expect(await page.getByRole("button", { name: /New code in/ }).isDisabled()).toBe(true);
    expect(readOutbox(server).filter((m) => m.phone === `+86${phone}`)).toHaveLength(1);

    const code = lastSmsCode(server, phone);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    await page.getByLabel("6-digit code").fill(wrong);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await visible(page.getByText("Attempts left for this code: 4."));
    // Every error shows the server's message and its request id.
    const alert = page.getByRole("alert");
    expect(await alert.textContent()).toMatch(/Wrong code; 4 attempts left.*request id req_[0-9a-z]{26}/s);
    await audit("sign-in-wrong-code");

    await page.getByLabel("6-digit code").fill(code);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(/\/app\/usage/);
    await visible(page.getByRole("button", { name: "Sign out" }));
    // The session is an HttpOnly cookie the page cannot read.
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "ir21_session");
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe("Lax");
    expect((await webStorage(page)).cookie).not.toContain("ir21_session");
  });

  it("creates an API key, shows it once with a copy button, and revokes it after a confirmation", async () => {
    await visit("/keys", "API keys", "keys");
    await visible(page.getByText(/create a new key, switch your clients to it/));
    await page.getByLabel("Name").fill("ci-browser");
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Key “ci-browser” created" });
    await visible(dialog);
    await visible(dialog.getByText("It will not be shown again"));
    apiKey = await dialog.getByLabel("Your new API key").inputValue();
    expect(apiKey).toMatch(/^ir21_[0-9A-Za-z]{49}$/);
    // Focus is inside the modal dialog.
    expect(await page.evaluate(() => document.activeElement?.closest("dialog") !== null)).toBe(true);
    await dialog.getByRole("button", { name: "Copy" }).click();
    await visible(dialog.getByText("Copied to the clipboard."));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(apiKey);
    await audit("keys-created");
    await dialog.getByRole("button", { name: "I have stored it" }).click();
    await dialog.waitFor({ state: "hidden" });

    // The key works until it is revoked.
    expect((await server.fetch("/v1/meta", { headers: { "x-api-key": apiKey } })).status).toBe(200);
    const revoke = page.getByRole("button", { name: "Revoke key ci-browser" });
    await revoke.click();
    const confirm = page.getByRole("dialog", { name: "Revoke key “ci-browser”?" });
    await visible(confirm);
    // Escape closes the dialog and gives focus back to the button that opened it.
    await page.keyboard.press("Escape");
    await confirm.waitFor({ state: "hidden" });
    expect(await revoke.evaluate((button) => button === document.activeElement)).toBe(true);
    await revoke.click();
    await confirm.getByRole("button", { name: "Revoke key", exact: true }).click();
    await visible(page.getByText(/^Revoked /));
    expect((await server.fetch("/v1/meta", { headers: { "x-api-key": apiKey } })).status).toBe(401);
  });

  it("creates a webhook to a local HTTPS receiver, sends a test, opens the delivery, retries it and rotates the secret", async () => {
    await visit("/webhooks", "Webhooks", "webhooks-empty");
    await page.getByRole("link", { name: "Add endpoint" }).click();
    await visible(page.getByRole("heading", { level: 1, name: "Add a webhook endpoint" }));
    // The server's refusal of a private address is shown in words.
    await page.getByLabel("Endpoint URL").fill("https://10.0.0.1/hook");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await visible(page.getByText("The endpoint was not saved"));
    expect(await page.getByRole("alert").textContent()).toMatch(/WEBHOOK_URL_FORBIDDEN/);

    await page.getByLabel("Endpoint URL").fill(`https://localhost:${receiver.port}/hook`);
    await page.getByRole("checkbox", { name: "ir21.operator.updated" }).check();
    await visible(page.getByText("An operator changed (name, brand, TADIG, status…)."));
    await page.getByLabel("Search countries").fill("china");
    await page.getByRole("checkbox", { name: /\(CN\)$/ }).check();
    await visible(page.getByRole("button", { name: /^Remove .*\(CN\)$/ }));
    await page.getByLabel("Search operators").fill("China Mobile");
    await page.getByRole("checkbox", { name: /^China Mobile/ }).first().check();
    await audit("webhook-new");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await visible(page.getByRole("heading", { level: 1, name: "Webhook endpoint created" }));
    const secret = await page.getByLabel("Signing secret").inputValue();
    expect(secret).toMatch(/^whsec_/);
    secrets.push(secret);
    await audit("webhook-created");
    await page.getByRole("link", { name: "Go to the endpoint" }).click();
    await visible(page.getByRole("heading", { level: 1, name: /Webhook endpoint/ }));
    // One country and one operator chosen: the filters are counted in the singular.
    await visible(page.getByText(new RegExp(`^country ${escapeRegExp(china.name)} \\(CN\\); operator [\\w.-]+$`)));
    routes.webhook = route();

    // A test of a chosen type: the picker lists every type with its one-line description.
    receiver.respond({ status: 202, headers: { "x-receiver": "browser-test", "set-cookie": "sid=1" }, body: '{"accepted":true}' });
    await page.getByRole("button", { name: "Send test event" }).click();
    const testDialog = page.getByRole("dialog", { name: "Send a test event" });
    await visible(testDialog);
    expect(await testDialog.getByRole("radio").count()).toBe(12);
    expect(await testDialog.getByRole("radio", { name: "Summary (the plain test)" }).isChecked()).toBe(true);
    const networkUpdated = testDialog.getByRole("radio", { name: "ir21.network.updated", exact: true });
    expect(await networkUpdated.getAttribute("aria-describedby").then((id) => page.locator(`[id="${id}"]`).textContent())).toBe("A network changed (technologies, bands, status…).");
    // The endpoint's own types are marked (they are part of the button's name).
    await visible(testDialog.getByRole("radio", { name: "ir21.operator.updated subscribed" }));
    await networkUpdated.focus();
    await page.keyboard.press("Space");
    expect(await networkUpdated.isChecked()).toBe(true);
    await audit("webhook-test");
    await testDialog.getByRole("button", { name: "Send test", exact: true }).click();
    await testDialog.waitFor({ state: "hidden" });
    await visible(page.getByText(/Test event queued/));
    await worker.drain();
    await page.getByRole("button", { name: "Refresh" }).click();
    await visible(page.getByRole("cell", { name: "Delivered", exact: true }));
    await audit("webhook-detail");
    expect(receiver.requests).toHaveLength(1);
    expect(verifies(receiver.requests[0]!, secret)).toBe(true);
    // A realistic sample of the chosen type, outside the endpoint's event types: a network's update.
    const sent = JSON.parse(receiver.requests[0]!.body);
    expect(sent).toMatchObject({ type: "ir21.network.updated", test: true });
    expect(sent.data.changed_fields.length).toBeGreaterThan(0);

    // The delivery's attempt shows what the receiver answered: status, duration, headers, body.
    receiver.respond({ status: 200, body: "y".repeat(5000) });
    await page.getByRole("link", { name: "Open the delivery" }).click();
    await visible(page.getByRole("heading", { level: 1, name: "Delivery" }));
    routes.delivery = route();
    const attempts = page.getByRole("region", { name: "Attempts" });
    await visible(attempts.getByRole("cell", { name: "202" }));
    expect(await attempts.getByRole("row").nth(1).textContent()).toMatch(/\d+ ms/);
    const answer = page.locator("details", { hasText: "What the receiver answered" }).first();
    expect(await answer.getAttribute("open"), "the last answer is open").not.toBeNull();
    const headersRegion = page.getByRole("region", { name: /^Response headers of attempt att_/ });
    expect(await headersRegion.getByRole("row", { name: /x-receiver/ }).textContent()).toContain("browser-test");
    expect(await headersRegion.getByRole("row", { name: /set-cookie/ }).textContent()).toContain("[redacted]");
    expect(await page.getByLabel(/^Response body of attempt att_/).textContent()).toBe('{"accepted":true}');
    expect(await page.getByText("Truncated: only the first 4 KiB").count()).toBe(0);
    const payload = JSON.parse((await page.getByLabel("Event payload").textContent()) ?? "{}");
    expect(payload).toMatchObject({ test: true, id: sent.id, type: "ir21.network.updated" });
    await page.getByRole("button", { name: "Retry delivery" }).click();
    await visible(page.getByText("Queued again."));
    await worker.drain();
    await page.getByRole("button", { name: "Refresh" }).click();
    await attempts.getByRole("row").nth(2).waitFor({ timeout: WAIT });
    // The retry's answer (5,000 bytes) is kept to 4 KiB and says so; the first answer is now closed.
    await visible(page.getByText("Truncated: only the first 4 KiB of the body were kept."));
    const bodies = page.getByLabel(/^Response body of attempt att_/);
    expect((await bodies.last().textContent())!.length).toBe(4096);
    expect(await page.locator("details[open]").count()).toBe(1);
    await audit("webhook-delivery");
    expect(receiver.requests).toHaveLength(2);
    expect(JSON.parse(receiver.requests[1]!.body).id).toBe(payload.id);

    // Rotate with the default grace period: the old secret's countdown shows, then revoke it.
    await page.getByRole("link", { name: "Webhook endpoint" }).click();
    await page.getByRole("button", { name: "Rotate secret" }).click();
    const rotate = page.getByRole("dialog", { name: "Rotate secret" });
    expect(await rotate.getByLabel("Grace period (seconds)").inputValue()).toBe("3600");
    await rotate.getByRole("button", { name: "Rotate now" }).click();
    const rotated = await rotate.getByLabel("New signing secret").inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    secrets.push(rotated);
    await rotate.getByRole("button", { name: "I have stored it" }).click();
    await visible(page.getByText(/The previous secret stays valid for (\d+ min|1 h)/));
    await audit("webhook-rotated");

    // Retry a selected delivery: the new secret signs, the old one still signs Previous.
    await page.getByRole("checkbox", { name: /^Select delivery dlv_/ }).first().check();
    await page.getByRole("button", { name: "Retry selected (1)" }).click();
    await visible(page.getByText("1 delivery queued again."));
    await worker.drain();
    const third = receiver.requests[2]!;
    expect(verifies(third, rotated)).toBe(true);
    expect(verifies(third, secret, "x-ir21-signature-previous")).toBe(true);

    await page.getByRole("button", { name: "Revoke previous secret" }).click();
    await page.getByRole("dialog", { name: "Revoke previous secret" }).getByRole("button", { name: "Revoke previous secret now" }).click();
    await visible(page.getByText("No previous secret is in use."));
  });

  it("lists listen sessions, triggers a chosen event to the open one, shows the forwarder's report, and ends it", async () => {
    await visit("/webhooks", "Webhooks", "webhooks-listen-none");
    const panel = page.getByRole("region", { name: "Listen sessions" });
    await visible(panel.getByText("ir21 listen --forward-to http://localhost:3000/webhooks"));
    await visible(panel.getByText(/No open session: start ir21 listen first/));
    expect(await panel.getByRole("button", { name: "Trigger a test event" }).isDisabled()).toBe(true);

    // What `ir21 listen` does, from this process with the browser's session: open a stream, forward, report.
    const cookie = (await context.cookies()).find((c) => c.name === "ir21_session")!;
    const jar = memoryCookieJar(`${cookie.name}=${cookie.value}`);
    const abort = new AbortController();
    const stream = listenStream({ baseUrl: server.url, cookies: jar, forwardTo: "http://localhost:3000/webhooks", events: ["ir21.operator.updated"], signal: abort.signal });
    try {
      const ready = (await stream.next()).value;
      if (ready?.type !== "ready" || !ready.secret) throw new Error(`expected ready with a secret, got ${JSON.stringify(ready)}`);
      const sessionId = ready.session.id;
      await panel.getByRole("button", { name: "Refresh sessions" }).click();
      const row = panel.getByRole("row", { name: new RegExp(sessionId) });
      await visible(row);
      expect(await row.textContent()).toMatch(/Open.*1 type(?!s).*http:\/\/localhost:3000\/webhooks/s);

      // Trigger a type outside the session's filter: a test event goes to every open session.
      await panel.getByRole("button", { name: "Trigger a test event" }).click();
      const trigger = page.getByRole("dialog", { name: "Trigger a test event" });
      await visible(trigger);
      await visible(trigger.getByText("One test event of the chosen type goes to your 1 open session, whatever its filters."));
      await trigger.getByRole("radio", { name: "ir21.number_range.added", exact: true }).check();
      await visible(trigger.getByText("A number range was added."));
      await audit("listen-trigger");
      await trigger.getByRole("button", { name: "Send to open sessions" }).click();
      await visible(trigger.getByText(/^ir21\.number_range\.added sent to 1 session\./));
      const message = (await stream.next()).value;
      if (message?.type !== "delivery") throw new Error(`expected a delivery, got ${JSON.stringify(message)}`);
      const delivery = message.delivery;
      expect(delivery).toMatchObject({ session_id: sessionId, event_type: "ir21.number_range.added" });
      expect(JSON.parse(delivery.body)).toMatchObject({ type: "ir21.number_range.added", test: true });
      const lowered = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k.toLowerCase(), v]));
      expect(verifies({ headers: lowered, body: delivery.body }, ready.secret)).toBe(true);
      // The local receiver's answer, as the forwarder reports it.
      const consoleApi = createConsoleClient({ baseUrl: server.url, cookies: jar });
      await consoleApi.webhooks.listen.report.mutate({ id: sessionId, deliveryId: delivery.delivery_id, status: 418, duration_ms: 37, headers: { "content-type": "text/plain", "x-local": "laptop" }, body: "not today" });

      await trigger.getByRole("link", { name: `Open the delivery to ${sessionId}` }).click();
      await visible(page.getByRole("heading", { level: 1, name: "Delivery" }));
      routes.listenDelivery = route();
      await visible(page.getByText("Failed", { exact: true }));
      const attempts = page.getByRole("region", { name: "Attempts" });
      await visible(attempts.getByRole("cell", { name: "418" }));
      await visible(attempts.getByRole("cell", { name: "37 ms" }));
      expect(await page.getByRole("region", { name: /^Response headers of attempt/ }).getByRole("row", { name: /x-local/ }).textContent()).toContain("laptop");
      expect(await page.getByLabel(/^Response body of attempt/).textContent()).toBe("not today");
      expect(await page.getByRole("button", { name: "Retry delivery" }).count(), "listen deliveries are not retried").toBe(0);
      expect(JSON.parse((await page.getByLabel("Event payload").textContent()) ?? "{}").id).toBe(JSON.parse(delivery.body).id);
      await audit("listen-delivery");

      await page.getByRole("link", { name: "Listen session" }).click();
      await visible(page.getByRole("heading", { level: 1, name: /Listen session/ }));
      routes.listenSession = route();
      await visible(page.getByRole("region", { name: "Deliveries" }).getByRole("link", { name: "ir21.number_range.added" }));
      await audit("listen-session");

      // End it from the list: the stream ends for good.
      await page.getByRole("link", { name: "Webhooks" }).first().click();
      await panel.getByRole("button", { name: `End session ${sessionId}` }).click();
      const confirm = page.getByRole("dialog", { name: `End session ${sessionId}?` });
      await confirm.getByRole("button", { name: "End session", exact: true }).click();
      await confirm.waitFor({ state: "hidden" });
      await visible(panel.getByRole("row", { name: new RegExp(sessionId) }).getByText("Ended"));
      expect(await panel.getByRole("row", { name: new RegExp(sessionId) }).textContent()).toContain("Reason: ended by the account");
      const end = (await stream.next()).value;
      expect(end).toMatchObject({ type: "end", reason: "ended" });
      await audit("webhooks-listen");
    } finally {
      abort.abort();
      await stream.return(undefined).catch(() => {});
    }
  });

  it("looks up a number as a readable card and browses the catalogue (metered on the account)", async () => {
    await visit("/explorer", "Data explorer", "explorer-lookup-empty");
    await page.getByLabel("Number to look up").fill("+8613912345678");
    const real = page.waitForResponse((r) => r.url().includes("/v1/lookup?"));
    await page.getByRole("button", { name: "Look up", exact: true }).click();
    const realAnswer = (await (await real).json()).data;
    const card = page.getByRole("article");
    await visible(card);
    await visible(card.getByText("Range holder"));
    expect(await card.textContent()).toContain(`${china.name} (CN)`);
    expect(await card.textContent()).toMatch(/China Mobile/);
    // Location and time zones from the server's own answer (libphonenumber's geocoding line
    // 861391234|Changzhou, Jiangsu; +86 → Asia/Shanghai), shown in the reader's language.
    expect(realAnswer).toMatchObject({ location: { en: "Changzhou, Jiangsu", zh: "江苏省常州市" }, time_zones: ["Asia/Shanghai"] });
    expect(await card.textContent()).toMatch(/Location\s*Changzhou, Jiangsu.*Time zones\s*Asia\/Shanghai/s);
    await audit("explorer-lookup");

    // An answer that carries them (the server's own answer, with the two fields added on the way).
    await page.route("**/v1/lookup?*", async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      body.data.location = { en: "Beijing", zh: "北京" };
      body.data.time_zones = ["Asia/Shanghai"];
      await route.fulfill({ response, json: body });
    });
    await page.getByRole("button", { name: "Look up", exact: true }).click();
    await visible(card.getByText("Beijing", { exact: true }));
    expect(await card.getByRole("definition").filter({ hasText: "Asia/Shanghai" }).count()).toBe(1);
    expect(await card.textContent()).toMatch(/Location\s*Beijing.*Time zones\s*Asia\/Shanghai/s);
    await page.unroute("**/v1/lookup?*");

    await page.getByRole("link", { name: "Browse" }).click();
    await visible(page.getByLabel("Filter countries (name, ISO code or calling code)"));
    await page.getByLabel("Filter countries (name, ISO code or calling code)").fill("+86");
    // The noun agrees with the total (the reference catalogue's countries), not with the one shown.
    await visible(page.getByText(/^1 of \d{3} countries$/));
    await page.getByRole("region", { name: "Countries" }).getByRole("link").click();
    await visible(page.getByRole("heading", { name: `Operators in ${china.name}` }));
    await page.getByRole("link", { name: "China Mobile", exact: true }).first().click();
    await visible(page.getByRole("heading", { name: "Number ranges" }));
    await visible(page.getByRole("region", { name: "Number ranges" }));
    await audit("explorer-browse");

    await visit("/explorer/changes", "Data explorer", "explorer-changes-empty");
    await page.getByRole("button", { name: "Show changes" }).click();
    await visible(page.getByText(/^Up to version /));
    await audit("explorer-changes");
    await visit("/explorer/exports", "Data explorer", "explorer-exports");
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: "Countries (CSV)" }).click();
    expect((await download).suggestedFilename()).toMatch(/^ir21-countries-.+\.csv$/);
  });

  it("shows usage against the quota with a daily chart, plan and billing, sessions and contact", async () => {
    await visit("/usage", "Usage", "usage");
    await visible(page.locator("[data-testid=usage-chart] canvas"));
    const meter = page.getByRole("meter");
    expect(Number(await meter.getAttribute("value"))).toBeGreaterThan(0);
    expect(await page.getByRole("region", { name: "By endpoint" }).textContent()).toContain("GET /v1/lookup");

    await visit("/plan", "Plan and billing", "plan");
    await visible(page.getByText("Pricing is provisional and payment is disabled"));
    await visible(page.getByText("No bills."));

    await visit("/sessions", "Sessions", "sessions");
    await visible(page.getByText("This browser"));
    await visible(page.getByText(/Your API keys stay valid/));

    await visit("/contact", "Contact", "contact");
    await visible(page.getByText(/Never send an SMS code or a full API key/));
    await visit("/nowhere", "Page not found", "not-found");
  });

  it("speaks Chinese when switched, and fits a 375 px wide screen", async () => {
    await page.goto(`${server.url}/app/usage`);
    await page.getByLabel("Language").selectOption("zh-CN");
    await visible(page.getByRole("heading", { level: 1, name: "用量" }));
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("zh-CN");
    await audit("usage-zh");
    await visit("/webhooks", "Webhook", "webhooks-zh");
    await visible(page.getByRole("region", { name: "监听会话" }).getByText("ir21 listen --forward-to"));
    // Chinese has one form for every count: the ended session of the test above listened to 1 type.
    expect(await page.getByRole("region", { name: "您的监听会话" }).getByRole("row").nth(1).textContent()).toMatch(/已结束.*1 种/s);
    // A location given per language is shown in the reader's.
    await page.route("**/v1/lookup?*", async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      body.data.location = { en: "Beijing", zh: "北京" };
      await route.fulfill({ response, json: body });
    });
    await visit("/explorer", "数据浏览", "explorer-lookup-zh-empty");
    await page.getByLabel("要查询的号码").fill("+8613912345678");
    await page.getByRole("button", { name: "查询", exact: true }).click();
    await visible(page.getByRole("article").getByText("北京", { exact: true }));
    expect(await page.getByRole("article").getByText("Beijing").count()).toBe(0);
    await page.unroute("**/v1/lookup?*");

    await page.setViewportSize({ width: 375, height: 800 });
    for (const [path, heading] of [["/usage", "用量"], ["/keys", "API 密钥"], ["/webhooks", "Webhook"]] as const) {
      await visit(path, heading, `narrow${path.replace("/", "-")}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(375);
    }
    await page.getByLabel("语言").selectOption("en");
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("says everything in Chinese on every kind of page: labels for every enumerated value, catalogue names, countries by name, one register", async () => {
    // What must never show as it is on the wire: the contract's enums, and the values the server
    // answers with in its open fields (network statuses of the whole catalogue, number types, plan ids
    // and names, why sessions ended, what deliveries failed with), read here from the server itself.
    const answered = await answeredValues(server, await signIn(server));
    const cookie = (await context.cookies()).find((c) => c.name === "ir21_session")!;
    const consoleApi = createConsoleClient({ baseUrl: server.url, cookies: memoryCookieJar(`${cookie.name}=${cookie.value}`) });
    const webhookId = routes.webhook.split("/")[2]!;
    const listenSessionId = routes.listenSession.split("/")[3]!;
    const listenSessions = (await consoleApi.webhooks.listen.list.query()).items;
    const deliveries = [...(await consoleApi.webhooks.listDeliveries.query({ id: webhookId, limit: 100 })).items, ...(await consoleApi.webhooks.listen.listDeliveries.query({ id: listenSessionId, limit: 100 })).items];
    const endReasons = listenSessions.flatMap((session) => (session.end_reason ? [session.end_reason] : []));
    const errorCodes = deliveries.flatMap((d) => /^([a-z_]+):/.exec(d.last_error ?? "")?.slice(1) ?? []);
    expect(endReasons).toContain("ended");
    const raw = [...new Set([...Object.values(CONTRACT_ENUMS).flat(), ...OTHER_CONTRACT_VALUES, ...Object.values(answered).flat(), ...endReasons, ...errorCodes])];
    const label = (key: string) => (zh as Record<string, string>)[key]!;

    async function zhPage(path: string | null, heading: string | RegExp, shot: string) {
      if (path !== null) await page.goto(`${server.url}/app${path}`);
      await visible(page.getByRole("heading", { level: 1, name: heading }));
      await page.waitForLoadState("networkidle");
      expect(await page.evaluate(() => document.documentElement.lang), shot).toBe("zh-CN");
      expect(await rawValuesShown(page, raw), `${shot}: values shown as they are on the wire`).toEqual([]);
      expect(await informalAddress(page), `${shot}: 你 instead of 您`).toEqual([]);
      expect(await seriousViolations(page), shot).toEqual([]);
      await screenshot(page, `zh-${shot}`);
    }

    await page.goto(`${server.url}/app/usage`);
    await page.getByLabel("Language").selectOption("zh-CN");
    try {
      await chinesePages();
    } finally {
      // Back to English for the next test, whatever happened here.
      await page.evaluate(() => localStorage.setItem("ir21.lang", "en"));
    }

    async function chinesePages() {
      await zhPage(null, label("usage.title"), "usage");
      await zhPage("/keys", label("keys.title"), "keys");
      await visible(page.getByText(/^已于 .+ 吊销$/));
      await zhPage("/sessions", label("sessions.title"), "sessions");
      await zhPage("/plan", label("plan.title"), "plan");
      expect(answered.planId).toContain("free");
      await visible(page.getByText(label("plan.current").replace("{plan}", label("enum.plan.free"))));
      await zhPage("/contact", label("contact.title"), "contact");
      await zhPage("/nowhere", label("notFound.title"), "not-found");

      // Webhooks: the subscription's country filter by name, the ended listen session's reason in words.
      await zhPage("/webhooks", label("webhooks.title"), "webhooks");
      await visible(page.getByRole("region", { name: label("webhooks.title") }).getByText(`${china.name_zh} (CN)`, { exact: false }));
      await visible(page.getByRole("region", { name: label("listen.tableLabel") }).getByText(label("listen.endReason").replace("{reason}", label("enum.listenEndReason.ended"))).first());
      await zhPage("/webhooks/new", label("webhooks.newTitle"), "webhook-new");
      await zhPage(routes.webhook, new RegExp(label("webhooks.detailTitle")), "webhook-detail");
      await visible(page.getByText(label("enum.eventType.ir21.operator.updated")).first());
      await visible(page.getByRole("cell", { name: label("enum.deliveryStatus.delivered"), exact: true }).first());
      await zhPage(`${routes.webhook}/edit`, label("webhooks.editTitle"), "webhook-edit");
      await zhPage(routes.delivery, label("delivery.title"), "webhook-delivery");
      await zhPage(routes.listenSession, new RegExp(label("listen.sessionTitle")), "listen-session");
      await zhPage(routes.listenDelivery, label("delivery.title"), "listen-delivery");

      // A number's card: its country by its Chinese name, its operator by its Chinese name with the English one beside it.
      await zhPage("/explorer", label("explorer.title"), "explorer");
      const card = page.getByRole("article");
      const lookUp = async (number: string) => {
        await page.getByLabel(label("lookup.numberLabel")).fill(number);
        const answer = page.waitForResponse((r) => r.url().includes("/v1/lookup?"));
        await page.getByRole("button", { name: label("lookup.submit"), exact: true }).click();
        const body = (await (await answer).json()).data;
        await visible(card.getByText(body.number));
        return body;
      };
      const mobile = await lookUp("+8613912345678");
      expect(isChineseName(mobile.operator.country_iso2, mobile.operator.name_local)).toBe(true);
      await visible(card.getByText(`${china.name_zh} (CN)`));
      await visible(card.getByText(mobile.operator.name_local, { exact: true }).first());
      await visible(card.locator('[lang="en"]', { hasText: mobile.operator.name }).first());
      await visible(card.getByText(label(`enum.numberKind.${mobile.number_type}`), { exact: true }).first());
      await zhPage(null, label("explorer.title"), "explorer-lookup");
      const invalid = await lookUp("+8610123");
      await visible(card.getByText(label(`enum.validationReason.${invalid.validation_reason}`)));
      await visible(card.getByText(label(`enum.holderReason.${invalid.range_holder_reason}`), { exact: false }));
      await zhPage(null, label("explorer.title"), "explorer-lookup-invalid");

      // Browsing: operators and networks by their Chinese names where the catalogue has them (the rule
      // of docs/console.md, computed here from the API's answers), statuses and kinds in words.
      const helper = await signIn(server);
      const catalogue = async <T,>(path: string) => (await server.json(path, { headers: helper.headers })).body.data.items as T[];
      await zhPage("/explorer/browse", label("explorer.title"), "browse-countries");
      for (const country of ["CN", "HK"]) {
        await zhPage(`/explorer/browse?country=${country}`, label("explorer.title"), `browse-${country}`);
        const operators = await catalogue<Operator>(`/v1/operators?country=${country}&limit=1000`);
        const countryName = `${(await server.json(`/v1/countries/${country}`)).body.data.name_zh} (${country})`;
        const table = page.getByRole("region", { name: label("browse.operatorsIn").replace("{country}", countryName) });
        for (const o of operators.slice(0, 25)) {
          const shown = isChineseName(o.country_iso2, o.name_local) ? o.name_local : o.name;
          await visible(table.getByRole("link", { name: shown, exact: true }));
          expect(await table.getByRole("row").filter({ has: page.getByRole("link", { name: shown, exact: true }) }).first().textContent()).toContain(label(`enum.operatorStatus.${o.status}`));
        }
        if (country === "CN") {
          const byId = new Map(operators.map((o) => [o.id, o]));
          const networks = page.getByRole("region", { name: label("browse.networksIn").replace("{country}", countryName) });
          for (const n of await catalogue<Network>(`/v1/networks?country=CN&limit=25`)) {
            const operator = n.operator_id ? byId.get(n.operator_id) : undefined;
            const chinese = operator && isChineseName(operator.country_iso2, operator.name_local) && (n.name === operator.name || n.name === operator.brand) ? operator.name_local : null;
            const row = await networks.getByRole("row", { name: new RegExp(`^${n.mcc}-${n.mnc}\\b`) }).textContent();
            expect(row).toContain(chinese ?? n.name ?? "—");
            expect(row).toContain(label(`enum.networkStatus.${n.status}`));
          }
        }
      }
      await zhPage("/explorer/browse?country=CN&operator=cn.china-mobile", label("explorer.title"), "browse-operator");
      await visible(page.getByRole("heading", { level: 2, name: /^中国移动/ }));
      await visible(page.getByRole("cell", { name: label("enum.numberKind.mobile"), exact: true }).first());
      await zhPage("/explorer/changes", label("explorer.title"), "changes-empty");
      await page.getByRole("button", { name: label("changes.show") }).click();
      await visible(page.getByText(/^截至版本 /));
      await zhPage(null, label("explorer.title"), "changes");
      await zhPage("/explorer/exports", label("explorer.title"), "exports");
    }
  }, 480_000);

  it("signs out, and web storage holds nothing of the session; nothing broke the CSP or left the origin", async () => {
    await page.goto(`${server.url}/app/usage`);
    const before = await webStorage(page);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/app\/sign-in/);
    await visible(page.getByText("You are signed out."));
    expect((await context.cookies()).find((c) => c.name === "ir21_session")).toBeUndefined();
    expect((await server.json("/console/api-keys")).status).toBe(401);

    for (const storage of [before, await webStorage(page)]) {
      expect(Object.keys(storage.local).filter((k) => k !== "ir21.lang")).toEqual([]);
      expect(storage.session).toEqual({});
      expect(storage.indexedDb).toEqual([]);
      expect(storage.cookie).toBe("");
      const everything = JSON.stringify(storage);
      for (const secret of [apiKey, ...secrets, phone, lastSmsCode(server, phone)]) expect(everything).not.toContain(secret);
    }
    // A signed-out deep link asks to sign in, and comes back after.
    await page.goto(`${server.url}/app/webhooks`);
    await page.waitForURL(/\/app\/sign-in\?next=%2Fwebhooks/);
    expect(watch.problems).toEqual([]);
  });
});

describe.skipIf(!runBrowserTests)("web console without an SMS provider", () => {
  it("says that sign-in by SMS is not available, with the server's message and request id", async () => {
    const server = await startBrowserServer({ env: { SMS_PROVIDER: "none" } });
    const browser = await launchChromium();
    try {
      const page = await (await browser.newContext({ locale: "zh-CN" })).newPage();
      await page.goto(`${server.url}/app/sign-in`);
      // Chinese because the browser prefers it.
      await visible(page.getByRole("heading", { level: 1, name: "登录" }));
      await page.getByLabel("手机号").fill("13800138000");
      await page.getByLabel(/我已阅读并同意/).check();
      await page.getByRole("button", { name: "获取验证码" }).click();
      const alert = page.getByRole("alert");
      await visible(alert);
      expect(await alert.textContent()).toMatch(/本服务暂不支持短信登录.*no SMS provider is configured.*SMS_NOT_CONFIGURED.*HTTP 503.*req_[0-9a-z]{26}/s);
      expect(await seriousViolations(page)).toEqual([]);
      expect(await rawValuesShown(page, [...Object.values(CONTRACT_ENUMS).flat(), ...OTHER_CONTRACT_VALUES])).toEqual([]);
      expect(await informalAddress(page)).toEqual([]);
      await screenshot(page, "sign-in-sms-unavailable-zh");
    } finally {
      await browser.close();
      await server.close();
    }
  }, 60_000);
});

/** A receiver-side signature check written from docs/webhooks.md, independent of the server's signer. */
function verifies(request: { headers: Record<string, string | string[] | undefined>; body: string }, secret: string, header = "x-ir21-signature"): boolean {
  const signature = request.headers[header];
  const timestamp = request.headers["x-ir21-timestamp"];
  if (typeof signature !== "string" || typeof timestamp !== "string" || !/^v1=[0-9a-f]{64}$/.test(signature)) return false;
  const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(`${timestamp}.${request.body}`).digest();
  return timingSafeEqual(expected, Buffer.from(signature.slice(3), "hex"));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
