import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import {
  createClient,
  EXPORT_RESOURCES,
  Ir21ApiError,
  isIr21ApiError,
  memoryCookieJar,
  syncChanges,
  type DataClient,
  type EventPayload,
  type NumberLookup,
  type PublicNumberLookup,
} from "@ir21/sdk";
import { EventPayload as EventPayloadSchema } from "@ir21/server";
import { createApiKey, demoDataset, importDataset, signIn, startTestServer, type TestServer } from "@ir21/server/testing";

/**
 * The data client against a live server holding three catalogue versions (demo data):
 * v1 the initial import (ir21.catalog.updated), v2 three per-record changes, v3 a source-mode change
 * (ir21.catalog.updated again).
 */
let server: TestServer;
let apiKey: string;
let sessionCookie: string;
const versions: string[] = [];

beforeAll(async () => {
  server = await startTestServer({ env: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: "10000" } });
  const owner = await signIn(server);
  sessionCookie = owner.cookie;
  apiKey = (await createApiKey(server, owner)).key;
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
  v3.sourceMode = "ir21";
  versions.push((await importDataset(server.deps, v3)).version);
});
afterAll(() => server.close());

const full = () => createClient({ baseUrl: server.url, apiKey });
const anonymous = () => createClient({ baseUrl: server.url });

describe("data client types follow the credentials", () => {
  it("a string API key or a session gives the full projection, anything else the public one", () => {
    expectTypeOf(full()).toEqualTypeOf<DataClient<"full">>();
    expectTypeOf(createClient({ baseUrl: "http://x", cookies: memoryCookieJar() })).toEqualTypeOf<DataClient<"full">>();
    expectTypeOf(anonymous()).toEqualTypeOf<DataClient<"public">>();
    expectTypeOf(createClient({ baseUrl: "http://x", apiKey: process.env.UNSET_KEY })).toEqualTypeOf<DataClient<"public">>();
    expectTypeOf<Awaited<ReturnType<DataClient<"full">["lookup"]>>["data"]>().toEqualTypeOf<NumberLookup>();
    expectTypeOf<Awaited<ReturnType<DataClient<"public">["lookup"]>>["data"]>().toEqualTypeOf<PublicNumberLookup>();
  });
});

describe("data client against a live server: every endpoint", () => {
  it("meta: the current version with counts, sources and licences", async () => {
    const { data, meta } = await full().meta();
    expect(data.dataset_version).toBe(versions[2]);
    expect(data.previous_version).toBe(versions[1]);
    expect(data.source_mode).toBe("ir21");
    expect(data.counts).toMatchObject({ countries: 3, operators: 4, networks: 4, capabilities: 5 });
    expect(data.sources.map((s) => s.id)).toEqual(["demo"]);
    expect(meta).toMatchObject({ dataset_version: versions[2], source_mode: "ir21", request_id: expect.any(String) });
  });

  it("countries: list and get (any case)", async () => {
    const ir21 = full();
    expect((await ir21.countries.list()).data.items.map((c) => c.iso2)).toEqual(["CN", "GB", "US"]);
    expect((await ir21.countries.get("cn")).data).toMatchObject({ iso2: "CN", name_zh: "中国", calling_codes: ["86"] });
  });

  it("operators: list with filters, get with networks and capabilities, iterate across pages", async () => {
    const ir21 = full();
    const page = await ir21.operators.list({ country: "CN", limit: 2 });
    expect(page.data.items.map((o) => o.id)).toEqual(["cn.china-mobile", "cn.china-telecom"]);
    expect(page.data.next_cursor).toEqual(expect.any(String));
    const rest = await ir21.operators.list({ country: "CN", limit: 2, cursor: page.data.next_cursor! });
    expect(rest.data).toEqual({ items: [expect.objectContaining({ id: "cn.china-unicom" })], next_cursor: null });
    expect((await ir21.operators.list({ q: "unicom" })).data.items.map((o) => o.id)).toEqual(["cn.china-unicom"]);
    const ids: string[] = [];
    for await (const operator of ir21.operators.iterate({ limit: 1 })) ids.push(operator.id);
    expect(ids).toEqual(["cn.china-mobile", "cn.china-telecom", "cn.china-unicom", "gb.ee"]);
    const detail = (await ir21.operators.get("cn.china-mobile")).data;
    expect(detail.networks.map((n) => n.id)).toEqual(["460-00"]);
    expect(detail.capabilities.map((c) => c.name).sort()).toEqual(["lte.roaming", "volte.s8hr"]);
    expect(detail.number_range_counts).toMatchObject({ total: 3, e164: 3, e212: 0, mobile: 3 });
  });

  it("networks: list, get, iterate", async () => {
    const ir21 = full();
    expect((await ir21.networks.list({ mcc: "460" })).data.items.map((n) => n.id)).toEqual(["460-00", "460-01", "460-11"]);
    expect((await ir21.networks.get("234-30")).data).toMatchObject({ operator_id: "gb.ee", technologies: ["GSM", "UMTS", "LTE", "NR"] });
    const all: string[] = [];
    for await (const n of ir21.networks.iterate({ limit: 3 })) all.push(n.id);
    expect(all).toEqual(["234-30", "460-00", "460-01", "460-11"]);
  });

  it("number ranges: list by prefix and plan, get, iterate", async () => {
    const ir21 = full();
    expect((await ir21.numberRanges.list({ prefix: "8613" })).data.items.map((r) => r.id)).toEqual(["e164-86130", "e164-86133", "e164-86138", "e164-86139"]);
    expect((await ir21.numberRanges.list({ plan: "e212" })).data.items).toEqual([expect.objectContaining({ start: "460110000000000", network_id: "460-11" })]);
    expect((await ir21.numberRanges.get("e164-86199")).data).toMatchObject({ range_holder: "China Mobile", operator_id: "cn.china-mobile" });
    let count = 0;
    for await (const _range of ir21.numberRanges.iterate({ limit: 2 })) count++;
    expect(count).toBe(8);
  });

  it("capabilities: list with filters, iterate", async () => {
    const ir21 = full();
    expect((await ir21.capabilities.list({ name: "nr.nsa" })).data.items).toEqual([expect.objectContaining({ network_id: "460-11", value: false })]);
    const names: string[] = [];
    for await (const c of ir21.capabilities.iterate({ country: "CN", limit: 2 })) names.push(c.name);
    expect(names.sort()).toEqual(["camel.phases", "lte.roaming", "nr.nsa", "volte.s8hr"]);
  });

  it("lookup: E.164, national with a country, IMSI, and a batch with an unparsable number", async () => {
    const ir21 = full();
    const e164 = (await ir21.lookup("+8613912345678")).data;
    expect(e164).toMatchObject({ number: "+8613912345678", country_iso2: "CN", range_holder: "China Mobile", operator: { id: "cn.china-mobile" }, match: { prefix: "86139" } });
    expect((await ir21.lookup("13012345678", { country: "cn" })).data.operator?.id).toBe("cn.china-unicom");
    expect((await ir21.lookupImsi("460110123456789")).data).toMatchObject({ mcc: "460", mnc: "11", network: { id: "460-11" } });
    const batch = (await ir21.lookupBatch(["+8613812345678", "not a number"])).data.items;
    expect(batch[0]).toMatchObject({ number: "+8613812345678", range_holder: "China Mobile" });
    expect(batch[1]).toEqual({ number: "not a number", error: { code: "INVALID_REQUEST", message: expect.any(String) } });
    const invalid = await ir21.lookup("12").catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, code: "INVALID_REQUEST" });
  });

  it("changes: one page, and every event across pages, typed as EventPayload", async () => {
    const ir21 = full();
    const page = await ir21.changes.list({ since: versions[0]!, types: ["ir21.number_range.added"] });
    expect(page.data.current_version).toBe(versions[2]);
    // The filter narrows per-record events; ir21.catalog.updated always comes through.
    expect(page.data.items.map((e) => e.type)).toEqual(["ir21.number_range.added", "ir21.catalog.updated"]);
    const all: EventPayload[] = [];
    for await (const event of ir21.changes.iterate({ since: "none", limit: 1 })) all.push(event);
    expect(all.map((e) => e.dataset_version)).toEqual([versions[0], versions[1], versions[1], versions[1], versions[2]]);
    for (const event of all) expect(EventPayloadSchema.parse(event)).toEqual(event);
    await expect(ir21.changes.list({ since: "2020-01-01.000001" })).rejects.toMatchObject({ status: 400, code: "UNKNOWN_DATASET_VERSION" });
  });

  it("CSV export: streamed with progress, named by version, 304 with its ETag", async () => {
    const ir21 = full();
    expect(EXPORT_RESOURCES).toEqual(["countries", "operators", "networks", "number-ranges", "capabilities"]);
    const progress: number[] = [];
    const download = await ir21.exportCsv("number-ranges", { onProgress: ({ bytes }) => progress.push(bytes) });
    if (download.notModified) throw new Error("expected the file");
    expect(download.filename).toBe(`ir21-number-ranges-${versions[2]}.csv`);
    expect(download.etag).toBe(`"${versions[2]}-number-ranges"`);
    expect(download.contentType).toMatch(/^text\/csv/);
    const text = await new Response(download.body).text();
    const lines = text.trimEnd().split("\r\n");
    expect(lines[0]).toBe("id,plan,kind,country_iso2,prefix,start,end,mcc,mnc,operator_id,network_id,range_holder,range_holder_local,source,dataset_version,source_date,status,range_holder_id,source_license,source_attribution");
    expect(lines).toHaveLength(9);
    expect(progress.at(-1)).toBe(new TextEncoder().encode(text).byteLength);
    const again = await ir21.exportCsv("number-ranges", { ifNoneMatch: download.etag! });
    expect(again).toMatchObject({ notModified: true, body: null, etag: download.etag });
    await expect(ir21.exportCsv("users" as never)).rejects.toThrow(TypeError);
  });

  it("snapshot: parsed (every key of the Snapshot type), as a stream, and 304 by ETag", async () => {
    const ir21 = full();
    const snapshot = await ir21.snapshot();
    if (snapshot.notModified) throw new Error("expected the snapshot");
    expect(snapshot.etag).toBe(`"${versions[2]}"`);
    expect(Object.keys(snapshot.data).sort()).toEqual(
      [
        "dataset_version",
        "previous_version",
        "source_mode",
        "source_published_at",
        "ingested_at",
        "license_notice",
        "attribution",
        "sources",
        "counts",
        "countries",
        "operators",
        "networks",
        "number_ranges",
        "capabilities",
      ].sort(),
    );
    expect(snapshot.data).toMatchObject({ dataset_version: versions[2], previous_version: versions[1], source_mode: "ir21" });
    expect(snapshot.data.number_ranges).toHaveLength(8);
    expect(await ir21.snapshot({ ifNoneMatch: snapshot.etag! })).toEqual({ notModified: true, etag: snapshot.etag });
    const download = await ir21.downloadSnapshot();
    if (download.notModified) throw new Error("expected the file");
    expect(download.filename).toBe(`ir21-snapshot-${versions[2]}.json`);
    expect(JSON.parse(await new Response(download.body).text())).toEqual(snapshot.data);
  });
});

describe("data client access and errors", () => {
  it("anonymous: the public projection, and 401 on credentials-only routes", async () => {
    const ir21 = anonymous();
    const { data } = await ir21.lookup("+8613912345678");
    expect(data).toEqual({
      number: "+8613912345678",
      country_iso2: "CN",
      valid: true,
      validation_reason: null,
      number_type: "mobile",
      formats: { e164: "+8613912345678", national: "139 1234 5678", international: "+86 139 1234 5678", rfc3966: "tel:+86-139-1234-5678" },
      location: { en: "Changzhou, Jiangsu", zh: "江苏省常州市" },
      time_zones: ["Asia/Shanghai"],
      range_holder: "China Mobile",
      range_holder_reason: null,
      operator: { id: "cn.china-mobile", country_iso2: "CN", name: "China Mobile" },
      // Where the answer comes from is public: the demo dataset, undated (it is no publication).
      source: { id: "demo", name: expect.stringContaining("NOT real operator data"), date: null, status: null },
      ported: null,
    });
    expect(Object.keys((await ir21.operators.get("gb.ee")).data).sort()).toEqual(["country_iso2", "id", "name", "networks"]);
    const refused = await ir21.numberRanges.list().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Ir21ApiError);
    expect(refused).toMatchObject({ status: 401, code: "UNAUTHORIZED", requestId: expect.any(String) });
  });

  it("a console session (cookie jar) gets the full projection", async () => {
    const ir21 = createClient({ baseUrl: server.url, cookies: memoryCookieJar(sessionCookie) });
    expect((await ir21.lookup("+8613912345678")).data.range?.id).toBe("e164-86139");
  });

  it("an invalid key is 401, never anonymous; an unknown id is 404", async () => {
    const wrong = createClient({ baseUrl: server.url, apiKey: "ir21_notavalidkey" });
    expect(await wrong.countries.list().catch((e: unknown) => (e as Ir21ApiError).code)).toBe("UNAUTHORIZED");
    const missing = await full().operators.get("cn.nobody").catch((e: unknown) => e);
    expect(isIr21ApiError(missing, "NOT_FOUND")).toBe(true);
    expect((missing as Ir21ApiError).status).toBe(404);
  });

  it("rate limited: RATE_LIMITED with retryAfter; a bounded retry does not wait past its budget", async () => {
    const limited = await startTestServer({ env: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: "2" }, dataset: "demo" });
    try {
      const retries: number[] = [];
      const ir21 = createClient({ baseUrl: limited.url, retry: { maxAttempts: 3, maxTotalWaitMs: 500, onRetry: (r) => retries.push(r.delayMs) } });
      await ir21.meta();
      await ir21.meta();
      const started = Date.now();
      const error = await ir21.meta().catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 429, code: "RATE_LIMITED" });
      expect((error as Ir21ApiError).retryAfter).toBeGreaterThan(0);
      expect(retries).toEqual([]);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await limited.close();
    }
  });

  it("before the first import: 503 NO_DATASET", async () => {
    const empty = await startTestServer();
    try {
      await expect(createClient({ baseUrl: empty.url }).meta()).rejects.toMatchObject({ status: 503, code: "NO_DATASET" });
    } finally {
      await empty.close();
    }
  });
});

describe("syncChanges against the live change log", () => {
  it("applies per-record events in order, signals the reset, and returns the version to persist", async () => {
    const ir21 = full();
    const applied: string[] = [];
    const resets: string[] = [];
    const result = await syncChanges({
      client: ir21,
      since: versions[0]!,
      pageSize: 2,
      onEvent: (event) => void applied.push(`${event.dataset_version} ${event.type}`),
      onReset: async (event) => {
        resets.push(event?.dataset_version ?? "since not served");
        const snapshot = await ir21.snapshot();
        return snapshot.notModified ? undefined : snapshot.data.dataset_version;
      },
    });
    expect(applied).toEqual([`${versions[1]} ir21.operator.updated`, `${versions[1]} ir21.number_range.added`, `${versions[1]} ir21.capability.changed`]);
    expect(resets).toEqual([versions[2]]);
    expect(result).toEqual({ version: versions[2], applied: 3, resets: 1, skipped: 0 });
    // Caught up: the next run from the persisted version finds nothing.
    const next = await syncChanges({ client: ir21, since: result.version, onEvent: () => {}, onReset: () => {} });
    expect(next).toEqual({ version: versions[2], applied: 0, resets: 0, skipped: 0 });
  });

  it("from none: the initial import is a reset; events its snapshot contains are skipped", async () => {
    const ir21 = full();
    const applied: string[] = [];
    const result = await syncChanges({
      client: ir21,
      since: "none",
      filter: { country: ["GB"] },
      onEvent: (event) => void applied.push(event.id),
      // A snapshot loaded now is the latest version: everything after the first reset is in it.
      onReset: () => versions[2],
    });
    expect(applied).toEqual([]);
    expect(result).toMatchObject({ version: versions[2], resets: 1, skipped: 2 });
  });

  it("a since the server does not serve (expired or unknown) reloads the snapshot and goes on from it", async () => {
    const ir21 = full();
    const causes: Array<string | null> = [];
    const result = await syncChanges({
      client: ir21,
      since: "2020-01-01.000001",
      onEvent: () => {},
      onReset: async (event) => {
        causes.push(event?.type ?? null);
        const snapshot = await ir21.snapshot();
        return snapshot.notModified ? undefined : snapshot.data.dataset_version;
      },
    });
    expect(causes).toEqual([null]);
    expect(result).toEqual({ version: versions[2], applied: 0, resets: 1, skipped: 0 });
    // Without a version to go on from, the server's refusal is the answer.
    const refused = await syncChanges({ client: ir21, since: "2020-01-01.000001", onEvent: () => {}, onReset: () => {} }).catch((e: unknown) => e);
    expect(isIr21ApiError(refused, "UNKNOWN_DATASET_VERSION")).toBe(true);
  });
});
