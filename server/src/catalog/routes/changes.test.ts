import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventPayload } from "../../contract/events.ts";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../../testing/index.ts";
import { importDataset } from "../import/import.ts";
import { demoDataset } from "../import/importers/demo.ts";

let server: TestServer;
let key: { "x-api-key": string };
const versions: string[] = [];
beforeAll(async () => {
  server = await startTestServer();
  key = (await createApiKey(server, await signIn(server))).headers;
  // v1: initial (catalog.updated); v2: three per-record changes in CN and GB; v3: one CN change;
  // v4: source mode change (catalog.updated only).
  versions.push((await importDataset(server.deps, demoDataset())).version);
  server.clock.advance(60_000);
  const v2 = demoDataset();
  v2.numberRanges.push({ ...v2.numberRanges[0]!, id: "e164-86199", prefix: "86199" });
  v2.operators.find((o) => o.id === "gb.ee")!.brand = "EE (BT)";
  v2.capabilities.find((c) => c.id === "network:460-11:nr.nsa")!.value = false;
  versions.push((await importDataset(server.deps, v2)).version);
  server.clock.advance(60_000);
  const v3 = demoDataset();
  v3.numberRanges.push({ ...v3.numberRanges[0]!, id: "e164-86199", prefix: "86199" });
  v3.operators.find((o) => o.id === "gb.ee")!.brand = "EE (BT)";
  v3.capabilities.find((c) => c.id === "network:460-11:nr.nsa")!.value = false;
  v3.networks.find((n) => n.id === "460-01")!.technologies = ["LTE", "NR"];
  versions.push((await importDataset(server.deps, v3)).version);
  server.clock.advance(60_000);
  const v4 = demoDataset();
  v4.sourceMode = "ir21";
  versions.push((await importDataset(server.deps, v4)).version);
});
afterAll(() => server.close());

const changes = (query: string) => server.json(`/v1/changes?${query}`, { headers: key });

describe("GET /v1/changes", () => {
  it("lists every event after a version, in order, with the current version", async () => {
    const res = await changes(`since=${versions[0]}`);
    expect(res.status).toBe(200);
    const { items, next_cursor, current_version } = res.body.data;
    expect(current_version).toBe(versions[3]);
    expect(next_cursor).toBeNull();
    expect(items.map((e: EventPayload) => [e.dataset_version, e.type])).toEqual([
      [versions[1], "ir21.operator.updated"],
      [versions[1], "ir21.number_range.added"],
      [versions[1], "ir21.capability.changed"],
      [versions[2], "ir21.network.updated"],
      [versions[3], "ir21.catalog.updated"],
    ]);
    for (const e of items) expect(EventPayload.parse(e)).toEqual(e);
    expect(items[3]).toMatchObject({ previous_version: versions[1], country_iso2: "CN", operator_id: "cn.china-unicom", data: { changed_fields: ["technologies"] } });
    expect(items[4]).toMatchObject({ country_iso2: "", operator_id: "", data: { reason: "source_mode_changed", snapshot_url: "/v1/snapshot" } });
  });

  it('since=none starts at the beginning; the latest version gives an empty page', async () => {
    const all = await changes("since=none");
    expect(all.body.data.items[0]).toMatchObject({ type: "ir21.catalog.updated", dataset_version: versions[0], previous_version: "none" });
    expect(all.body.data.items).toHaveLength(6);
    const none = await changes(`since=${versions[3]}`);
    expect(none.body.data).toEqual({ items: [], next_cursor: null, current_version: versions[3] });
  });

  it("pages with next_cursor without losing or repeating an event", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await changes(`since=none&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.items.map((e: EventPayload) => e.id));
      cursor = res.body.data.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    const all = await changes("since=none&limit=100");
    expect(seen).toEqual(all.body.data.items.map((e: EventPayload) => e.id));
  });

  it("filters by type, country and operator, but never hides ir21.catalog.updated", async () => {
    const gb = await changes(`since=${versions[0]}&country=GB`);
    expect(gb.body.data.items.map((e: EventPayload) => e.type)).toEqual(["ir21.operator.updated", "ir21.catalog.updated"]);
    const ranges = await changes(`since=none&types=ir21.number_range.added,ir21.network.updated`);
    expect(ranges.body.data.items.map((e: EventPayload) => e.type)).toEqual([
      "ir21.catalog.updated",
      "ir21.number_range.added",
      "ir21.network.updated",
      "ir21.catalog.updated",
    ]);
    const op = await changes(`since=${versions[0]}&operator=cn.china-telecom&types=ir21.capability.changed`);
    expect(op.body.data.items.map((e: EventPayload) => `${e.type}:${e.operator_id}`)).toEqual(["ir21.capability.changed:cn.china-telecom", "ir21.catalog.updated:"]);
    const repeated = await server.json(`/v1/changes?since=${versions[0]}&country=GB&country=CN&types=ir21.operator.updated`, { headers: key });
    expect(repeated.body.data.items.map((e: EventPayload) => e.type)).toEqual(["ir21.operator.updated", "ir21.catalog.updated"]);
  });

  it.each([
    ["since=2020-01-01.000042", "UNKNOWN_DATASET_VERSION"],
    ["since=yesterday", "INVALID_REQUEST"],
    ["", "INVALID_REQUEST"],
    ["since=none&types=ir21.nothing", "INVALID_REQUEST"],
    ["since=none&limit=1001", "INVALID_REQUEST"],
    ["since=none&cursor=abc", "INVALID_REQUEST"],
  ])("%s -> 400 %s", async (query, code) => {
    const res = await changes(query);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
  });

  it("a cursor stays with its `since` and its snapshot of versions", async () => {
    const first = await changes("since=none&limit=1");
    const other = await changes(`since=${versions[1]}&cursor=${first.body.data.next_cursor}`);
    expect(other.status).toBe(400);
    // A version imported after the first page is not mixed into the listing.
    const v5 = demoDataset();
    v5.sourceMode = "ir21";
    v5.numberRanges.pop();
    await importDataset(server.deps, v5);
    server.deps.datasetMeta.invalidate();
    let cursor = first.body.data.next_cursor;
    const rest: EventPayload[] = [];
    while (cursor) {
      const page = await changes(`since=none&limit=2&cursor=${cursor}`);
      rest.push(...page.body.data.items);
      expect(page.body.data.current_version).toBe(versions[3]);
      cursor = page.body.data.next_cursor;
    }
    expect(rest).toHaveLength(5);
    const fresh = await changes(`since=${versions[3]}`);
    expect(fresh.body.data.items).toEqual([expect.objectContaining({ type: "ir21.number_range.removed" })]);
  });

  it('an event about a record without an operator says operator_id "" while the record keeps null; an operator filter skips it', async () => {
    const latest = (await changes(`since=${versions[3]}`)).body.data.current_version as string;
    const v6 = demoDataset();
    v6.sourceMode = "ir21";
    v6.numberRanges.pop();
    v6.numberRanges = v6.numberRanges.filter((r) => r.id !== "e164-86170");
    await importDataset(server.deps, v6);
    server.deps.datasetMeta.invalidate();
    const res = await changes(`since=${latest}`);
    expect(res.body.data.items).toEqual([
      expect.objectContaining({
        type: "ir21.number_range.removed",
        previous_version: latest,
        country_iso2: "CN",
        operator_id: "",
        data: { before: expect.objectContaining({ id: "e164-86170", operator_id: null }) },
      }),
    ]);
    expect((await changes(`since=${latest}&operator=cn.china-unicom`)).body.data.items).toEqual([]);
  });
});
