import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeliveryWorker, startTestReceiver, startTestServer, type TestReceiver, type TestServer } from "@ir21/server/testing";
import { CliSandbox } from "./harness.ts";

let server: TestServer;
let receiver: TestReceiver;
let worker: DeliveryWorker;
let cli: CliSandbox;

beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  receiver = await startTestReceiver();
  worker = new DeliveryWorker(server.deps.webhooks, { random: () => 0, limits: { totalTimeoutMs: 2_000, connectTimeoutMs: 1_000 } });
  cli = new CliSandbox(server);
  await cli.login();
});
afterAll(async () => {
  cli.cleanup();
  await receiver.close();
  await server.close();
});

const HOUR = 3_600_000;

/** Runs the worker until every attempt the schedule allows has been made (the clock moves, no sleeping). */
async function deliverUntilSettled(): Promise<void> {
  for (let round = 0; round < 12; round++) {
    await worker.drain();
    server.clock.advance(25 * HOUR);
  }
}

describe("ir21 webhooks", () => {
  it("create prints the secret once; list, update, disable/enable, rotate and revoke-previous; delete", async () => {
    const created = await cli.run(["webhooks", "create", `${receiver.url}/hook`, "--events", "ir21.operator.updated,ir21.operator.added", "--events", "ir21.catalog.updated", "--countries", "cn"]);
    expect(created.code).toBe(0);
    const secret = created.stdout.trim();
    expect(secret).toMatch(/^whsec_/);
    expect(created.stderr).not.toContain(secret);

    const list = await cli.run(["--json", "webhooks", "list"]);
    const [item] = list.json();
    expect(item).toMatchObject({ url: `${receiver.url}/hook`, countries: ["CN"], operators: [], enabled: true, previous_secret_expires_at: null });
    expect(item.events.sort()).toEqual(["ir21.catalog.updated", "ir21.operator.added", "ir21.operator.updated"]);
    expect(list.stdout).not.toContain(secret);
    const table = await cli.run(["webhooks", "list"], { env: { IR21_FORCE_TTY: "300" } });
    expect(table.stdout).toMatch(/^ID\s+URL\s+EVENTS\s+FILTERS\s+STATUS\s+ROTATION$/m);
    expect(table.stdout).toContain("countries CN");

    const updated = await cli.run(["--json", "webhooks", "update", item.id, "--events", "all", "--all-countries"]);
    expect(updated.code).toBe(0);
    expect(updated.json()).toMatchObject({ id: item.id, countries: [], events: expect.arrayContaining(["ir21.number_range.added", "ir21.capability.changed"]) });
    expect(updated.json().events).toHaveLength(11);
    expect((await cli.run(["webhooks", "update", item.id])).code).toBe(1);

    expect((await cli.run(["--json", "webhooks", "disable", item.id])).json().enabled).toBe(false);
    expect((await cli.run(["--json", "webhooks", "enable", item.id])).json().enabled).toBe(true);

    const rotated = await cli.run(["--json", "webhooks", "rotate-secret", item.id, "--grace", "600"]);
    expect(rotated.code).toBe(0);
    const rotation = rotated.json();
    expect(rotation).toMatchObject({ id: item.id, url: item.url });
    expect(rotation.secret).toMatch(/^whsec_/);
    expect(rotation.secret).not.toBe(secret);
    expect(rotation.previous_secret_expires_at).toBe(new Date(server.clock.now().getTime() + 600_000).toISOString());
    const second = await cli.run(["webhooks", "rotate-secret", item.id]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/^error: [A-Z_]+: /m);
    expect((await cli.run(["webhooks", "rotate-secret", item.id, "--grace", "0"])).stderr).toContain("--yes");
    expect((await cli.run(["--json", "webhooks", "revoke-previous", item.id, "--yes"])).json()).toEqual({ id: item.id, revoked: true });

    expect((await cli.run(["webhooks", "delete", item.id])).code).toBe(1); // no --yes without a terminal
    expect((await cli.run(["--json", "webhooks", "delete", item.id, "--yes"])).json()).toEqual({ id: item.id, deleted: true });
    expect((await cli.run(["--json", "webhooks", "list"])).json()).toEqual([]);
  });

  it("refuses a private URL with the service's error and exit 2", async () => {
    const result = await cli.run(["--json", "webhooks", "create", "https://10.0.0.1/hook", "--events", "all"]);
    expect(result.code).toBe(2);
    expect(result.jsonError()).toMatchObject({ status: 400, request_id: expect.stringMatching(/^req_/) });
    expect((await cli.run(["webhooks", "create", "https://hooks.example.com"])).stderr).toContain("--events all");
  });
});

describe("ir21 deliveries", () => {
  it("test, list by status, show with attempts, and retry every failed delivery in batches of 20", async () => {
    expect((await cli.run(["webhooks", "create", `${receiver.url}/failing`, "--events", "all"])).code).toBe(0);
    const { id } = (await cli.run(["--json", "webhooks", "list"])).json().at(-1);

    // 23 test deliveries to a receiver that always fails: more than one retry batch.
    receiver.fallback = { status: 500, body: "down" };
    const first = await cli.run(["--json", "webhooks", "test", id]);
    expect(first.code).toBe(0);
    expect(first.json()).toEqual({ delivery_id: expect.stringMatching(/^dlv_/), queued: true, webhook_id: id });
    const queued: string[] = [first.json().delivery_id];
    // The other 22 straight through the API with the CLI's own session (22 more CLI runs would only cost time).
    const headers = { cookie: cli.profile().session.cookie };
    for (let i = 1; i < 23; i++) {
      const { status, body } = await server.json(`/console/webhooks/${id}/test`, { method: "POST", headers });
      expect(status).toBe(200);
      queued.push(body.data.delivery_id);
    }
    await deliverUntilSettled();
    expect(receiver.requests.filter((r) => r.path === "/failing").length).toBeGreaterThanOrEqual(23 * 2);

    // Only one subscription: its id may be left out.
    const failed = await cli.run(["--json", "deliveries", "list", "--status", "failed", "--limit", "10"]);
    expect(failed.code).toBe(0);
    const page = failed.json();
    expect(page).toHaveLength(10);
    const direct = (await server.json(`/console/webhooks/${id}/deliveries?status=failed&limit=10`, { headers })).body.data;
    expect(direct.total).toBe(23);
    expect(page).toEqual(direct.items);
    expect(Object.keys(page[0]).sort()).toEqual(["attempts", "created_at", "event_id", "event_type", "id", "last_error", "next_attempt_at", "response_status", "status"]);
    expect(page.every((d: { status: string; response_status: number }) => d.status === "failed" && d.response_status === 500)).toBe(true);
    // The array alone cannot say there is more: stderr names the next page's command.
    expect(failed.stderr).toContain(`ir21 deliveries list ${id} --status failed --cursor ${direct.next_cursor}`);
    const next = (await cli.run(["--json", "deliveries", "list", id, "--status", "failed", "--limit", "10", "--cursor", direct.next_cursor])).json();
    expect(next.map((d: { id: string }) => d.id)).not.toContain(page[0].id);
    const all = (await cli.run(["--json", "deliveries", "list", id, "--status", "failed", "--all"])).json();
    expect(all.map((d: { id: string }) => d.id).sort()).toEqual([...queued].sort());
    const human = await cli.run(["deliveries", "list", "--status", "failed", "--limit", "5"], { env: { IR21_FORCE_TTY: "300" } });
    expect(human.stdout).toMatch(/^ID\s+EVENT\s+STATUS\s+ATTEMPTS\s+HTTP\s+CREATED\s+NEXT ATTEMPT\s+LAST ERROR$/m);
    expect(human.stderr).toContain("--cursor");

    const shown = await cli.run(["--json", "deliveries", "show", queued[0]!, id]);
    expect(shown.code).toBe(0);
    const detail = shown.json();
    expect(Object.keys(detail).sort()).toEqual(["attempts", "event", "item"]);
    expect(detail.item.id).toBe(queued[0]);
    expect(detail.attempts.length).toBe(detail.item.attempts);
    expect(detail.event).toMatchObject({ test: true, id: detail.item.event_id });
    expect((await cli.run(["deliveries", "show", queued[0]!])).stdout).toContain(detail.item.event_id);

    // The receiver recovers; retry everything that failed: 23 ids go out as 20 + 3.
    receiver.fallback = { status: 200, body: "ok" };
    const retried = await cli.run(["--json", "deliveries", "retry", id, "--status", "failed"]);
    expect(retried.code).toBe(0);
    expect(retried.json().queued).toBe(23);
    expect(retried.json().delivery_ids.sort()).toEqual([...queued].sort());
    const batches = server.logs.entries().filter((e) => e.msg === "request" && String(e.path).includes("retryDeliveries"));
    expect(batches).toHaveLength(2);
    await worker.drain();
    const after = (await cli.run(["--json", "deliveries", "list", id, "--status", "delivered", "--all"])).json();
    expect(after).toHaveLength(23);
    // A retry keeps the event id.
    expect(after.find((d: { id: string }) => d.id === queued[0]).event_id).toBe(detail.item.event_id);

    // Retry by ids, including one that is delivered already.
    const byIds = await cli.run(["--json", "deliveries", "retry", queued[1]!, queued[2]!, id]);
    expect(byIds.code).toBe(0);
    expect(byIds.json().queued).toBe(2);
    await worker.drain();

    const none = await cli.run(["--json", "deliveries", "retry", id, "--status", "failed"]);
    expect(none.json()).toEqual({ queued: 0, delivery_ids: [] });
  });

  it("usage errors: ids and --status together, neither, bad limit, an id of the wrong kind, several subscriptions without an id", async () => {
    expect((await cli.run(["deliveries", "retry", "dlv_x", "--status", "failed"])).code).toBe(1);
    expect((await cli.run(["deliveries", "retry"])).stderr).toContain("--status failed");
    const wrongKind = await cli.run(["deliveries", "retry", "key_x"]);
    expect(wrongKind.code).toBe(1);
    expect(wrongKind.stderr).toContain('"key_x" is not a delivery id (dlv_…) or a subscription id (whk_…)');
    expect((await cli.run(["deliveries", "list", "evt_x"])).stderr).toContain('"evt_x" is not a subscription id (whk_…) or a listen session id (lsn_…)');
    expect((await cli.run(["deliveries", "list", "--limit", "500"])).stderr).toContain("--limit must be 1 to 100");
    expect((await cli.run(["deliveries", "list", "--status", "lost"])).stderr).toContain("expected one of pending, delivered, failed, cancelled");
    await cli.run(["webhooks", "create", `${receiver.url}/second`, "--events", "all"]);
    const ambiguous = await cli.run(["deliveries", "list"]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain("name one (whk_…) after the command");
    const otherTenant = new CliSandbox(server);
    try {
      await otherTenant.login();
      const { id } = (await cli.run(["--json", "webhooks", "list"])).json()[0];
      const denied = await otherTenant.run(["--json", "deliveries", "list", id]);
      expect(denied.code).toBe(2);
      expect(denied.jsonError().code).toBe("NOT_FOUND");
    } finally {
      otherTenant.cleanup();
    }
  });
});

describe("ir21 verify on a real delivery", () => {
  it("accepts what the server signed (also the previous secret during a rotation) and refuses a tampered body", async () => {
    receiver.fallback = { status: 200, body: "ok" };
    const secret = (await cli.run(["webhooks", "create", `${receiver.url}/verify-me`, "--events", "all"])).stdout.trim();
    const id = (await cli.run(["--json", "webhooks", "list"])).json().find((s: { url: string }) => s.url.endsWith("/verify-me")).id;
    const newSecret = (await cli.run(["webhooks", "rotate-secret", id, "--grace", "3600"])).stdout.trim();
    expect((await cli.run(["webhooks", "test", id])).code).toBe(0);
    await worker.drain();
    const delivered = receiver.requests.filter((r) => r.path === "/verify-me").at(-1)!;
    expect(delivered.headers["x-ir21-signature-previous"]).toMatch(/^v1=/);

    const headersFile = join(cli.home, "delivery-headers.txt");
    const bodyFile = join(cli.home, "delivery-body.json");
    writeFileSync(headersFile, Object.entries(delivered.headers).map(([name, value]) => `${name}: ${value}`).join("\n"));
    writeFileSync(bodyFile, delivered.body);
    // The server signed at its (manual) clock's time: check as of then.
    const at = String(delivered.headers["x-ir21-timestamp"]);
    for (const key of [newSecret, secret]) {
      const ok = await cli.run(["--json", "verify", "--secret", key, "--headers-file", headersFile, "--body-file", bodyFile, "--at", at]);
      expect(ok.code).toBe(0);
      expect(ok.json().event).toMatchObject({ id: delivered.headers["x-ir21-event-id"], test: true });
    }
    const tampered = await cli.run(["--json", "verify", "--secret", newSecret, "--headers-file", headersFile, "--at", at], { input: delivered.body.replace("true", "false") });
    expect(tampered.code).toBe(2);
    expect(tampered.jsonError().code).toBe("SIGNATURE_MISMATCH");
  });
});
