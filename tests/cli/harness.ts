import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { lastSmsCode, randomPhone, readOutbox, type TestServer } from "@ir21/server/testing";

/**
 * The real executable as published (the bundle `pnpm test` builds first: `pnpm -F @ir21/cli build`),
 * run as a child process so exit codes, stdout and stderr are the real ones.
 */
export const BIN = join(dirname(fileURLToPath(import.meta.url)), "../../cli/dist/ir21.mjs");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as the one JSON document `--json` promises. */
  json<T = any>(): T;
  /** stderr's `{error}` object under `--json`. */
  jsonError(): { code: string; message: string; request_id?: string | null; status?: number; hint?: string };
}

/** A command running in the background (see {@link CliSandbox.background}). */
export interface BackgroundCli {
  stdout: string;
  stderr: string;
  /** Its exit code (128 when a signal killed it without a code). */
  exited: Promise<number | null>;
  lines(): string[];
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  signal(name: NodeJS.Signals): void;
}

export interface RunOptions {
  /** Written to stdin, then closed; without it stdin is empty (never a terminal). */
  input?: string | Buffer;
  /** Extra environment; a value of undefined removes a default such as IR21_BASE_URL. */
  env?: Record<string, string | undefined>;
}

/**
 * A user's machine for the CLI: a private HOME and XDG_CONFIG_HOME, pointed at a test server through
 * IR21_BASE_URL (unless a test removes it), no colour, UTC. Nothing of the outer environment leaks in.
 * It runs the workspace's bundle, or with `bin` an installed `ir21` (tests/cli/installed.ts), started
 * as a shell starts it: the executable itself, its `#!/usr/bin/env node` line finding Node on PATH.
 */
export class CliSandbox {
  readonly home: string;
  readonly configHome: string;
  readonly server: TestServer;
  /** The program and the arguments before the CLI's own. */
  readonly #command: [string, ...string[]];

  constructor(server: TestServer, options: { bin?: string } = {}) {
    this.server = server;
    this.home = mkdtempSync(join(tmpdir(), "ir21-cli-"));
    this.configHome = join(this.home, ".config");
    this.#command = options.bin ? [options.bin] : [process.execPath, BIN];
  }

  env(extra: Record<string, string | undefined> = {}): Record<string, string> {
    const env: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      HOME: this.home,
      XDG_CONFIG_HOME: this.configHome,
      IR21_BASE_URL: this.server.url,
      NO_COLOR: "1",
      TZ: "UTC",
      ...extra,
    };
    return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  }

  run(args: string[], options: RunOptions = {}): Promise<CliResult> {
    return new Promise((resolve, reject) => {
      const [program, ...before] = this.#command;
      const child = spawn(program, [...before, ...args], { env: this.env(options.env), stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      child.on("error", reject);
      child.on("close", (code) =>
        resolve({
          code,
          stdout,
          stderr,
          json: () => {
            try {
              return JSON.parse(stdout);
            } catch {
              throw new Error(`stdout is not one JSON document (exit ${code}):\n${stdout}\nstderr:\n${stderr}`);
            }
          },
          jsonError: () => JSON.parse(stderr.trim().split("\n").at(-1)!).error,
        }),
      );
      child.stdin.end(options.input ?? "");
    });
  }

  /**
   * Starts a long-running command (`ir21 listen`) in the background: its output is collected as it
   * comes, `waitFor` resolves with the first stdout line that matches, `signal` sends it a signal.
   */
  background(args: string[], options: RunOptions = {}): BackgroundCli {
    const [program, ...before] = this.#command;
    const child = spawn(program, [...before, ...args], { env: this.env(options.env), stdio: ["pipe", "pipe", "pipe"] });
    const proc: BackgroundCli = {
      stdout: "",
      stderr: "",
      exited: new Promise((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? 128 : null)))),
      lines: () => proc.stdout.split("\n").filter(Boolean),
      async waitFor(pattern, timeoutMs = 15_000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const line = proc.lines().find((l) => pattern.test(l));
          if (line !== undefined) return line;
          if (Date.now() > deadline) throw new Error(`no stdout line matching ${pattern} within ${timeoutMs} ms\nstdout:\n${proc.stdout}\nstderr:\n${proc.stderr}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
      signal: (name) => child.kill(name),
    };
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (proc.stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (proc.stderr += chunk));
    child.stdin.end(options.input ?? "");
    return proc;
  }

  /** Path of a profile's file. */
  profilePath(name = "default"): string {
    return join(this.configHome, "ir21", "profiles", `${name}.json`);
  }

  profile(name = "default"): any {
    return JSON.parse(readFileSync(this.profilePath(name), "utf8"));
  }

  /**
   * Signs in through the CLI the way a script does: `login --send-only`, the code from the dev SMS
   * outbox, `login --code`. Returns the phone and the code (to assert it is never printed).
   */
  async login(options: { phone?: string; profile?: string; server?: TestServer } = {}): Promise<{ phone: string; code: string; outputs: string }> {
    const phone = options.phone ?? randomPhone();
    const server = options.server ?? this.server;
    const profile = options.profile ? ["--profile", options.profile] : [];
    const env = { IR21_BASE_URL: server.url };
    const sent = await this.run([...profile, "login", "--phone", phone, "--agree", "--send-only"], { env });
    if (sent.code !== 0) throw new Error(`login --send-only failed (${sent.code}): ${sent.stderr}`);
    const code = lastSmsCode(server, phone);
    const done = await this.run([...profile, "login", "--code", code], { env });
    if (done.code !== 0) throw new Error(`login --code failed (${done.code}): ${done.stderr}`);
    return { phone, code, outputs: sent.stdout + sent.stderr + done.stdout + done.stderr };
  }

  cleanup(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}

export { lastSmsCode, randomPhone, readOutbox };
