import { describe, expect, it } from "vitest";
import { compareVersions, syncChanges } from "./changes.ts";
import type { ChangesPage, ChangesQuery, DataClient } from "./data-api/client.ts";
import { Ir21ApiError } from "./errors.ts";
import type { EventPayload, EventType } from "./wire.ts";

const event = (id: string, version: string, type: EventType = "ir21.operator.updated"): EventPayload => ({
  id,
  type,
  occurred_at: "2026-01-01T00:00:00.000Z",
  effective_at: null,
  dataset_version: version,
  previous_version: "none",
  country_iso2: "CN",
  operator_id: "cn.china-mobile",
  data: {},
  test: false,
});

/** A change log served in pages of `pageSize`, recording every query it gets. */
function fakeClient(log: EventPayload[], currentVersion: string, pageSize = 2) {
  const queries: Array<ChangesQuery> = [];
  const client = {
    changes: {
      async list(query: ChangesQuery) {
        queries.push(query);
        const start = query.cursor ? Number(query.cursor) : 0;
        const items = log.filter((e) => compareVersions(e.dataset_version, query.since) > 0).slice(start, start + pageSize);
        const next = start + pageSize < log.filter((e) => compareVersions(e.dataset_version, query.since) > 0).length ? String(start + pageSize) : null;
        const data: ChangesPage = { items, next_cursor: next, current_version: currentVersion };
        return { data, meta: {} as never };
      },
    },
  } as unknown as DataClient;
  return { client, queries };
}

describe("syncChanges", () => {
  it("pages the log in order, applies every event and returns the listing's current version", async () => {
    const log = [event("e1", "2026-01-01.000002"), event("e2", "2026-01-01.000002"), event("e3", "2026-01-02.000003")];
    const { client, queries } = fakeClient(log, "2026-01-02.000003");
    const seen: string[] = [];
    const result = await syncChanges({ client, since: "2026-01-01.000001", onEvent: (e) => void seen.push(e.id), onReset: () => {}, filter: { country: ["CN"] }, pageSize: 2 });
    expect(seen).toEqual(["e1", "e2", "e3"]);
    expect(result).toEqual({ version: "2026-01-02.000003", applied: 3, resets: 0, skipped: 0 });
    expect(queries.map((q) => [q.cursor, q.limit, q.country])).toEqual([
      [undefined, 2, ["CN"]],
      ["2", 2, ["CN"]],
    ]);
    expect(queries.every((q) => q.since === "2026-01-01.000001")).toBe(true);
  });

  it("awaits each handler before the next event", async () => {
    const { client } = fakeClient([event("e1", "2026-01-01.000002"), event("e2", "2026-01-01.000003")], "2026-01-01.000003");
    const order: string[] = [];
    await syncChanges({
      client,
      since: "none",
      onEvent: async (e) => {
        order.push(`start ${e.id}`);
        await new Promise((r) => setTimeout(r, 5));
        order.push(`end ${e.id}`);
      },
      onReset: () => {},
    });
    expect(order).toEqual(["start e1", "end e1", "start e2", "end e2"]);
  });

  it("signals a reset on ir21.catalog.updated and skips what the reloaded snapshot already holds", async () => {
    const log = [
      event("e1", "2026-01-01.000002"),
      event("reset", "2026-01-01.000003", "ir21.catalog.updated"),
      event("e4", "2026-01-01.000004"),
      event("e5", "2026-01-01.000005"),
    ];
    const { client } = fakeClient(log, "2026-01-01.000005");
    const seen: string[] = [];
    const resets: string[] = [];
    const result = await syncChanges({
      client,
      since: "2026-01-01.000001",
      onEvent: (e) => void seen.push(e.id),
      // The snapshot fetched during the reset is already at version 4.
      onReset: (e) => (resets.push(e?.id ?? "since not served"), "2026-01-01.000004"),
    });
    expect(resets).toEqual(["reset"]);
    expect(seen).toEqual(["e1", "e5"]);
    expect(result).toEqual({ version: "2026-01-01.000005", applied: 2, resets: 1, skipped: 1 });
  });

  it("returns the snapshot's version when it is newer than the end of the listing", async () => {
    const { client } = fakeClient([event("reset", "2026-01-01.000002", "ir21.catalog.updated")], "2026-01-01.000002");
    const result = await syncChanges({ client, since: "none", onEvent: () => {}, onReset: () => "2026-01-01.000007" });
    expect(result.version).toBe("2026-01-01.000007");
  });

  it("keeps applying later events when onReset does not say which version it loaded", async () => {
    const { client } = fakeClient([event("reset", "2026-01-01.000002", "ir21.catalog.updated"), event("e3", "2026-01-01.000003")], "2026-01-01.000003");
    const seen: string[] = [];
    const result = await syncChanges({ client, since: "none", onEvent: (e) => void seen.push(e.id), onReset: () => {} });
    expect(seen).toEqual(["e3"]);
    expect(result).toMatchObject({ applied: 1, resets: 1, skipped: 0 });
  });

  it("propagates a handler failure without returning a version (nothing to persist)", async () => {
    const { client } = fakeClient([event("e1", "2026-01-01.000002")], "2026-01-01.000002");
    await expect(syncChanges({ client, since: "none", onEvent: () => Promise.reject(new Error("disk full")), onReset: () => {} })).rejects.toThrow("disk full");
    await expect(syncChanges({ client, since: "", onEvent: () => {}, onReset: () => {} })).rejects.toThrow(TypeError);
  });
});

describe("compareVersions", () => {
  it("a since the server stopped serving mid-listing: one reload, then the listing restarts from the snapshot's version", async () => {
    const log = [event("e1", "2026-01-01.000002"), event("e2", "2026-01-01.000003"), event("e3", "2026-01-02.000004"), event("e4", "2026-01-02.000005")];
    const { client, queries } = fakeClient(log, "2026-01-02.000005");
    const list = client.changes.list;
    const expired = new Ir21ApiError({ status: 400, code: "UNKNOWN_DATASET_VERSION", message: "expired", requestId: "req_1" });
    // The second page of the listing from "none" finds the log before since pruned.
    client.changes.list = (query) => (query.since === "none" && query.cursor ? Promise.reject(expired) : list(query));
    const seen: string[] = [];
    const causes: Array<EventPayload | null> = [];
    const result = await syncChanges({
      client,
      since: "none",
      pageSize: 2,
      onEvent: (e) => void seen.push(e.id),
      onReset: (cause) => {
        causes.push(cause);
        return "2026-01-02.000004";
      },
    });
    expect(causes).toEqual([null]);
    expect(seen).toEqual(["e1", "e2", "e4"]);
    expect(queries.map((q) => [q.since, q.cursor])).toEqual([
      ["none", undefined],
      ["2026-01-02.000004", undefined],
    ]);
    expect(result).toEqual({ version: "2026-01-02.000005", applied: 3, resets: 1, skipped: 0 });
  });

  it("reloads at most once per run, and throws the refusal when onReset names no version", async () => {
    const expired = new Ir21ApiError({ status: 400, code: "UNKNOWN_DATASET_VERSION", message: "expired", requestId: "req_1" });
    let calls = 0;
    const client = { changes: { list: () => (calls++, Promise.reject(expired)) } } as unknown as DataClient;
    await expect(syncChanges({ client, since: "2026-01-01.000001", onEvent: () => {}, onReset: () => "2026-01-01.000002" })).rejects.toBe(expired);
    expect(calls).toBe(2);
    await expect(syncChanges({ client, since: "2026-01-01.000001", onEvent: () => {}, onReset: () => {} })).rejects.toBe(expired);
    // Other failures are not a reason to reload.
    const other = new Ir21ApiError({ status: 401, code: "UNAUTHORIZED", message: "no", requestId: "req_2" });
    const resets: unknown[] = [];
    const failing = { changes: { list: () => Promise.reject(other) } } as unknown as DataClient;
    await expect(syncChanges({ client: failing, since: "none", onEvent: () => {}, onReset: (c) => void resets.push(c) })).rejects.toBe(other);
    expect(resets).toEqual([]);
  });

  it("orders by date, then by sequence number numerically, with none first", () => {
    const versions = ["2026-01-02.000001", "none", "2026-01-01.1000000", "2026-01-01.000002", "2026-01-01.999999"];
    expect([...versions].sort(compareVersions)).toEqual(["none", "2026-01-01.000002", "2026-01-01.999999", "2026-01-01.1000000", "2026-01-02.000001"]);
  });
});
