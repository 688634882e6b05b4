import { createHmac } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@ir21/server/testing";
import { CliSandbox } from "./harness.ts";

/**
 * `ir21 verify` on deliveries signed here with node:crypto, following the contract's recipe
 * (v1=hex HMAC-SHA256 of `timestamp.body`), independently of the server's signer and the SDK's verifier.
 */
let server: TestServer;
let cli: CliSandbox;
beforeAll(async () => {
  server = await startTestServer();
  cli = new CliSandbox(server);
});
afterAll(async () => {
  cli.cleanup();
  await server.close();
});

const SECRET = "whsec_c2VjcmV0LWZvci1jbGktdGVzdHM";
const OLD_SECRET = "whsec_b2xkLXNlY3JldC1mb3ItY2xp";
const body = `{"id":"evt_0123456789abcdef","type":"ir21.operator.updated","occurred_at":"2026-11-23T04:00:00.000Z","test":false,"data":{"name":"中国移动"}}`;
const sign = (secret: string, timestamp: string, raw = body) => `v1=${createHmac("sha256", secret).update(`${timestamp}.${raw}`).digest("hex")}`;
const now = () => String(Math.floor(Date.now() / 1000));

function headerFlags(headers: Record<string, string>): string[] {
  return Object.entries(headers).flatMap(([name, value]) => ["--header", `${name}: ${value}`]);
}

describe("ir21 verify", () => {
  it("exit 0 for a valid delivery, with the event on stdout", async () => {
    const timestamp = now();
    const headers = { "X-IR21-Event-Id": "evt_0123456789abcdef", "X-IR21-Timestamp": timestamp, "X-IR21-Signature": sign(SECRET, timestamp) };
    const result = await cli.run(["--json", "verify", "--secret", SECRET, ...headerFlags(headers)], { input: body });
    expect(result.code).toBe(0);
    expect(result.json()).toEqual({ valid: true, event: JSON.parse(body) });
    expect(result.stdout + result.stderr).not.toContain(SECRET);

    const human = await cli.run(["verify", ...headerFlags(headers)], { input: body, env: { IR21_WEBHOOK_SECRET: SECRET } });
    expect(human.code).toBe(0);
    expect(human.stderr).toContain("Valid delivery: event evt_0123456789abcdef (ir21.operator.updated)");
  });

  it("accepts the previous secret during a rotation, and headers saved by curl -D", async () => {
    const timestamp = now();
    const file = join(cli.home, "headers.txt");
    writeFileSync(
      file,
      `POST /hook HTTP/1.1\r\nContent-Type: application/json\r\nx-ir21-event-id: evt_0123456789abcdef\r\nX-IR21-Timestamp: ${timestamp}\r\nX-IR21-Signature: ${sign(SECRET, timestamp)}\r\nX-IR21-Signature-Previous: ${sign(OLD_SECRET, timestamp)}\r\n\r\n`,
    );
    const bodyFile = join(cli.home, "body.json");
    writeFileSync(bodyFile, body);
    const result = await cli.run(["verify", "--secret", OLD_SECRET, "--headers-file", file, "--body-file", bodyFile]);
    expect(result.code).toBe(0);
  });

  it("checks the Standard Webhooks headers when they are the ones saved, with the same secret", async () => {
    const timestamp = now();
    // v1,<base64> of id.timestamp.body, the current and the previous secret's, space-separated.
    const standard = (secret: string, id = "evt_0123456789abcdef") => `v1,${createHmac("sha256", secret).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
    const headers = { "webhook-id": "evt_0123456789abcdef", "webhook-timestamp": timestamp, "webhook-signature": `${standard(SECRET)} ${standard(OLD_SECRET)}` };
    for (const secret of [SECRET, OLD_SECRET]) {
      const result = await cli.run(["--json", "verify", "--secret", secret, ...headerFlags(headers)], { input: body });
      expect(result.code, result.stderr).toBe(0);
      expect(result.json()).toEqual({ valid: true, event: JSON.parse(body) });
    }
    const tampered = await cli.run(["verify", "--secret", SECRET, ...headerFlags(headers)], { input: body.replace("中国移动", "中国联通") });
    expect(tampered.code).toBe(2);
    expect(tampered.stderr).toContain("SIGNATURE_MISMATCH");
    const otherId = { ...headers, "webhook-id": "evt_other", "webhook-signature": standard(SECRET, "evt_other") };
    const mismatch = await cli.run(["verify", "--secret", SECRET, ...headerFlags(otherId)], { input: body });
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toContain("EVENT_ID_MISMATCH");
  });

  it("exit 2 with the failed check's code", async () => {
    const timestamp = now();
    const good = { "X-IR21-Event-Id": "evt_0123456789abcdef", "X-IR21-Timestamp": timestamp, "X-IR21-Signature": sign(SECRET, timestamp) };
    const cases: Array<[string, string[], string]> = [
      ["SIGNATURE_MISMATCH", ["--secret", OLD_SECRET, ...headerFlags(good)], body],
      ["SIGNATURE_MISMATCH", ["--secret", SECRET, ...headerFlags(good)], body.replace("中国移动", "China Mobile")],
      ["MISSING_HEADER", ["--secret", SECRET, ...headerFlags({ "X-IR21-Timestamp": timestamp, "X-IR21-Signature": good["X-IR21-Signature"] })], body],
      ["MALFORMED_SIGNATURE", ["--secret", SECRET, ...headerFlags({ ...good, "X-IR21-Signature": "v1=abc" })], body],
      ["EVENT_ID_MISMATCH", ["--secret", SECRET, ...headerFlags({ ...good, "X-IR21-Event-Id": "evt_other" })], body],
    ];
    for (const [code, args, input] of cases) {
      const result = await cli.run(["--json", "verify", ...args], { input });
      expect({ code, exit: result.code }).toEqual({ code, exit: 2 });
      expect(result.stdout).toBe("");
      expect(result.jsonError().code).toBe(code);
    }
  });

  it("checks the time window against now, or --at, or not at all", async () => {
    const old = "1795000000";
    const headers = { "X-IR21-Event-Id": "evt_0123456789abcdef", "X-IR21-Timestamp": old, "X-IR21-Signature": sign(SECRET, old) };
    const late = await cli.run(["verify", "--secret", SECRET, ...headerFlags(headers)], { input: body });
    expect(late.code).toBe(2);
    expect(late.stderr).toMatch(/^error: TIMESTAMP_OUT_OF_TOLERANCE: /m);
    expect((await cli.run(["verify", "--secret", SECRET, "--at", "1795000120", ...headerFlags(headers)], { input: body })).code).toBe(0);
    expect((await cli.run(["verify", "--secret", SECRET, "--at", new Date(1795000000_000 + 301_000).toISOString(), ...headerFlags(headers)], { input: body })).code).toBe(2);
    expect((await cli.run(["verify", "--secret", SECRET, "--at", "1795000400", "--tolerance", "600", ...headerFlags(headers)], { input: body })).code).toBe(0);
    expect((await cli.run(["verify", "--secret", SECRET, "--ignore-timestamp", ...headerFlags(headers)], { input: body })).code).toBe(0);
  });

  it("usage errors: no secret, a secret without whsec_, a header without a colon", async () => {
    expect((await cli.run(["verify"], { input: body })).stderr).toContain("--secret");
    expect((await cli.run(["verify", "--secret", "c2VjcmV0"], { input: body })).code).toBe(1);
    const badHeader = await cli.run(["verify", "--secret", SECRET, "--header", "no colon here"], { input: body });
    expect(badHeader.code).toBe(1);
    expect(badHeader.stderr).toContain("Not a header");
  });
});
