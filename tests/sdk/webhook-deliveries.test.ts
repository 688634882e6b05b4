import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createConsoleClient, createClient, memoryCookieJar, syncChanges, type ConsoleClient, type EventPayload } from "@ir21/sdk";
import { createEventDeduplicator, isWebhookVerificationError, verifyNodeRequest, type WebhookFailureCode } from "@ir21/sdk/webhooks";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createApiKey, DeliveryWorker, demoDataset, fanOutAll, importDataset, ManualClock, signIn, startTestServer, type TestServer } from "@ir21/server/testing";
import { catalogChangeFeed } from "../../server/src/catalog/changes/feed.ts";

/**
 * Real deliveries: subscriptions made through the SDK's console client, events queued by the server
 * (test events and catalogue imports) and sent by its delivery worker to a node:http receiver that
 * verifies with the SDK, deduplicates, and catches up with syncChanges.
 */

interface Outcome {
  status: number;
  code?: WebhookFailureCode;
  event?: EventPayload;
  duplicate?: boolean;
  signatureHeaders: string[];
}

let server: TestServer;
let ir21: ConsoleClient;
let worker: DeliveryWorker;
let receiver: { url: string; secrets: string[]; outcomes: Outcome[]; close(): Promise<void> };

async function startReceiver(): Promise<typeof receiver> {
  const outcomes: Outcome[] = [];
  const secrets: string[] = [];
  const dedupe = createEventDeduplicator();
  const http: Server = createServer(async (req, res) => {
    const signatureHeaders = ["x-ir21-signature", "x-ir21-signature-previous"].filter((h) => req.headers[h] !== undefined);
    try {
      const event = await verifyNodeRequest(req, { secrets });
      const { duplicate } = await dedupe.run(event, () => undefined);
      outcomes.push({ status: 200, event, duplicate, signatureHeaders });
      res.writeHead(200).end();
    } catch (error) {
      if (!isWebhookVerificationError(error)) throw error;
      outcomes.push({ status: 400, code: error.code, signatureHeaders });
      res.writeHead(400).end(error.code);
    }
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/ir21`,
    secrets,
    outcomes,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

beforeAll(async () => {
  // Signatures carry the server clock's time and receivers check it against theirs: start it at now.
  server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" }, dataset: "demo", clock: new ManualClock(Date.now()) });
  // The initial import is behind the fan-out cursor before anyone subscribes, as in production.
  await fanOutAll(server.deps.webhooks, catalogChangeFeed);
  ir21 = createConsoleClient({ baseUrl: server.url, cookies: memoryCookieJar((await signIn(server)).cookie) });
  worker = new DeliveryWorker(server.deps.webhooks, { random: () => 0 });
});
afterAll(() => server.close());
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(() => receiver.close());

describe("webhook deliveries from the server, verified by the SDK", () => {
  it("a test event: subscribe through the SDK, deliver, verify, and read the delivery back", async () => {
    const { item, secret } = await ir21.webhooks.create.mutate({ url: receiver.url, events: ["ir21.operator.updated"] });
    expect(secret).toMatch(/^whsec_/);
    receiver.secrets.push(secret);
    const { delivery_id } = await ir21.webhooks.sendTest.mutate({ id: item.id });
    expect(await worker.drain()).toBe(1);
    expect(receiver.outcomes).toEqual([{ status: 200, event: expect.objectContaining({ test: true }), duplicate: false, signatureHeaders: ["x-ir21-signature"] }]);
    const detail = await ir21.webhooks.getDelivery.query({ id: item.id, deliveryId: delivery_id });
    expect(detail.item).toMatchObject({ status: "delivered", attempts: 1, response_status: 200 });
    expect(detail.event).toEqual(receiver.outcomes[0]!.event);
    // A manual retry keeps the event id: the receiver's deduplication recognises it.
    await ir21.webhooks.retryDelivery.mutate({ id: item.id, deliveryId: delivery_id });
    await worker.drain();
    expect(receiver.outcomes[1]).toMatchObject({ status: 200, duplicate: true, event: { id: detail.event.id } });
    const listed = await ir21.webhooks.listDeliveries.query({ id: item.id, limit: 10 });
    expect(listed.items.map((d) => d.id)).toContain(delivery_id);
  });

  it("rotation: during the grace period the old and the new secret each verify; after revoking, only the new", async () => {
    const { item, secret: old } = await ir21.webhooks.create.mutate({ url: receiver.url, events: ["ir21.operator.updated"] });
    const rotated = await ir21.webhooks.rotateSecret.mutate({ id: item.id, grace_seconds: 3600 });
    expect(rotated.previous_secret_expires_at).not.toBeNull();
    // A receiver that has not switched yet: only the old secret.
    receiver.secrets.push(old);
    await ir21.webhooks.sendTest.mutate({ id: item.id });
    await worker.drain();
    expect(receiver.outcomes.at(-1)).toMatchObject({ status: 200, signatureHeaders: ["x-ir21-signature", "x-ir21-signature-previous"] });
    // One that switched: only the new secret.
    receiver.secrets.splice(0, 1, rotated.secret);
    await ir21.webhooks.sendTest.mutate({ id: item.id });
    await worker.drain();
    expect(receiver.outcomes.at(-1)).toMatchObject({ status: 200 });
    // Old secret revoked on the server: a receiver still holding only the old one refuses.
    await ir21.webhooks.revokePreviousSecret.mutate({ id: item.id });
    receiver.secrets.splice(0, 1, old);
    await ir21.webhooks.sendTest.mutate({ id: item.id });
    await worker.drain();
    expect(receiver.outcomes.at(-1)).toEqual({ status: 400, code: "SIGNATURE_MISMATCH", signatureHeaders: ["x-ir21-signature"] });
  });

  it("a catalogue change: the delivery triggers a catch-up with syncChanges", async () => {
    const { item, secret } = await ir21.webhooks.create.mutate({ url: receiver.url, events: ["ir21.number_range.added"], countries: ["CN"] });
    receiver.secrets.push(secret);
    const key = await createApiKey(server, await signIn(server));
    const data = createClient({ baseUrl: server.url, apiKey: key.key });
    const since = (await data.meta()).data.dataset_version;
    const next = demoDataset();
    next.numberRanges.push({ ...next.numberRanges[0]!, id: "e164-86198", prefix: "86198" });
    const { version } = await importDataset(server.deps, next);
    await fanOutAll(server.deps.webhooks, catalogChangeFeed);
    await worker.drain();
    const delivered = receiver.outcomes.filter((o) => o.status === 200).map((o) => o.event!);
    expect(delivered.map((e) => [e.type, e.dataset_version])).toEqual([["ir21.number_range.added", version]]);
    const applied: string[] = [];
    const result = await syncChanges({ client: data, since, onEvent: (e) => void applied.push(e.id), onReset: () => {} });
    expect(applied).toEqual([delivered[0]!.id]);
    expect(result.version).toBe(version);
    void item;
  });
});
