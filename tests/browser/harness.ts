import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import AxeBuilder from "@axe-core/playwright";
import { chromium, type Browser, type Page } from "playwright-core";
import { ManualClock, startTestServer, type TestServer, type TestServerOptions } from "@ir21/server/testing";

/**
 * Browser tests drive Debian's Chromium (`apt-get install chromium`) through playwright-core, which
 * never downloads a browser of its own. `pnpm test` runs them when Chromium is installed and skips
 * them otherwise; CI (CI=true) and `pnpm test:browser` (IR21_BROWSER_TESTS=1) require it.
 */
export const CHROMIUM_PATH = process.env.IR21_CHROMIUM ?? "/usr/bin/chromium";
export const browserRequired = process.env.CI === "true" || process.env.IR21_BROWSER_TESTS === "1";
export const runBrowserTests = existsSync(CHROMIUM_PATH) || browserRequired;

const here = dirname(fileURLToPath(import.meta.url));
/** Screenshots of every page, kept as test artifacts (gitignored). */
export const OUTPUT_DIR = join(here, "output");
export const WEB_DIST = join(here, "..", "..", "web", "dist");

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: apt-get install chromium (or set IR21_CHROMIUM)`);
  if (!existsSync(join(WEB_DIST, "index.html"))) throw new Error("web/dist is missing: pnpm -F @ir21/web build");
  mkdirSync(OUTPUT_DIR, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"],
  });
}

/** A loopback port nobody listens on right now. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The real server for a browser: its origin must be in PUBLIC_ORIGIN before it starts (the browser
 * sends it with every write), so the port is chosen first. The clock starts at real time so the
 * page's countdowns (which use the browser's clock) agree with the server's times.
 */
export async function startBrowserServer(options: TestServerOptions = {}): Promise<TestServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await startTestServer({ clock: new ManualClock(Date.now()), ...options, port, env: { PUBLIC_ORIGIN: `http://127.0.0.1:${port}`, ...options.env } });
    } catch (error) {
      // Someone took the port between the probe and the listen: take another.
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE" || attempt >= 5) throw error;
    }
  }
}

/** A certificate for `localhost` made with openssl, for a local HTTPS webhook receiver. */
export function localhostCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), "ir21-browser-tls-"));
  try {
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" });
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** axe-core on the page as it is now: the serious and critical violations, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(OUTPUT_DIR, `${name}.png`), fullPage: true });
}

/**
 * What a page must never do: break its CSP (the browser reports each refusal on the console), throw,
 * or load anything from another origin.
 */
export function watchPage(page: Page, origin: string): { problems: string[] } {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy|Refused to/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol !== "data:" && url.protocol !== "blob:" && url.origin !== origin) problems.push(`request to another origin: ${request.url()}`);
  });
  return { problems };
}

/** Everything the page's scripts can read of web storage and cookies. */
export async function webStorage(page: Page): Promise<{ local: Record<string, string>; session: Record<string, string>; cookie: string; indexedDb: string[] }> {
  return page.evaluate(async () => {
    const dump = (storage: Storage) => Object.fromEntries(Array.from({ length: storage.length }, (_, i) => storage.key(i)!).map((k) => [k, storage.getItem(k) ?? ""]));
    const databases = (await indexedDB.databases()).map((d) => d.name ?? "");
    return { local: dump(localStorage), session: dump(sessionStorage), cookie: document.cookie, indexedDb: databases };
  });
}

/**
 * What a Chinese page shows of `values` (enumerated values as they are on the wire) as text a person
 * reads: its text, options, and accessible names, titles and placeholders. Not machine-facing text —
 * code, pre and kbd (ids, event types, commands, JSON) — nor text marked as another language
 * (`lang="en"`: the server's own messages, English names beside the Chinese ones). Words are compared
 * whole and case-sensitively (`active`, `not_operational`, `ir21.operator.updated`, `Free`); a word
 * runs on through dots and hyphens, so an id such as `cn.china-mobile` is not the kind `mobile`.
 */
export async function rawValuesShown(page: Page, values: readonly string[]): Promise<string[]> {
  return page.evaluate((values) => {
    const wanted = new Set(values);
    const found = new Set<string>();
    const readable = (element: Element | null) => {
      if (!element || element.closest("code, pre, kbd, samp, script, style, textarea")) return false;
      const lang = element.closest("[lang]")?.getAttribute("lang") ?? "";
      return lang.startsWith("zh");
    };
    const check = (text: string | null) => {
      for (const word of (text ?? "").split(/[^A-Za-z0-9_.-]+/)) {
        const bare = word.replace(/^[.-]+|[.-]+$/g, "");
        if (wanted.has(bare)) found.add(bare);
      }
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) if (readable(node.parentElement)) check(node.textContent);
    for (const element of document.body.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
      if (!readable(element)) continue;
      for (const name of ["aria-label", "title", "placeholder", "alt"]) check(element.getAttribute(name));
    }
    check(document.title);
    return [...found].sort();
  }, values);
}

/** Every place the page addresses the reader as 你 (the console's Chinese says 您). */
export async function informalAddress(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const texts = [document.title, document.body.textContent ?? "", ...[...document.body.querySelectorAll("[aria-label], [title], [placeholder]")].flatMap((e) => ["aria-label", "title", "placeholder"].map((n) => e.getAttribute(n) ?? ""))];
    return texts.flatMap((text) => [...text.matchAll(/.{0,12}你.{0,12}/g)].map((m) => m[0]));
  });
}
