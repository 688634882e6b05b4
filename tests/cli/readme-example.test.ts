import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@ir21/server/testing";
import { BIN, CliSandbox, lastSmsCode } from "./harness.ts";

/**
 * The scripted example of cli/README.md, run as written (bash, jq, `ir21` on the PATH) against a live
 * server: the documentation's promise that it works is a test. Only the server's address and the
 * webhook host (allowlisted here, as nothing on the internet is reachable) differ from the text.
 */
const README = join(dirname(fileURLToPath(import.meta.url)), "../../cli/README.md");

let server: TestServer;
let cli: CliSandbox;
beforeAll(async () => {
  // The example's receiver host resolves to loopback and is allowlisted: no delivery leaves the machine
  // (none is even attempted: no delivery worker runs here).
  server = await startTestServer({
    dataset: "demo",
    env: { WEBHOOK_ALLOW_HOSTS: "hooks.example.com" },
    hostResolver: async () => [{ address: "127.0.0.1", family: 4 }],
  });
  cli = new CliSandbox(server);
}, 60_000);
afterAll(async () => {
  cli.cleanup();
  await server.close();
});

function exampleScript(): string {
  const readme = readFileSync(README, "utf8");
  const section = readme.slice(readme.indexOf("## A scripted example"));
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error("no ```sh block under 'A scripted example'");
  return match[1]!.replaceAll("https://ir21.example.com", server.url);
}

describe("cli/README.md's scripted example", () => {
  it("runs to the end: login, key, export, webhook, failed deliveries, retry, a machine-readable error", async () => {
    const bin = join(cli.home, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "ir21"), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
    chmodSync(join(bin, "ir21"), 0o755);
    const script = join(cli.home, "example.sh");
    writeFileSync(script, exampleScript());

    const child = spawn("bash", [script], { cwd: cli.home, env: cli.env({ PATH: `${bin}:${process.env.PATH}`, IR21_BASE_URL: undefined }) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));

    // The script reads the SMS code from stdin once it has been sent.
    const phone = /--phone (\d{11})/.exec(exampleScript())![1]!;
    const started = Date.now();
    let code: string | undefined;
    while (code === undefined && Date.now() - started < 20_000) {
      try {
        code = lastSmsCode(server, phone);
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(code).toBeDefined();
    child.stdin.end(`${code}\n`);

    expect(await exited, stderr).toBe(0);
    expect(stdout).toContain("failed with NOT_FOUND");
    expect(existsSync(join(cli.home, "snapshot.json"))).toBe(true);
    expect(JSON.parse(readFileSync(join(cli.home, "snapshot.json"), "utf8")).source_mode).toBe("demo");
    expect(cli.profile("ops").base_url).toBe(server.url);
    const hooks = (await cli.run(["--json", "--profile", "ops", "webhooks", "list"], { env: { IR21_BASE_URL: undefined } })).json();
    expect(hooks.items).toEqual([expect.objectContaining({ url: "https://hooks.example.com/ir21", countries: ["CN"] })]);
    expect(stderr).toContain("Queued test delivery");
    expect(stdout + stderr).not.toContain(code);
  });
});
