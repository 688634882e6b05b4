import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EventPayload } from "../../contract/events.ts";
import { startTestServer, type TestServer } from "../../../testing/index.ts";
import { lastChangeSeq, readChangesAfter } from "../changes/changes.ts";
import { OPEN_VERSION } from "../model/entities.ts";
import { eventIdFor, importDataset } from "./import.ts";
import { demoDataset } from "./importers/demo.ts";
import { currentVersion, formatVersion, listVersions } from "../model/versions.ts";

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(() => server.close());

const deps = () => server.deps;

describe("importDataset", () => {
  it("creates the first version with one ir21.catalog.updated (initial import) and fills every table", async () => {
    const result = await importDataset(deps(), demoDataset());
    expect(result).toMatchObject({ created: true, previousVersion: null, events: 1, resetReason: "initial_import" });
    expect(result.version).toBe("2026-11-23.000001");
    expect(result.counts).toEqual({ countries: 3, operators: 4, networks: 4, number_ranges: 7, capabilities: 5, number_ranges_linked: 6 });

    const events = await readChangesAfter(deps().db, 0, 100);
    expect(events).toHaveLength(1);
    const { event } = events[0]!;
    expect(EventPayload.parse(event)).toEqual(event);
    expect(event).toMatchObject({
      type: "ir21.catalog.updated",
      dataset_version: result.version,
      previous_version: "none",
      country_iso2: "",
      operator_id: "",
      occurred_at: server.clock.now().toISOString(),
      test: false,
    });
    expect(event.data).toMatchObject({ reason: "initial_import", snapshot_url: "/v1/snapshot" });

    const meta = await server.json("/healthz");
    expect(meta.body.meta).toMatchObject({ dataset_version: result.version, source_mode: "demo", ingested_at: server.clock.now().toISOString() });
  });

  it("an identical re-import creates no version and no events", async () => {
    const first = await importDataset(deps(), demoDataset());
    server.clock.advance(60_000);
    const again = await importDataset(deps(), demoDataset());
    expect(again).toMatchObject({ created: false, version: first.version, events: 0 });
    expect(await listVersions(deps().db, { limit: 10 })).toHaveLength(1);
    expect(await lastChangeSeq(deps().db)).toBe(1);
  });

  it("diffs hand-made before/after datasets into exactly the expected events", async () => {
    const a = await importDataset(deps(), demoDataset());
    const b = demoDataset();
    // one range added, one removed, one updated (holder relinked), one operator renamed, one network
    // removed (with its capability), one capability changed, one added
    b.numberRanges.push({ ...b.numberRanges[0]!, id: "e164-86199", prefix: "86199" });
    b.numberRanges = b.numberRanges.filter((r) => r.id !== "e164-447700");
    const unlinked = b.numberRanges.find((r) => r.id === "e164-86170")!;
    unlinked.operator_id = "cn.china-unicom";
    b.operators.find((o) => o.id === "gb.ee")!.name = "EE Limited";
    b.networks = b.networks.filter((n) => n.id !== "234-30");
    b.capabilities = b.capabilities.filter((c) => c.network_id !== "234-30");
    b.capabilities.find((c) => c.id === "network:460-01:camel.phases")!.value = ["CAP2", "CAP3", "CAP4"];
    b.capabilities.push({ ...b.capabilities[0]!, id: "network:460-00:nr.sa", name: "nr.sa", value: true });

    server.clock.advance(3_600_000);
    const result = await importDataset(deps(), b);
    expect(result).toMatchObject({ created: true, previousVersion: a.version, resetReason: null, events: 8 });
    expect(result.version).toBe(formatVersion(2, server.clock.now().getTime(), a.version));

    const events = (await readChangesAfter(deps().db, 1, 100)).map((e) => e.event);
    const byType = events.map((e) => `${e.type} ${e.country_iso2} ${e.operator_id}`).sort();
    expect(byType).toEqual(
      [
        "ir21.capability.changed CN cn.china-mobile",
        "ir21.capability.changed CN cn.china-unicom",
        "ir21.capability.changed GB gb.ee",
        "ir21.network.removed GB gb.ee",
        "ir21.number_range.added CN cn.china-mobile",
        "ir21.number_range.removed GB gb.ee",
        "ir21.number_range.updated CN cn.china-unicom",
        "ir21.operator.updated GB gb.ee",
      ].sort(),
    );
    for (const e of events) {
      expect(EventPayload.parse(e)).toEqual(e);
      expect(e).toMatchObject({ dataset_version: result.version, previous_version: a.version, test: false });
    }
    const rangeUpdate = events.find((e) => e.type === "ir21.number_range.updated")!;
    expect(rangeUpdate.data).toMatchObject({
      changed_fields: ["operator_id"],
      before: { id: "e164-86170", operator_id: null, dataset_version: a.version },
      after: { id: "e164-86170", operator_id: "cn.china-unicom", dataset_version: result.version },
    });
    expect(rangeUpdate.id).toBe(eventIdFor(result.version, "ir21.number_range.updated", "e164-86170"));
    const added = events.find((e) => e.type === "ir21.number_range.added")!;
    expect(Object.keys(added.data)).toEqual(["after"]);
    const removed = events.find((e) => e.type === "ir21.network.removed")!;
    expect(removed.data).toEqual({ before: expect.objectContaining({ id: "234-30", dataset_version: a.version }) });
    const camel = events.find((e) => e.type === "ir21.capability.changed" && e.operator_id === "cn.china-unicom")!;
    expect(camel.data).toMatchObject({ change: "updated", changed_fields: ["value"], before: { value: ["CAP2", "CAP3"] }, after: { value: ["CAP2", "CAP3", "CAP4"] } });

    // The change log's sequence is strictly increasing and continues the previous version's.
    const seqs = (await readChangesAfter(deps().db, 0, 100)).map((e) => e.seq);
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);

    // History is kept: the old incarnation is closed at the new version, the new one is open.
    const rows = await deps().db.selectFrom("catalog_number_ranges").selectAll().where("id", "=", "e164-86170").orderBy("valid_from").execute();
    expect(rows.map((r) => [Number(r.valid_from), Number(r.valid_to), r.operator_id])).toEqual([
      [1, 2, null],
      [2, OPEN_VERSION, "cn.china-unicom"],
    ]);
  });

  it("reads one-shot generators and re-iterable sources alike", async () => {
    await importDataset(deps(), demoDataset());
    const b = demoDataset();
    const extra = { ...b.numberRanges[0]!, id: "e164-86198", prefix: "86198" };
    const oneShot = (function* () {
      yield* b.numberRanges;
      yield extra;
    })();
    const result = await importDataset(deps(), { ...b, numberRanges: oneShot });
    expect(result).toMatchObject({ created: true, events: 1, changes: { number_ranges: { added: 1, updated: 0, removed: 0 } } });
    const c = demoDataset();
    const reiterable = { [Symbol.iterator]: () => [...c.numberRanges, { ...extra, range_holder: "Renamed" }][Symbol.iterator]() };
    const second = await importDataset(deps(), { ...c, numberRanges: reiterable });
    expect(second).toMatchObject({ created: true, events: 1, changes: { number_ranges: { added: 0, updated: 1, removed: 0 } } });
    const [logged] = await readChangesAfter(deps().db, 2, 10);
    expect(logged!.event.data).toMatchObject({ changed_fields: ["range_holder"], after: { range_holder: "Renamed" } });
  });

  it("announces a change of source mode as ir21.catalog.updated only", async () => {
    await importDataset(deps(), demoDataset());
    const b = demoDataset();
    b.sourceMode = "ir21";
    b.numberRanges.pop();
    const result = await importDataset(deps(), b);
    expect(result).toMatchObject({ created: true, events: 1, resetReason: "source_mode_changed" });
    const [logged] = await readChangesAfter(deps().db, 1, 10);
    expect(logged!.event).toMatchObject({ type: "ir21.catalog.updated", data: { reason: "source_mode_changed", changes: { number_ranges: { removed: 1 } } } });
    expect((await currentVersion(deps().db))!.sourceMode).toBe("ir21");
  });

  it("rejects an invalid candidate before writing anything", async () => {
    await importDataset(deps(), demoDataset());
    const bad = demoDataset();
    bad.numberRanges.push({ ...bad.numberRanges[0]!, kind: "satellite" as never });
    bad.numberRanges.push({ ...bad.numberRanges[1]! });
    await expect(importDataset(deps(), bad)).rejects.toMatchObject({ code: "INVALID_DATASET", message: expect.stringMatching(/number_ranges e164-86138: kind/) });
    const dup = demoDataset();
    dup.numberRanges.push({ ...dup.numberRanges[1]! });
    await expect(importDataset(deps(), dup)).rejects.toMatchObject({ code: "INVALID_DATASET", message: expect.stringMatching(/appears twice/) });
    expect(await listVersions(deps().db, { limit: 10 })).toHaveLength(1);
  });

  it("serialises concurrent imports: versions and change-log sequence follow commit order", async () => {
    await importDataset(deps(), demoDataset());
    const variants = [1, 2, 3].map((n) => {
      const d = demoDataset();
      d.numberRanges.push({ ...d.numberRanges[0]!, id: `e164-8619${n}`, prefix: `8619${n}` });
      return d;
    });
    const results = await Promise.all(variants.map((d) => importDataset(deps(), d)));
    const versions = await listVersions(deps().db, { limit: 10 });
    expect(versions.map((v) => v.seq)).toEqual([4, 3, 2, 1]);
    expect(results.filter((r) => r.created)).toHaveLength(3);
    const log = await readChangesAfter(deps().db, 0, 100);
    const versionOrder = log.map((l) => l.event.dataset_version);
    expect([...versionOrder].sort()).toEqual(versionOrder);
  });
});
