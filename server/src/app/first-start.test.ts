import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";

/**
 * What a person sees of `ir21-server`: `serve` on a terminal prints a short banner once ready (the
 * console, /docs, the health URLs, metrics when on), and on a pipe only JSON lines; `--help` has
 * colours on a terminal and none in a pipe or with NO_COLOR. The terminal is a real pseudo-terminal,
 * made by util-linux's `script` (the output read here is what the terminal was sent).
 */
const BIN = fileURLToPath(new URL("../../bin/ir21-server.js", import.meta.url));
const ESC = "\u001b[";
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh SQLite server's environment: any free port, no first-start import (quick), metrics on any free port. */
function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), "ir21-first-start-"));
  dirs.push(dir);
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(NO_COLOR|FORCE_COLOR|CI|TEST|LOG_LEVEL|PORT|HOST|DATABASE_URL|REDIS_URL|METRICS_|OTEL_|IR21_ENV_FILE)/.test(name))) as Record<string, string>;
  return {
    ...inherited,
    NODE_ENV: "test",
    IR21_ENV_FILE: "/dev/null",
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: `file:${join(dir, "ir21.sqlite")}`,
    DATA_DIR: dir,
    CATALOG_IMPORT_ON_START: "false",
    METRICS_PORT: "0",
    TERM: "xterm-256color",
    ...extra,
  };
}

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** Runs the binary on a pseudo-terminal; resolves with everything the terminal got once `until` matches it. */
function onTerminal(args: string[], env: Record<string, string>, until: RegExp, timeoutMs = 60_000): Promise<{ output: string; child: ChildProcess }> {
  const command = [process.execPath, BIN, ...args].map(shellQuote).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], { env, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return collect(child, until, timeoutMs);
}

function collect(child: ChildProcess, until: RegExp, timeoutMs: number): Promise<{ output: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${until}; output so far:\n${output}`)), timeoutMs);
    const check = () => {
      if (!until.test(output)) return;
      clearTimeout(timer);
      resolve({ output, child });
    };
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      check();
    });
    child.once("exit", () => {
      clearTimeout(timer);
      if (until.test(output)) resolve({ output, child });
      else reject(new Error(`exited before ${until}; output:\n${output}`));
    });
  });
}

describe("ir21-server serve, first start", () => {
  it("on a terminal, prints a banner once ready whose URLs answer", async () => {
    const { output } = await onTerminal(["serve"], serverEnv(), /Stop with Ctrl-C/);
    const text = output.replace(/\r/g, "");
    expect(text).toContain("is ready");
    const consoleUrl = /Console\S*\s+(http:\/\/127\.0\.0\.1:\d+)\/\n/.exec(text.replace(/\u001b\[\d+m/g, ""))?.[1];
    expect(consoleUrl).toBeDefined();
    const plain = text.replace(/\u001b\[\d+m/g, "");
    expect(plain).toContain(`${consoleUrl}/docs`);
    expect(plain).toContain(`${consoleUrl}/healthz  ${consoleUrl}/readyz`);
    const metricsUrl = /Metrics\s+(http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(plain)?.[1];
    expect(metricsUrl).toBeDefined();
    // The JSON log lines came first, then the banner.
    const listening = plain.split("\n").findIndex((line) => line.includes('"msg":"ir21 server listening"'));
    expect(listening).toBeGreaterThanOrEqual(0);
    expect(plain.split("\n").findIndex((line) => line.includes("is ready"))).toBeGreaterThan(listening);
    // What it names is there.
    expect((await fetch(`${consoleUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${consoleUrl}/docs`)).status).toBe(200);
    expect((await fetch(metricsUrl!)).status).toBe(200);
  });

  it("on a pipe, writes JSON lines only", async () => {
    const child = spawn(process.execPath, [BIN, "serve"], { env: serverEnv(), stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    const { output } = await collect(child, /"msg":"ir21 server listening".*\n/, 60_000);
    // Anything the banner would follow with has had time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const lines = output.split("\n").filter((line) => line !== "");
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(output).not.toContain("is ready");
    expect(output).not.toContain(ESC);
  });
});

describe("ir21-server --help", () => {
  const helpEnv = () => serverEnv();

  it("writes no colours into a pipe", () => {
    for (const args of [["--help"], ["import", "--help"], ["webhooks", "--help"]]) {
      const run = spawnSync(process.execPath, [BIN, ...args], { env: helpEnv(), encoding: "utf8" });
      expect(run.status).toBe(0);
      expect(run.stdout).toContain("USAGE");
      expect(run.stdout).not.toContain(ESC);
    }
  });

  it("has colours on a terminal, and none there with NO_COLOR", async () => {
    const coloured = await onTerminal(["--help"], helpEnv(), /COMMANDS[\s\S]*\n\s*\n/, 30_000);
    expect(coloured.output).toContain(ESC);
    const plain = await onTerminal(["--help"], { ...helpEnv(), NO_COLOR: "true" }, /COMMANDS[\s\S]*\n\s*\n/, 30_000);
    expect(plain.output).toContain("USAGE");
    expect(plain.output).not.toContain(ESC);
  });
});
