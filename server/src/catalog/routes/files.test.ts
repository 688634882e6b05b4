import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../../testing/index.ts";
import { importDataset } from "../import/import.ts";
import { demoDataset } from "../import/importers/demo.ts";
import { csvColumns, spreadsheetSafe } from "../exports/snapshot.ts";
import { recordingMetering, type RecordingMetering } from "../../../testing/metering.ts";

let server: TestServer;
let key: { "x-api-key": string };
let metering: RecordingMetering;
beforeAll(async () => {
  server = await startTestServer({ dataset: "reference", metering: () => (metering = recordingMetering()) });
  key = (await createApiKey(server, await signIn(server))).headers;
}, 120_000);
afterAll(() => server.close());


async function allPages(path: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const res: { body: any } = await server.json(`${path}${path.includes("?") ? "&" : "?"}limit=1000${cursor ? `&cursor=${cursor}` : ""}`, { headers: key });
    items.push(...res.body.data.items);
    cursor = res.body.data.next_cursor;
  } while (cursor);
  return items;
}

describe("GET /v1/meta on the reference data", () => {
  it("about 1 KB a source by default; per-file checksums with ?files=true, summarised by one checksum otherwise", async () => {
    const small = await server.fetch("/v1/meta", { headers: { "accept-encoding": "identity" } });
    const text = await small.text();
    const full = (await server.json("/v1/meta?files=true")).body.data;
    const brief = JSON.parse(text).data;
    // The answer grows with its sources (the registers are one each), never with their files.
    expect(Buffer.byteLength(text)).toBeLessThan(2048 + brief.sources.length * 1280);
    expect(Buffer.byteLength(JSON.stringify(full))).toBeGreaterThan(Buffer.byteLength(text) * 2);
    const carrier = full.sources.find((s: { id: string }) => s.id === "libphonenumber-carrier");
    expect(carrier.files.length).toBeGreaterThan(200);
    for (const source of full.sources as { id: string; files: { path: string; sha256: string }[] }[]) {
      const summary = brief.sources.find((s: { id: string }) => s.id === source.id);
      // What `sha256sum` prints for the files in path order, hashed: checkable without the service.
      const listing = [...source.files]
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
        .map((f) => `${f.sha256}  ${f.path}\n`)
        .join("");
      expect(summary).toMatchObject({ files: [], files_count: source.files.length, files_sha256: createHash("sha256").update(listing).digest("hex") });
    }
    expect((await server.json("/v1/meta?files=maybe")).status).toBe(400);
    // libphonenumber-js 1.13.16 ships metadata 9.0.43; geo-carrier 2.0.0's carrier files are 9.0.27's (issue 19).
    expect(brief.freshness).toEqual({ carrier_data_version: "9.0.27", validity_data_version: "9.0.43", carrier_data_older_than_validity: true });
  });
});

describe("GET /v1/exports/:file (CSV)", () => {
  it("number-ranges.csv parses as RFC 4180 and round-trips to the JSON listing, with licence per row", async () => {
    const res = await server.fetch("/v1/exports/number-ranges.csv", { headers: { ...key, "accept-encoding": "identity" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv; charset=utf-8/);
    const meta = (await server.json("/v1/meta")).body.data;
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="ir21-number-ranges-${meta.dataset_version}.csv"`);
    expect(res.headers.get("etag")).toBe(`"${meta.dataset_version}-number-ranges"`);
    const text = await res.text();
    expect(text.split("\r\n").length).toBeGreaterThan(meta.counts.number_ranges);
    const rows = parse(text, { columns: true, record_delimiter: "\r\n", relax_quotes: false }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(csvColumns("number-ranges"));
    // Every range of the version (the carrier prefixes, the packaged registers' blocks), as /v1/meta counts them.
    expect(rows).toHaveLength(meta.counts.number_ranges);

    const listed = await allPages("/v1/number-ranges");
    expect(rows.map((r) => r.id)).toEqual(listed.map((r) => r.id));
    const asText = (v: unknown) => (v === null ? "" : String(v));
    listed.forEach((range, i) => {
      for (const field of Object.keys(range)) expect(rows[i]![field], `${range.id}.${field}`).toBe(asText(range[field]));
    });
    const china = rows.find((r) => r.id === "e164-86139")!;
    expect(china).toMatchObject({ range_holder: "China Mobile", range_holder_local: "中国移动", source: "libphonenumber-carrier", source_license: "Apache-2.0" });
    expect(china.source_attribution).toMatch(/libphonenumber/);
  }, 60_000);

  it("networks.csv carries the CC BY-SA licence and quotes what needs quoting", async () => {
    const res = await server.fetch("/v1/exports/networks.csv", { headers: key });
    const rows = parse(await res.text(), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength((await server.json("/v1/meta")).body.data.counts.networks);
    const cm = rows.find((r) => r.id === "460-00")!;
    expect(cm).toMatchObject({ mcc: "460", mnc: "00", operator_id: "cn.china-mobile", technologies: "GSM;LTE;NR;TD-SCDMA", source_license: "CC-BY-SA-4.0" });
    expect(cm.source_attribution).toMatch(/Wikipedia/);
    // Names with commas or quotes survive the round trip.
    expect(rows.some((r) => r.name!.includes(","))).toBe(true);
  });

  it("makes formula-like cells spreadsheet-safe with a leading apostrophe that reverses exactly", async () => {
    const rows = parse(await (await server.fetch("/v1/exports/networks.csv", { headers: key })).text(), { columns: true }) as Record<string, string>[];
    // mcc-mnc-list's real brand "+7Telecom" (250-96) would be a formula in a spreadsheet.
    expect(rows.find((r) => r.id === "250-96")).toMatchObject({ name: "'+7Telecom" });
    expect((await server.json("/v1/networks/250-96", { headers: key })).body.data.name).toBe("+7Telecom");
    // The documented reverse (drop one leading apostrophe) gives the JSON listing's values back.
    const listed = await allPages("/v1/networks");
    const unescape = (cell: string) => (cell.startsWith("'") ? cell.slice(1) : cell);
    const asText = (v: unknown) => (v === null ? "" : Array.isArray(v) ? v.join(";") : String(v));
    listed.forEach((network, i) => {
      for (const field of ["id", "name", "operator_id", "status", "bands"]) expect(unescape(rows[i]![field]!), `${network.id}.${field}`).toBe(asText(network[field]));
    });
  }, 60_000);

  it("spreadsheetSafe: the triggers, an apostrophe, and plain numbers", () => {
    expect(["=1+1", "+7Telecom", "-x", "@SUM(A1)", "\tx", "\rx", "'=x", "'plain"].map(spreadsheetSafe)).toEqual([
      "'=1+1",
      "'+7Telecom",
      "'-x",
      "'@SUM(A1)",
      "'\tx",
      "'\rx",
      "''=x",
      "''plain",
    ]);
    expect(["-5", "+86", "1.5e3", "-0.25", "China Mobile", "", "a=b"].map(spreadsheetSafe)).toEqual(["-5", "+86", "1.5e3", "-0.25", "China Mobile", "", "a=b"]);
  });

  it("gzip when accepted; 304 for the same version; 400 for an unknown file; counted once", async () => {
    const { counts } = (await server.json("/v1/meta")).body.data;
    metering.settled.length = 0;
    const gz = await server.fetch("/v1/exports/operators.csv", { headers: { ...key, "accept-encoding": "gzip, deflate" } });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    const raw = Buffer.from(await gz.arrayBuffer());
    // fetch() decodes gzip itself; either way the rows must parse.
    const text = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw).toString("utf8") : raw.toString("utf8");
    expect((parse(text, { columns: true }) as unknown[]).length).toBe(counts.operators);
    const again = await server.fetch("/v1/exports/operators.csv", { headers: { ...key, "if-none-match": gz.headers.get("etag")! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const unknown = await server.json("/v1/exports/users.csv", { headers: key });
    expect(unknown.status).toBe(400);
    expect(metering.settled.map((s) => [s.endpoint, s.status, s.cost])).toEqual([
      ["GET /v1/exports/:file", 200, 1],
      ["GET /v1/exports/:file", 304, 1],
      ["GET /v1/exports/:file", 400, 1],
    ]);
  });
});

describe("GET /v1/snapshot", () => {
  it("the whole catalogue as JSON with sources and licences; ETag is the version; 304 on If-None-Match", async () => {
    const res = await server.fetch("/v1/snapshot", { headers: { ...key, "accept-encoding": "identity" } });
    expect(res.status).toBe(200);
    const version = (await server.json("/v1/meta")).body.data.dataset_version;
    expect(res.headers.get("etag")).toBe(`"${version}"`);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="ir21-snapshot-${version}.json"`);
    expect(res.headers.get("content-encoding")).toBeNull();
    const snapshot = JSON.parse(await res.text());
    const meta = (await server.json("/v1/meta")).body.data;
    expect(snapshot).toMatchObject({ dataset_version: version, source_mode: "reference", counts: meta.counts });
    const licences = snapshot.sources.map((s: { id: string; license: string }) => `${s.id}:${s.license}`);
    expect(licences).toEqual(meta.sources.map((s: { id: string; license: string }) => `${s.id}:${s.license}`));
    expect(licences).toEqual(
      expect.arrayContaining([
        "mcc-mnc-list:CC-BY-SA-4.0",
        "libphonenumber-carrier:Apache-2.0",
        "libphonenumber-geocoding:Apache-2.0",
        "i18n-iso-countries:MIT",
        "libphonenumber-js:MIT",
        "register:gb-ofcom-s7:LicenseRef-Ofcom-copyright",
      ]),
    );
    expect(snapshot.license_notice).toMatch(/same licence/);
    // i18n-iso-countries' 250 codes, ZZ, and Ascension (AC) and Tristan da Cunha (TA), which libphonenumber
    // numbers as regions of their own though ISO 3166-1 only reserves their codes.
    expect(snapshot.countries).toHaveLength(253);
    expect(snapshot.operators).toHaveLength(meta.counts.operators);
    expect(snapshot.networks).toHaveLength(meta.counts.networks);
    expect(snapshot.number_ranges).toHaveLength(meta.counts.number_ranges);
    // Every listed operator of /v1/operators is in it (the unlisted rows too, which listings leave out).
    const ids = new Set(snapshot.operators.map((o: { id: string }) => o.id));
    expect((await allPages("/v1/operators")).filter((o) => !ids.has(o.id as string))).toEqual([]);
    expect(snapshot.capabilities).toHaveLength(snapshot.counts.capabilities);
    expect(snapshot.number_ranges.find((r: { id: string }) => r.id === "e164-86133")).toMatchObject({ range_holder: "China Telecom", operator_id: "cn.china-telecom" });

    for (const etag of [`"${version}"`, `W/"${version}"`, `"other", "${version}"`, "*"]) {
      const cached = await server.fetch("/v1/snapshot", { headers: { ...key, "if-none-match": etag } });
      expect(cached.status, etag).toBe(304);
      expect(cached.headers.get("etag")).toBe(`"${version}"`);
    }
    const stale = await server.fetch("/v1/snapshot", { headers: { ...key, "if-none-match": '"2000-01-01.000001"' } });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
  }, 60_000);

  it("is gzip-encoded when the client accepts it", async () => {
    const res = await server.fetch("/v1/snapshot", { headers: { ...key, "accept-encoding": "gzip" } });
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("vary")).toMatch(/Accept-Encoding/);
    const body = await res.json();
    expect(body.number_ranges).toHaveLength(body.counts.number_ranges);
    expect(body.number_ranges.length).toBeGreaterThan(28_000);
  }, 60_000);

  it("a new version changes the ETag", async () => {
    const before = (await server.fetch("/v1/snapshot", { method: "GET", headers: { ...key, "if-none-match": "*" } })).headers.get("etag");
    const { candidate } = { candidate: demoDataset() };
    const imported = await importDataset(server.deps, candidate);
    server.deps.datasetMeta.invalidate();
    const res = await server.fetch("/v1/snapshot", { headers: { ...key, "if-none-match": before! } });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe(`"${imported.version}"`);
    await res.arrayBuffer();
  });
});
