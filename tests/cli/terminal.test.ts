import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@ir21/server/testing";
import { BIN, CliSandbox, lastSmsCode, randomPhone } from "./harness.ts";

/**
 * The interactive prompts, driven through a real pseudo-terminal: tmux runs the CLI in a detached
 * session, `send-keys` types, `capture-pane` reads the screen. A private tmux server (-L) per test
 * keeps it away from anyone else's sessions.
 */
let server: TestServer;
const sandboxes: CliSandbox[] = [];
const sockets: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterEach(() => {
  for (const socket of sockets.splice(0)) {
    try {
      execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" });
    } catch {
      // Already gone.
    }
  }
});
afterAll(async () => {
  for (const box of sandboxes) box.cleanup();
  await server.close();
});

class Terminal {
  readonly socket: string;

  constructor(cli: CliSandbox, args: string[]) {
    this.socket = join(cli.home, `tmux-${randomBytes(4).toString("hex")}.sock`);
    sockets.push(this.socket);
    const env = Object.entries({ ...cli.env(), TERM: "xterm-256color" }).map(([k, v]) => `${k}=${shellQuote(v)}`);
    const command = `env -i ${env.join(" ")} ${shellQuote(process.execPath)} ${shellQuote(BIN)} ${args.map(shellQuote).join(" ")}; echo "EXIT=$?"; sleep 600`;
    execFileSync("tmux", ["-S", this.socket, "-f", "/dev/null", "new-session", "-d", "-s", "cli", "-x", "120", "-y", "40", command]);
  }

  screen(): string {
    return execFileSync("tmux", ["-S", this.socket, "capture-pane", "-p", "-t", "cli"], { encoding: "utf8" });
  }

  keys(...keys: string[]): void {
    execFileSync("tmux", ["-S", this.socket, "send-keys", "-t", "cli", ...keys]);
  }

  /** Types text literally (no key-name lookup), then presses Enter. */
  type(text: string): void {
    execFileSync("tmux", ["-S", this.socket, "send-keys", "-t", "cli", "-l", text]);
    this.keys("Enter");
  }

  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    const start = Date.now();
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() - start > timeoutMs) throw new Error(`Timed out waiting for ${pattern}; the screen shows:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

describe("interactive login in a terminal", () => {
  it("asks for the number, the agreement and the code (masked), retries a wrong code, and signs in", async () => {
    const cli = new CliSandbox(server);
    sandboxes.push(cli);
    const phone = randomPhone();
    const term = new Terminal(cli, ["login"]);

    await term.waitFor(/Mobile number/);
    term.type(phone);
    const agreement = await term.waitFor(/Accept the Terms of Service/);
    expect(agreement).toContain("Terms of Service (version 2026-09-08)");
    expect(agreement).toContain("Privacy Policy (version 2026-09-08)");
    term.keys("Left"); // No is preselected: choose Yes
    term.keys("Enter");

    await term.waitFor(/SMS code/);
    const code = lastSmsCode(server, phone);
    const wrong = code === "000000" ? "111111" : "000000";
    term.type(wrong);
    await term.waitFor(/Wrong code; 4 attempts left/);
    term.type(code);

    const screen = await term.waitFor(/EXIT=\d+/);
    expect(screen).toContain("EXIT=0");
    expect(screen).toContain(`Logged in to ${server.url} as +86${phone} (new account)`);
    expect(screen).toContain(`Sent a code to +86 ${phone.slice(0, 3)}****${phone.slice(7)}`);
    // The code was masked as it was typed, and never printed.
    expect(screen).not.toContain(code);
    expect(screen).not.toContain(wrong);
    expect(cli.profile().session.cookie).toMatch(/^ir21_session=ses_/);

    // The saved login works from a plain (non-terminal) run.
    const me = await cli.run(["--json", "whoami"]);
    expect(me.json().phone).toBe(`+86${phone}`);
  });

  it("declining the agreement sends nothing (exit 1); Ctrl-C at a prompt exits 130", async () => {
    const cli = new CliSandbox(server);
    sandboxes.push(cli);
    const phone = randomPhone();
    const declined = new Terminal(cli, ["login"]);
    await declined.waitFor(/Mobile number/);
    declined.type(phone);
    await declined.waitFor(/Accept the Terms of Service/);
    declined.keys("Enter"); // the default answer is No
    const screen = await declined.waitFor(/EXIT=\d+/);
    expect(screen).toContain("EXIT=1");
    expect(screen).toContain("must be accepted");
    expect(() => lastSmsCode(server, phone)).toThrow(/No SMS/);

    const interrupted = new Terminal(cli, ["login"]);
    await interrupted.waitFor(/Mobile number/);
    interrupted.keys("C-c");
    expect(await interrupted.waitFor(/EXIT=\d+/)).toContain("EXIT=130");
  });

  it("asks before revoking a key at a terminal; answering yes revokes it", async () => {
    const cli = new CliSandbox(server);
    sandboxes.push(cli);
    await cli.login();
    const item = (await cli.run(["--json", "keys", "create", "to-revoke"])).json();
    const term = new Terminal(cli, ["keys", "revoke", item.id]);
    await term.waitFor(new RegExp(`Revoke API key ${item.id}\\?`));
    term.keys("Left");
    term.keys("Enter");
    const screen = await term.waitFor(/EXIT=\d+/);
    expect(screen).toContain("EXIT=0");
    expect(screen).toContain(`Revoked API key ${item.id}`);
    expect((await cli.run(["--json", "keys", "list"])).json()[0].revoked_at).not.toBeNull();
  });
});
