import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { H3, toNodeHandler } from "h3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventPayload } from "@ir21/server";
import {
  createEventDeduplicator,
  isWebhookVerificationError,
  verifyExpressRequest,
  verifyH3Event,
  verifyNodeRequest,
  verifyWebhook,
  type EventPayload as SdkEventPayload,
} from "@ir21/sdk/webhooks";
import { deliveryHeaders, generateSecret } from "../../server/src/webhooks/delivery/signing.ts";

/**
 * Round trip: deliveries signed by the server's own signer (server/src/webhooks/delivery/signing.ts) and POSTed
 * over real HTTP to receivers written as the SDK README shows, on node:http, h3 v2 and Express.
 */

const secret = generateSecret();
const previousSecret = generateSecret();

function eventOf(id: string): SdkEventPayload {
  return EventPayload.parse({
    id,
    type: "ir21.operator.updated",
    occurred_at: "2026-01-01T00:00:00.000Z",
    effective_at: null,
    dataset_version: "2026.01.02-1",
    previous_version: "2026.01.01-1",
    country_iso2: "ES",
    operator_id: "op_es_21407",
    data: { before: { name: "Telefónica" }, after: { name: "Telefónica Móviles España 西班牙电信" }, changed_fields: ["name"] },
    test: false,
  });
}

interface Received {
  status: number;
  text: string;
}
type Receiver = { url: string; processed: SdkEventPayload[]; close(): Promise<void> };

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/ir21`;
}
const closeServer = (server: Server) => () => new Promise<void>((resolve) => server.close(() => resolve()));

async function nodeReceiver(secrets: string[]): Promise<Receiver> {
  const processed: SdkEventPayload[] = [];
  const dedupe = createEventDeduplicator();
  const server = createServer(async (req, res) => {
    try {
      const event = await verifyNodeRequest(req, { secrets });
      const outcome = await dedupe.run(event, () => processed.push(event));
      res.writeHead(200).end(outcome.duplicate ? "duplicate" : "processed");
    } catch (error) {
      if (!isWebhookVerificationError(error)) throw error;
      res.writeHead(400).end(error.code);
    }
  });
  return { url: await listen(server), processed, close: closeServer(server) };
}

async function h3Receiver(secrets: string[]): Promise<Receiver> {
  const processed: SdkEventPayload[] = [];
  const dedupe = createEventDeduplicator();
  const app = new H3().post("/ir21", async (event) => {
    try {
      const delivery = await verifyH3Event(event, { secrets });
      const outcome = await dedupe.run(delivery, () => processed.push(delivery));
      return outcome.duplicate ? "duplicate" : "processed";
    } catch (error) {
      if (!isWebhookVerificationError(error)) throw error;
      return new Response(error.code, { status: 400 });
    }
  });
  const server = createServer(toNodeHandler(app));
  return { url: await listen(server), processed, close: closeServer(server) };
}

async function expressReceiver(secrets: string[]): Promise<Receiver> {
  const processed: SdkEventPayload[] = [];
  const dedupe = createEventDeduplicator();
  const app = express();
  app.post("/ir21", express.raw({ type: "application/json" }), async (req, res) => {
    try {
      const event = await verifyExpressRequest(req, { secrets });
      const outcome = await dedupe.run(event, () => processed.push(event));
      res.status(200).send(outcome.duplicate ? "duplicate" : "processed");
    } catch (error) {
      if (!isWebhookVerificationError(error)) throw error;
      res.status(400).send(error.code);
    }
  });
  const server = createServer(app);
  return { url: await listen(server), processed, close: closeServer(server) };
}

/** What the delivery worker sends: the signer's headers over the exact body bytes. */
async function deliver(url: string, event: SdkEventPayload, options: { secret?: string; previousSecret?: string | null; timestamp?: number; body?: string } = {}): Promise<Received> {
  const rawBody = options.body ?? JSON.stringify(event);
  const headers = deliveryHeaders({
    eventId: event.id,
    timestampSeconds: options.timestamp ?? Math.floor(Date.now() / 1000),
    rawBody,
    secret: options.secret ?? secret,
    previousSecret: options.previousSecret ?? null,
  });
  const response = await fetch(url, { method: "POST", headers: { ...headers, "content-type": "application/json", "user-agent": "ir21-webhooks/1" }, body: rawBody });
  return { status: response.status, text: await response.text() };
}

const receivers = { "node:http": nodeReceiver, "h3 v2": h3Receiver, express: expressReceiver };

describe.each(Object.entries(receivers))("a %s receiver verifies the server signer's deliveries", (_name, start) => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await start([secret]);
  });
  afterAll(() => receiver.close());

  it("accepts a delivery, returns the typed event, and deduplicates a redelivery of the same event id", async () => {
    const event = eventOf("evt_roundtrip_1");
    expect(await deliver(receiver.url, event)).toEqual({ status: 200, text: "processed" });
    expect(await deliver(receiver.url, event)).toEqual({ status: 200, text: "duplicate" });
    expect(receiver.processed).toEqual([event]);
  });

  it("accepts a delivery during rotation whichever header its secret signs", async () => {
    // Receiver holds the old secret only: the server signs X-IR21-Signature-Previous with it.
    expect(await deliver(receiver.url, eventOf("evt_rotation_old"), { secret: generateSecret(), previousSecret: secret })).toEqual({ status: 200, text: "processed" });
    expect(await deliver(receiver.url, eventOf("evt_rotation_new"), { secret, previousSecret: previousSecret })).toEqual({ status: 200, text: "processed" });
  });

  it("refuses a re-serialised body, a stale timestamp and a foreign secret", async () => {
    const event = eventOf("evt_refused");
    const pretty = JSON.stringify(event, null, 2);
    const signedCompact = deliveryHeaders({ eventId: event.id, timestampSeconds: Math.floor(Date.now() / 1000), rawBody: JSON.stringify(event), secret, previousSecret: null });
    const reserialised = await fetch(receiver.url, { method: "POST", headers: { ...signedCompact, "content-type": "application/json" }, body: pretty });
    expect([reserialised.status, await reserialised.text()]).toEqual([400, "SIGNATURE_MISMATCH"]);
    expect(await deliver(receiver.url, event, { timestamp: Math.floor(Date.now() / 1000) - 301 })).toEqual({ status: 400, text: "TIMESTAMP_OUT_OF_TOLERANCE" });
    expect(await deliver(receiver.url, event, { secret: generateSecret() })).toEqual({ status: 400, text: "SIGNATURE_MISMATCH" });
    expect(receiver.processed.map((e) => e.id)).not.toContain("evt_refused");
  });
});

describe("verifyWebhook on the signer's output directly", () => {
  it("round-trips the signer's headers for a body with non-ASCII text at a fixed clock", async () => {
    const event = eventOf("evt_direct");
    const rawBody = JSON.stringify(event);
    const headers = deliveryHeaders({ eventId: event.id, timestampSeconds: 1767225600, rawBody, secret, previousSecret });
    const verified = await verifyWebhook({ rawBody, headers, secrets: [previousSecret], now: new Date(1767225600_000) });
    expect(verified).toEqual(event);
  });
});
