import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "@ir21/sdk/webhooks";
import { startTestReceiver, startTestServer, type TestReceiver, type TestServer } from "@ir21/server/testing";
import { BIN, CliSandbox, lastSmsCode } from "./harness.ts";

/**
 * The scripted example of cli/README.md, run as written (bash, jq, `ir21` on the PATH) against a live
 * server with its default webhook policy (no test allowlist: `ir21 listen` forwards to the local
 * receiver, the server never connects to it). Only the server's address and the local receiver's port
 * differ from the text.
 */
const README = join(dirname(fileURLToPath(import.meta.url)), "../../cli/README.md");

let server: TestServer;
let receiver: TestReceiver;
let cli: CliSandbox;
beforeAll(async () => {
  server = await startTestServer({ dataset: "demo" });
  expect(server.deps.config.webhookAllowHosts).toEqual([]);
  receiver = await startTestReceiver();
  receiver.fallback = { status: 200, body: "thanks from the receiver" };
  cli = new CliSandbox(server);
}, 60_000);
afterAll(async () => {
  cli.cleanup();
  await receiver.close();
  await server.close();
});

function exampleScript(): string {
  const readme = readFileSync(README, "utf8");
  const section = readme.slice(readme.indexOf("## A scripted example"));
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error("no ```sh block under 'A scripted example'");
  return match[1]!.replaceAll("https://ir21.example.com", server.url).replaceAll("http://localhost:3000", receiver.url);
}

describe("cli/README.md's scripted example", () => {
  it("runs to the end: login, key, export, listen in the background, trigger, the receiver's answer, a machine-readable error", async () => {
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
    // The local receiver got the triggered event, verifiable with the secret listen printed.
    const lines = readFileSync(join(cli.home, "listen.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const ready = lines.find((l) => l.type === "ready");
    expect(ready.session.countries).toEqual(["CN"]);
    expect(receiver.requests).toHaveLength(1);
    const request = receiver.requests[0]!;
    expect(request.path).toBe("/ir21");
    const event = await verifyWebhook({ rawBody: request.body, headers: request.headers as Record<string, string>, secrets: ready.secret, now: server.clock.now() });
    expect(event).toMatchObject({ type: "ir21.operator.updated", test: true, country_iso2: "CN" });
    expect(lines.find((l) => l.type === "delivery")).toMatchObject({ event_id: event.id, status: 200 });
    // What the receiver answered, as the script printed it from the delivery record.
    expect(stdout).toContain('"body": "thanks from the receiver"');
    expect(stdout).toContain('"response_status": 200');
    // Ctrl-C ended the session for good.
    const sessions = (await server.json("/console/listen-sessions", { headers: { cookie: cli.profile("ops").session.cookie } })).body.data.items;
    expect(sessions).toEqual([expect.objectContaining({ id: ready.session_id, status: "ended", end_reason: "ended" })]);
    expect(stdout + stderr).not.toContain(code);
  });
});
