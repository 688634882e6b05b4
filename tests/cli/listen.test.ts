import { execFileSync } from "node:child_process";
import { createServer, type Server, type Socket, connect } from "node:net";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { verifyWebhook } from "@ir21/sdk/webhooks";
import { startTestReceiver, startTestServer, type TestReceiver, type TestServer } from "@ir21/server/testing";
import { CliSandbox } from "./harness.ts";

/**
 * Webhooks developed locally with the CLI only (issue 17's "Done when"): `ir21 login`, `ir21 listen
 * --forward-to` in the background, `ir21 trigger` — a real local receiver gets a POST it can verify
 * with the printed secret, listen prints what it answered, and the delivery record keeps that answer.
 */

let server: TestServer;
let receiver: TestReceiver;
let cli: CliSandbox;

beforeAll(async () => {
  server = await startTestServer({ dataset: "demo" });
  receiver = await startTestReceiver();
  cli = new CliSandbox(server);
  await cli.login();
}, 60_000);
afterAll(async () => {
  cli.cleanup();
  await receiver.close();
  await server.close();
});

/** The receiver's own check of a request: the SDK's verifier with the secret listen printed. */
const verify = (request: TestReceiver["requests"][number], secret: string) =>
  verifyWebhook({ rawBody: request.body, headers: request.headers as Record<string, string>, secrets: secret, now: server.clock.now() });

describe("ir21 listen and ir21 trigger", () => {
  it("forward a triggered event to a local receiver, signed with the printed secret; the answer is recorded; Ctrl-C exits 130", async () => {
    receiver.respond({ status: 201, body: '{"ok":true,"note":"from the local receiver"}', headers: { "content-type": "application/json", "x-receiver": "dev" } });
    const listen = cli.background(["listen", "--forward-to", `http://127.0.0.1:${receiver.port}/hook`]);
    const ready = await listen.waitFor(/^Ready!/);
    expect(ready).toContain(`Forwarding to http://127.0.0.1:${receiver.port}/hook`);
    const secret = /with signing secret (whsec_[A-Za-z0-9_-]{43})/.exec(ready)![1]!;
    const sessionId = /session (lsn_[0-9a-z]+)/.exec(ready)![1]!;

    const triggered = await cli.run(["trigger", "ir21.operator.updated"]);
    expect(triggered.code, triggered.stderr).toBe(0);
    expect(triggered.stderr).toContain("Sent a test ir21.operator.updated");

    const line = await listen.waitFor(/ir21\.operator\.updated/);
    const request = receiver.requests.at(-1)!;
    expect(request.path).toBe("/hook");
    expect(request.headers["content-type"]).toBe("application/json");
    const event = await verify(request, secret);
    expect(event).toMatchObject({ type: "ir21.operator.updated", test: true });
    expect(request.headers["x-ir21-event-id"]).toBe(event.id);
    // Independently of the SDK: openssl over timestamp.rawBody with the printed secret.
    const hex = execFileSync("openssl", ["dgst", "-sha256", "-mac", "HMAC", "-macopt", `key:${secret}`, "-hex"], { input: `${request.headers["x-ir21-timestamp"]}.${request.body}` })
      .toString()
      .trim()
      .split(" ")
      .at(-1);
    expect(request.headers["x-ir21-signature"]).toBe(`v1=${hex}`);
    // The Standard Webhooks headers are forwarded too: the specification's library verifies them with
    // the printed secret as a raw key (its clock, Date.now(), set to the server's for the call).
    expect(request.headers["webhook-id"]).toBe(event.id);
    expect(request.headers["webhook-timestamp"]).toBe(request.headers["x-ir21-timestamp"]);
    const clock = vi.spyOn(Date, "now").mockReturnValue(server.clock.now().getTime());
    try {
      const standard = new Webhook(secret, { format: "raw" });
      expect(standard.verify(request.body, request.headers as Record<string, string>)).toEqual(event);
      expect(() => standard.verify(`${request.body} `, request.headers as Record<string, string>)).toThrow("No matching signature found");
    } finally {
      clock.mockRestore();
    }
    // The line: time, type, event id, the local status and duration.
    expect(line).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}(:\\d{2})?\\s+ir21\\.operator\\.updated\\s+${event.id}\\s+201\\s+\\d+ ms\\s+dlv_`));
    const deliveryId = /(dlv_[0-9a-z]+)/.exec(line)![1]!;

    // What the receiver answered, in the delivery record (JSON and human).
    const shown = await cli.run(["--json", "deliveries", "show", deliveryId, sessionId]);
    expect(shown.code, shown.stderr).toBe(0);
    const record = shown.json();
    expect(record.item).toMatchObject({ id: deliveryId, status: "delivered", response_status: 201, attempts: 1 });
    expect(record.attempts).toHaveLength(1);
    expect(record.attempts[0]).toMatchObject({ response_status: 201, error: null, response: { body: '{"ok":true,"note":"from the local receiver"}', body_truncated: false } });
    expect(record.attempts[0].response.headers).toMatchObject({ "content-type": "application/json", "x-receiver": "dev" });
    expect(record.attempts[0].duration_ms).toBeGreaterThanOrEqual(0);
    expect(record.event.id).toBe(event.id);
    const human = await cli.run(["deliveries", "show", deliveryId, sessionId]);
    expect(human.stdout).toContain("The receiver answered");
    expect(human.stdout).toContain("x-receiver: dev");
    expect(human.stdout).toContain("from the local receiver");

    listen.signal("SIGINT");
    expect(await listen.exited).toBe(130);
    expect(listen.stderr).toContain(`session ${sessionId} ended`);
    const listed = await server.json("/console/listen-sessions", { headers: { cookie: cli.profile().session.cookie } });
    expect(listed.body.data.items.find((s: any) => s.id === sessionId)).toMatchObject({ status: "ended", end_reason: "ended" });
    // The secret appeared once: on the ready line.
    expect(listen.stdout.split(secret).length - 1).toBe(1);
  });

  it("--json prints one object per line; a failing receiver is reported as such; short event types work", async () => {
    receiver.respond({ status: 500, body: "boom" });
    const listen = cli.background(["--json", "listen", "--forward-to", `127.0.0.1:${receiver.port}/fail`, "--events", "catalog.updated"]);
    const ready = JSON.parse(await listen.waitFor(/"type":"ready"/));
    expect(ready).toMatchObject({ type: "ready", session_id: expect.stringMatching(/^lsn_/), secret: expect.stringMatching(/^whsec_/), forward_to: `http://127.0.0.1:${receiver.port}/fail` });
    expect(ready.session.events).toEqual(["ir21.catalog.updated"]);
    expect((await cli.run(["trigger", "catalog.updated"])).code).toBe(0);
    const delivery = JSON.parse(await listen.waitFor(/"type":"delivery"/));
    expect(delivery).toMatchObject({ type: "delivery", event_type: "ir21.catalog.updated", status: 500, session_id: ready.session_id, report_error: null });
    const record = (await cli.run(["--json", "deliveries", "show", delivery.delivery_id, ready.session_id])).json();
    expect(record.item).toMatchObject({ status: "failed", last_error: "http_status: HTTP 500" });
    expect(record.attempts[0].response.body).toBe("boom");
    expect(JSON.parse(receiver.requests.at(-1)!.body).data.reason).toBe("manual_reset");
    const unknown = await cli.run(["trigger", "operator.renamed"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Unknown event type");
    listen.signal("SIGINT");
    expect(await listen.exited).toBe(130);
  });

  it("reconnects when the connection drops and keeps the session and its secret", async () => {
    // A TCP proxy between the CLI and the server, whose connections the test cuts (a proxy restart).
    const sockets = new Set<Socket>();
    const proxy: Server = createServer((client) => {
      const upstream = connect(Number(new URL(server.url).port), "127.0.0.1");
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const viaProxy = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      // Signed in to the server's own address; the proxy is the same server to the CLI only through --base-url.
      const env = { IR21_BASE_URL: viaProxy };
      await cli.login({ profile: "proxied", server: { ...server, url: viaProxy } as TestServer });
      const listen = cli.background(["--profile", "proxied", "listen", "--forward-to", `http://127.0.0.1:${receiver.port}/again`], { env });
      const ready = await listen.waitFor(/^Ready!/);
      const secret = /with signing secret (whsec_\S+?) /.exec(ready)![1]!;
      for (const socket of sockets) socket.destroy();
      await expect.poll(() => listen.stderr, { timeout: 15_000 }).toContain("Reconnected to");
      expect((await cli.run(["--profile", "proxied", "trigger", "network.updated"], { env })).code).toBe(0);
      await listen.waitFor(/ir21\.network\.updated/);
      const request = receiver.requests.at(-1)!;
      expect(request.path).toBe("/again");
      expect((await verify(request, secret)).type).toBe("ir21.network.updated");
      listen.signal("SIGINT");
      expect(await listen.exited).toBe(130);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
