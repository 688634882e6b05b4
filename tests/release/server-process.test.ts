/**
 * The server as a release, as a supervisor runs it (docs/operations.md): real processes started through
 * bin/ir21-server.js and `pnpm start`, stopped by signals sent to their pid.
 *
 * - `--version` answers the package's version and exits 0;
 * - the launcher runs the bundle when it was built from these sources, the sources otherwise;
 * - SIGTERM: /readyz answers 503 for SHUTDOWN_DRAIN_SECONDS while requests are still served, then the
 *   listener closes, a request in flight completes, and the process exits 0;
 * - a second signal exits at once (143);
 * - SIGTERM to `pnpm start` reaches the server.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { sourceDigest } from "../../server/bin/source-digest.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = join(root, "server/bin/ir21-server.js");
const pkg = JSON.parse(readFileSync(join(root, "server/package.json"), "utf8")) as { version: string };
const run = promisify(execFile);

interface Started {
  child: ChildProcess;
  url: string;
  log: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: Started[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const s of started.splice(0)) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Starts `command args` with a fresh SQLite database on an ephemeral port; resolves once it listens. */
async function start(command: string, args: string[], env: Record<string, string> = {}, options: { dataset?: boolean } = {}): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), "ir21-release-"));
  dirs.push(dir);
  const fullEnv = { ...process.env, NODE_ENV: "development", PORT: "0", HOST: "127.0.0.1", DATA_DIR: dir, DATABASE_URL: `file:${join(dir, "db.sqlite")}`, CATALOG_IMPORT_ON_START: "false", LOG_LEVEL: "info", ...env };
  // A dataset makes /readyz 200 before a signal (503 "no dataset" would prove nothing about draining).
  if (options.dataset) await run(process.execPath, [bin, "import", "demo"], { cwd: root, env: fullEnv });
  const child = spawn(command, args, { cwd: root, env: fullEnv, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within 90 s:\n${output}`)), 90_000);
    const check = () => {
      const line = output.split("\n").find((l) => l.includes('"ir21 server listening"'));
      if (line) {
        clearTimeout(timer);
        child.stdout!.off("data", check);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    };
    child.stdout!.on("data", check);
    void exited.then(() => reject(new Error(`exited before listening:\n${output}`)));
  });
  const s = { child, url, log: () => output, exited };
  started.push(s);
  return s;
}

/** A request whose body is only half sent: in flight until `finish()`; resolves with the answer. */
function inFlight(url: string) {
  const body = JSON.stringify({ name: "Slow Client", email: "slow@example.org", company: "Slow Ltd", message: "sent in two halves" });
  let answer!: Promise<{ status: number; body: string }>;
  const req = request(`${url}/contact`, { method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), origin: "http://localhost:8787" } });
  answer = new Promise((resolve, reject) => {
    req.on("response", (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on("error", reject);
  });
  req.write(body.slice(0, 10));
  return { finish: () => (req.end(body.slice(10)), answer) };
}

const status = async (url: string) => {
  try {
    return (await fetch(url)).status;
  } catch {
    return "refused" as const;
  }
};

async function pollUntil<T>(probe: () => Promise<T>, ok: (value: T) => boolean, ms: number): Promise<T> {
  const until = Date.now() + ms;
  let value = await probe();
  while (!ok(value) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    value = await probe();
  }
  return value;
}

describe("ir21-server as a release", () => {
  it("--version prints the package version and exits 0", async () => {
    const { stdout } = await run(process.execPath, [bin, "--version"], { cwd: root });
    expect(stdout).toMatch(new RegExp(`^ir21-server ${pkg.version.replace(/\./g, "\\.")}( \\(commit [0-9a-f]{7,12}\\))?\\n$`));
  });

  it("runs the bundle when it was built from these sources, the TypeScript otherwise; IR21_DEV=1 forces the sources", async () => {
    const info = join(root, "server/dist/build-info.json");
    const fresh = existsSync(info) && (JSON.parse(readFileSync(info, "utf8")) as { sourceDigest: string }).sourceDigest === sourceDigest(join(root, "server/src"));
    const server = await start(process.execPath, [bin, "serve"]);
    expect(server.log()).toContain(`"runtime":"${fresh ? "bundle" : "source"}"`);
    server.child.kill("SIGTERM");
    expect((await server.exited).code).toBe(0);
    const dev = await start(process.execPath, [bin, "serve"], { IR21_DEV: "1" });
    expect(dev.log()).toContain('"runtime":"source"');
  }, 180_000);

  it("on SIGTERM: /readyz 503 during the drain while requests are served, then the listener closes, the in-flight request completes, exit 0", async () => {
    const server = await start(process.execPath, [bin, "serve"], { SHUTDOWN_DRAIN_SECONDS: "1.5", SHUTDOWN_TIMEOUT_MS: "20000" }, { dataset: true });
    expect(await status(`${server.url}/readyz`)).toBe(200);
    const slow = inFlight(server.url);
    server.child.kill("SIGTERM");
    const readyz = await pollUntil(() => status(`${server.url}/readyz`), (s) => s === 503, 5_000);
    expect(readyz).toBe(503);
    // Still serving during the drain.
    expect(await status(`${server.url}/healthz`)).toBe(200);
    // Then the listener closes: new connections are refused.
    expect(await pollUntil(() => status(`${server.url}/healthz`), (s) => s === "refused", 10_000)).toBe("refused");
    expect(server.child.exitCode).toBeNull(); // still finishing the request in flight
    const answer = await slow.finish();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 0, data: { received: true } });
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.log()).toContain('"drain_ms":1500');
  }, 180_000);

  it("a second signal exits at once (143)", async () => {
    const server = await start(process.execPath, [bin, "serve"], { SHUTDOWN_DRAIN_SECONDS: "30" });
    server.child.kill("SIGTERM");
    await pollUntil(() => status(`${server.url}/readyz`), (s) => s === 503, 5_000);
    const sent = Date.now();
    server.child.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 143, signal: null });
    expect(Date.now() - sent).toBeLessThan(5_000); // not the 30 s drain
  }, 180_000);

  it("SIGTERM to `pnpm start` stops the server within the drain period plus 10 s", async () => {
    const pnpm = await start("pnpm", ["start"], { SHUTDOWN_DRAIN_SECONDS: "1" });
    // The server's own pid: pnpm's child (the start script execs node, no shell in between).
    const { stdout } = await run("ps", ["-o", "pid=", "--ppid", String(pnpm.child.pid)]);
    const serverPid = Number(stdout.trim().split(/\s+/)[0]);
    expect(serverPid).toBeGreaterThan(0);
    pnpm.child.kill("SIGTERM");
    const stoppedBy = Date.now() + 11_000;
    expect(await pollUntil(() => status(`${pnpm.url}/healthz`), (s) => s === "refused", 11_000)).toBe("refused");
    expect(Date.now()).toBeLessThanOrEqual(stoppedBy + 1_000);
    // And the server process is gone, not merely deaf.
    const alive = () => {
      try {
        process.kill(serverPid, 0);
        return Promise.resolve(true);
      } catch {
        return Promise.resolve(false);
      }
    };
    expect(await pollUntil(alive, (a) => !a, 11_000)).toBe(false);
  }, 180_000);
});
