import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readChangesAfter } from "../../catalog/changes/changes.ts";
import { importDataset } from "../../catalog/import/import.ts";
import { demoDataset } from "../../catalog/import/importers/demo.ts";
import { EventPayload } from "../../contract/events.ts";
import { signIn, startTestReceiver, startTestServer, type TestReceiver, type TestServer } from "../../../testing/index.ts";
import { catalogChangeFeed } from "../../catalog/changes/feed.ts";
import { fanOutAll } from "./fanout.ts";
import { ir21Headers, signatureMatches } from "../../../testing/webhooks.ts";
import { DeliveryWorker } from "../delivery/worker.ts";

let server: TestServer;
let receiver: TestReceiver;
beforeAll(async () => {
  server = await startTestServer({ dataset: "demo", env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  receiver = await startTestReceiver();
});
afterAll(async () => {
  await receiver.close();
  await server.close();
});

describe("catalogue import -> fan-out -> signed delivery", () => {
  it("delivers every change of an import to the matching subscriptions, with the change log's payload and id", async () => {
    const env = server.deps.webhooks;
    // Production runs fan-out every few seconds, so the initial import is behind the cursor before anyone subscribes.
    await fanOutAll(env, catalogChangeFeed);
    const user = await signIn(server);
    const subscribe = async (body: Record<string, unknown>) => {
      const { status, body: answer } = await server.json("/console/webhooks", { method: "POST", headers: user.headers, body: { url: `${receiver.url}/hook`, ...body } });
      expect(status).toBe(200);
      return answer.data as { item: { id: string }; secret: string };
    };
    const everything = await subscribe({ events: ["ir21.number_range.added", "ir21.number_range.removed", "ir21.number_range.updated", "ir21.operator.added", "ir21.operator.removed", "ir21.operator.updated", "ir21.network.added", "ir21.network.removed", "ir21.network.updated", "ir21.capability.changed", "ir21.catalog.updated"] });
    const ukOnly = await subscribe({ events: ["ir21.number_range.removed", "ir21.number_range.added"], countries: ["GB"] });

    const before = (await readChangesAfter(server.deps.db, 0, 10_000)).length;
    const next = demoDataset();
    next.numberRanges.push({ ...next.numberRanges[0]!, id: "e164-86199", prefix: "86199" });
    next.numberRanges = next.numberRanges.filter((r) => r.id !== "e164-447700");
    server.clock.advance(60_000);
    const result = await importDataset(server.deps, next);
    expect(result.created).toBe(true);
    const changes = (await readChangesAfter(server.deps.db, 0, 10_000)).slice(before);
    expect(changes.length).toBeGreaterThanOrEqual(2);

    const fanned = await fanOutAll(env, catalogChangeFeed);
    expect(fanned.events).toBe(changes.length);
    await new DeliveryWorker(env).drain();

    const received = receiver.requests.map((r) => ({ ...ir21Headers(r.headers), body: r.body }));
    const forEverything = received.filter((r) => signatureMatches(r.signature, r.timestamp, r.body, everything.secret));
    expect(forEverything.map((r) => r.eventId).sort()).toEqual(changes.map((c) => c.event.id).sort());
    for (const r of forEverything) {
      const event = EventPayload.parse(JSON.parse(r.body));
      expect(event.id).toBe(r.eventId);
      expect(event).toEqual(changes.find((c) => c.event.id === r.eventId)!.event);
      expect(event.test).toBe(false);
    }
    const forUk = received.filter((r) => signatureMatches(r.signature, r.timestamp, r.body, ukOnly.secret));
    const ukChanges = changes.filter((c) => c.event.country_iso2 === "GB" && c.event.type.startsWith("ir21.number_range."));
    expect(ukChanges.length).toBeGreaterThan(0);
    expect(ukChanges.length).toBeLessThan(changes.length);
    expect(forUk.map((r) => r.eventId).sort()).toEqual(ukChanges.map((c) => c.event.id).sort());
    expect(received).toHaveLength(forEverything.length + forUk.length);

    // Running fan-out again delivers nothing twice.
    expect(await fanOutAll(env, catalogChangeFeed)).toEqual({ events: 0, deliveries: 0 });
  });
});
