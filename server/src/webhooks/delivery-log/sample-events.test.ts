import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Capability, Network, NumberRange, Operator } from "../../contract/catalog.ts";
import { EVENT_TYPES, EventPayload, type EventType } from "../../contract/events.ts";
import { demoDataset, importDataset, readChangesAfter, startTestServer, type TestServer } from "../../../testing/index.ts";
import { sampleEvent } from "./sample-events.ts";

/**
 * Test events are only useful if a receiver's parsing code sees what it will see in production: each
 * sample is compared with a real event of its type, written by a real import (not with itself).
 */
let server: TestServer;
const real = new Map<EventType, EventPayload>();

beforeAll(async () => {
  server = await startTestServer({ dataset: "demo" });
  // Version B of the demo dataset: one change of every kind the import announces.
  const b = demoDataset();
  b.operators[0] = { ...b.operators[0]!, brand: "CMCC" };
  b.operators.push({ id: "cn.demo-mvno", country_iso2: "CN", name: "Demo MVNO", name_local: null, brand: null, tadig: null, status: "active", successor_id: null, lineage: null, listed: true, territories: ["CN"], register_ids: [], source: "demo" });
  b.networks[0] = { ...b.networks[0]!, technologies: ["LTE", "NR"] };
  b.networks.push({ ...b.networks[1]!, id: "460-09", mnc: "09", name: "China Unicom 09" });
  b.networks.splice(b.networks.findIndex((n) => n.id === "460-11"), 1);
  b.numberRanges[0] = { ...b.numberRanges[0]!, range_holder: "China Mobile Communications" };
  b.numberRanges.push({ ...b.numberRanges[1]!, id: "e164-86199", prefix: "86199" });
  b.numberRanges.splice(b.numberRanges.findIndex((r) => r.id === "e164-86170"), 1);
  b.capabilities[0] = { ...b.capabilities[0]!, value: false };
  await importDataset(server.deps, b);
  // Version C: the operator added in B (nothing refers to it) removed again.
  const c = structuredClone(b);
  c.operators = c.operators.filter((o) => o.id !== "cn.demo-mvno");
  await importDataset(server.deps, c);
  for (const { event } of await readChangesAfter(server.deps.db, 0, 1_000)) if (!real.has(event.type)) real.set(event.type, event);
}, 60_000);
afterAll(() => server.close());

const RECORD: Record<string, { parse(value: unknown): unknown }> = { operator: Operator, network: Network, number_range: NumberRange, capability: Capability };

describe("sampleEvent", () => {
  it.each(EVENT_TYPES)("%s: a valid payload, test: true, with the data keys of a real event of the type", async (type) => {
    const sample = await sampleEvent(server.deps.db, type, {}, server.clock.now().getTime());
    EventPayload.parse(sample);
    expect(sample).toMatchObject({ type, test: true, id: expect.stringMatching(/^evt_/) });
    const actual = real.get(type);
    expect(actual, `the import wrote a ${type}`).toBeDefined();
    expect(Object.keys(sample.data).sort()).toEqual(Object.keys(actual!.data).sort());
    const record = RECORD[type.split(".")[1]!];
    for (const side of ["before", "after"] as const) {
      const value = sample.data[side];
      if (record && value !== undefined && value !== null) record.parse(value);
    }
    if (Array.isArray(sample.data.changed_fields) && sample.data.before && sample.data.after) {
      const before = sample.data.before as Record<string, unknown>;
      const after = sample.data.after as Record<string, unknown>;
      for (const field of sample.data.changed_fields as string[]) expect(before[field], field).not.toEqual(after[field]);
    }
    if (type === "ir21.catalog.updated") expect(sample.data).toMatchObject({ reason: "manual_reset", snapshot_url: "/v1/snapshot" });
    else expect(sample.country_iso2).toMatch(/^[A-Z]{2}$/);
  });

  it("stays within the target's filters when the catalogue has a matching record", async () => {
    const gb = await sampleEvent(server.deps.db, "ir21.network.updated", { country: "GB" }, server.clock.now().getTime());
    expect(gb).toMatchObject({ country_iso2: "GB", data: { after: { country_iso2: "GB" } } });
    const unicom = await sampleEvent(server.deps.db, "ir21.number_range.removed", { operator: "cn.china-unicom" }, server.clock.now().getTime());
    expect(unicom).toMatchObject({ operator_id: "cn.china-unicom", data: { before: { operator_id: "cn.china-unicom" } } });
  });
});
