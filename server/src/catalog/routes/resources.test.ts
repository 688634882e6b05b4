import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../../testing/index.ts";
import { importDataset } from "../import/import.ts";
import { demoDataset } from "../import/importers/demo.ts";
import { recordingMetering, switchableMetering, type RecordingMetering, type SwitchableMetering } from "../../../testing/metering.ts";

let server: TestServer;
let switchable: SwitchableMetering;
let key: { "x-api-key": string };
let session: { cookie: string };
let revokedKey: string;
let signedOut: string;
beforeAll(async () => {
  server = await startTestServer({ dataset: "demo", metering: (real) => (switchable = switchableMetering(real)) });
  const alice = await signIn(server);
  session = alice.headers;
  key = (await createApiKey(server, alice)).headers;
  const revoked = await createApiKey(server, alice, "revoked");
  expect((await server.json(`/console/api-keys/${revoked.id}`, { method: "DELETE", headers: alice.headers })).status).toBe(200);
  revokedKey = revoked.key;
  const bob = await signIn(server);
  expect((await server.json("/auth/logout", { method: "POST", headers: bob.headers })).status).toBe(200);
  signedOut = bob.cookie;
});
afterAll(() => server.close());

const expectError = (res: { status: number; body: any }, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(["code", "message", "request_id"]);
  expect(res.body.code).toBe(code);
};

describe("/v1 envelope and meta", () => {
  it("GET /v1/meta: version, counts, sources with licences, for anyone", async () => {
    const { status, body } = await server.json("/v1/meta");
    expect(status).toBe(200);
    expect(body.code).toBe(0);
    expect(body.meta).toMatchObject({ dataset_version: body.data.dataset_version, source_mode: "demo" });
    expect(body.data).toMatchObject({
      source_mode: "demo",
      previous_version: null,
      counts: { countries: 3, operators: 4, networks: 4, number_ranges: 7, capabilities: 5, number_ranges_linked: 6 },
      sources: [expect.objectContaining({ id: "demo", license: "CC0-1.0", sample: true })],
    });
    expect(body.data.attribution).toContain("CC0-1.0");
  });

  it("503 NO_DATASET before the first import", async () => {
    const empty = await startTestServer();
    try {
      expectError(await empty.json("/v1/operators"), 503, "NO_DATASET");
    } finally {
      await empty.close();
    }
  });
});

describe("anonymous projection vs full fields", () => {
  it("operators: anonymous get id, country and name only; a key or session gets every field", async () => {
    const anonymous = await server.json("/v1/operators?country=cn");
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.data.items.map((o: { id: string }) => o.id)).toEqual(["cn.china-mobile", "cn.china-telecom", "cn.china-unicom"]);
    for (const item of anonymous.body.data.items) expect(Object.keys(item).sort()).toEqual(["country_iso2", "id", "name"]);
    for (const headers of [key, session]) {
      const full = await server.json("/v1/operators?country=CN", { headers });
      expect(full.body.data.items[0]).toEqual({
        id: "cn.china-mobile",
        country_iso2: "CN",
        name: "China Mobile",
        name_local: "中国移动",
        brand: "China Mobile",
        tadig: null,
        status: "active",
        successor_id: null,
        lineage: null,
        listed: true,
        territories: ["CN"],
        register_ids: [],
        source: "demo",
        dataset_version: anonymous.body.meta.dataset_version,
      });
    }
  });

  it("one operator: networks, capabilities and range counts with a key; public networks only anonymously", async () => {
    const full = await server.json("/v1/operators/cn.china-mobile", { headers: key });
    expect(full.status).toBe(200);
    expect(full.body.data).toMatchObject({
      id: "cn.china-mobile",
      networks: [expect.objectContaining({ id: "460-00", technologies: ["GSM", "LTE", "NR"] })],
      capabilities: [expect.objectContaining({ name: "lte.roaming" }), expect.objectContaining({ name: "volte.s8hr" })],
      number_range_counts: { total: 2, e164: 2, e212: 0, mobile: 2, fixed: 0, other: 0 },
    });
    const anonymous = await server.json("/v1/operators/cn.china-mobile");
    expect(anonymous.body.data).toEqual({
      id: "cn.china-mobile",
      country_iso2: "CN",
      name: "China Mobile",
      networks: [{ id: "460-00", mcc: "460", mnc: "00", country_iso2: "CN", operator_id: "cn.china-mobile", name: "China Mobile" }],
    });
  });

  it("networks: filters and projections", async () => {
    const anonymous = await server.json("/v1/networks?mcc=460&mnc=11");
    expect(anonymous.body.data).toEqual({
      items: [{ id: "460-11", mcc: "460", mnc: "11", country_iso2: "CN", operator_id: "cn.china-telecom", name: "China Telecom" }],
      next_cursor: null,
    });
    const full = await server.json("/v1/networks?operator=gb.ee", { headers: key });
    expect(full.body.data.items).toEqual([expect.objectContaining({ id: "234-30", status: "operational", network_type: "national", source: "demo" })]);
    const one = await server.json("/v1/networks/234-30");
    expect(one.body.data).toEqual({ id: "234-30", mcc: "234", mnc: "30", country_iso2: "GB", operator_id: "gb.ee", name: "EE" });
  });

  it("countries are public and whole", async () => {
    const list = await server.json("/v1/countries");
    expect(list.body.data.items.map((c: { iso2: string }) => c.iso2)).toEqual(["CN", "GB", "US"]);
    const one = await server.json("/v1/countries/gb");
    expect(one.body.data).toEqual({
      iso2: "GB",
      iso3: "GBR",
      name: "United Kingdom",
      name_zh: "英国",
      calling_codes: ["44"],
      mccs: ["234", "235"],
      operators: [{ id: "gb.ee", country_iso2: "GB", name: "EE" }],
    });
  });

  it.each([
    ["/v1/number-ranges"],
    ["/v1/number-ranges/e164-86139"],
    ["/v1/capabilities"],
    ["/v1/changes?since=none"],
    ["/v1/exports/operators.csv"],
    ["/v1/snapshot"],
  ])("%s needs credentials: 401 for anonymous callers", async (path) => {
    expectError(await server.json(path), 401, "UNAUTHORIZED");
  });

  it("number ranges and capabilities with a key: filters by country, operator, kind, prefix, name", async () => {
    const byPrefix = await server.json("/v1/number-ranges?prefix=8613", { headers: key });
    expect(byPrefix.body.data.items.map((r: { id: string }) => r.id)).toEqual(["e164-86130", "e164-86133", "e164-86138", "e164-86139"]);
    const unlinked = await server.json("/v1/number-ranges?prefix=86170", { headers: session });
    expect(unlinked.body.data.items).toEqual([expect.objectContaining({ id: "e164-86170", operator_id: null, range_holder: "Demo Virtual Mobile" })]);
    const imsi = await server.json("/v1/number-ranges?plan=e212", { headers: key });
    expect(imsi.body.data.items).toEqual([expect.objectContaining({ id: "e212-46011-0000000000-0999999999", mcc: "460", mnc: "11", network_id: "460-11" })]);
    const byOperator = await server.json("/v1/number-ranges?operator=gb.ee&kind=mobile", { headers: key });
    expect(byOperator.body.data.items.map((r: { id: string }) => r.id)).toEqual(["e164-447700"]);
    const one = await server.json("/v1/number-ranges/e164-86133", { headers: key });
    expect(one.body.data).toMatchObject({ id: "e164-86133", range_holder: "China Telecom", operator_id: "cn.china-telecom" });
    const caps = await server.json("/v1/capabilities?country=CN&name=camel.phases", { headers: key });
    expect(caps.body.data.items).toEqual([expect.objectContaining({ id: "network:460-01:camel.phases", value: ["CAP2", "CAP3"] })]);
  });
});

describe("credentials", () => {
  it.each([
    ["a revoked key", () => ({ "x-api-key": revokedKey })],
    ["an unknown key", () => ({ "x-api-key": `ir21_${"A".repeat(48)}` })],
    ["a malformed key", () => ({ "x-api-key": "%%%" })],
    ["a signed-out session", () => ({ cookie: signedOut })],
    ["a forged session", () => ({ cookie: "ir21_session=ses_forged.secret" })],
  ])("%s is 401 on a public route too, never silently anonymous", async (_label, headersOf) => {
    const headers = headersOf();
    expectError(await server.json("/v1/operators", { headers }), 401, "UNAUTHORIZED");
    expectError(await server.json("/v1/lookup?number=%2B8613912345678", { headers }), 401, "UNAUTHORIZED");
  });
});

describe("errors", () => {
  it.each([
    ["/v1/operators/cn.nobody", 404, "NOT_FOUND"],
    ["/v1/networks/999-99", 404, "NOT_FOUND"],
    ["/v1/countries/XX", 404, "NOT_FOUND"],
    ["/v1/countries/CHN", 400, "INVALID_REQUEST"],
    ["/v1/networks/46000", 400, "INVALID_REQUEST"],
    ["/v1/operators?limit=0", 400, "INVALID_REQUEST"],
    ["/v1/operators?limit=1001", 400, "INVALID_REQUEST"],
    ["/v1/operators?limit=ten", 400, "INVALID_REQUEST"],
    ["/v1/operators?country=China", 400, "INVALID_REQUEST"],
    ["/v1/operators?cursor=not-a-cursor", 400, "INVALID_REQUEST"],
    ["/v1/networks?mcc=4600", 400, "INVALID_REQUEST"],
  ])("%s -> %i %s, with the RateLimit fields of the attempt it counted", async (path, status, code) => {
    const res = await server.json(path, { headers: key });
    expectError(res, status, code);
    expect(res.headers.get("ratelimit-policy")).toMatch(/^"minute";q=\d+;w=60$/);
    expect(res.headers.get("ratelimit")).toMatch(/^"minute";r=\d+;t=\d+$/);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("405 with Allow for another method on a data path", async () => {
    const res = await server.json("/v1/operators", { method: "DELETE" });
    expectError(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("GET");
  });
});

describe("paging", () => {
  it("walks every operator with next_cursor, pinned to the first page's version", async () => {
    const first = await server.json("/v1/operators?limit=2", { headers: key });
    expect(first.body.data.items).toHaveLength(2);
    // A new version arrives between the pages: the listing still comes from the first one.
    const b = demoDataset();
    b.operators.push({ ...b.operators[0]!, id: "cn.china-satcom", name: "China Satcom" });
    const imported = await importDataset(server.deps, b);
    server.deps.datasetMeta.invalidate();
    const second = await server.json(`/v1/operators?limit=2&cursor=${first.body.data.next_cursor}`, { headers: key });
    expect(second.body.meta.dataset_version).toBe(first.body.meta.dataset_version);
    expect(second.body.data.items.map((o: { id: string }) => o.id)).toEqual(["cn.china-unicom", "gb.ee"]);
    expect(second.body.data.next_cursor).toBeNull();
    const fresh = await server.json("/v1/operators?limit=10", { headers: key });
    expect(fresh.body.meta.dataset_version).toBe(imported.version);
    expect(fresh.body.data.items.map((o: { id: string }) => o.id)).toContain("cn.china-satcom");
  });
});

describe("metering (the routes' side: what they report)", () => {
  let metering: RecordingMetering;
  beforeAll(() => {
    metering = recordingMetering();
    switchable.use(metering);
  });
  afterAll(() => {
    switchable.use(null);
  });

  it("admits and settles every data request under the route's name; failures settle with their status", async () => {
    metering.admitted.length = 0;
    metering.settled.length = 0;
    const ok = await server.json("/v1/networks/460-00", { headers: key });
    expect(ok.headers.get("ratelimit-remaining")).toBe("59");
    await server.json("/v1/networks/999-99", { headers: key });
    await server.json("/v1/networks?mcc=x", { headers: key });
    await server.json("/v1/capabilities");
    expect(metering.settled.map((s) => [s.endpoint, s.status, s.access.kind, s.cost])).toEqual([
      ["GET /v1/networks/:id", 200, "apiKey", 1],
      ["GET /v1/networks/:id", 404, "apiKey", 1],
      ["GET /v1/networks", 400, "apiKey", 1],
      ["GET /v1/capabilities", 401, "anonymous", 1],
    ]);
    await server.json("/v1/operators", { headers: session });
    expect(metering.settled.at(-1)).toMatchObject({ endpoint: "GET /v1/operators", status: 200, access: { kind: "session" } });
    expect(metering.admitted).toHaveLength(5);
    // The address is what an anonymous caller's rate limit counts by; a key or a session counts itself.
    expect(metering.admitted[3]).toMatchObject({ access: { kind: "anonymous" }, ip: "127.0.0.1" });
    expect(metering.admitted[0]).toMatchObject({ access: { kind: "apiKey" }, ip: null });
  });

  it("a refusal from the metering is a 429 with Retry-After and runs nothing", async () => {
    metering.settled.length = 0;
    metering.refuseNext("RATE_LIMITED");
    const res = await server.json("/v1/operators", { headers: key });
    expectError(res, 429, "RATE_LIMITED");
    expect(res.headers.get("retry-after")).toBe("30");
    expect(metering.settled).toHaveLength(0);
  });

  it("openapi.json is not metered", async () => {
    metering.admitted.length = 0;
    expect((await server.fetch("/v1/openapi.json")).status).toBe(200);
    expect(metering.admitted).toHaveLength(0);
  });
});
