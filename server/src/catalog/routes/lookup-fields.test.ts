import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type SignedIn, type TestServer } from "../../../testing/index.ts";

/**
 * `fields=` on GET /v1/lookup and POST /v1/lookup/batch (docs/api.md "Lookup fields"), through the
 * real server: an answer with fields is the whole answer narrowed to the fields asked, which this test
 * computes itself from the whole answer (keys in the answer's order, byte for byte once serialised);
 * names the answer lacks, and for anonymous callers names outside the public projection, are a 400
 * naming them; the quota counts the same with and without fields.
 */
let server: TestServer;
let alice: SignedIn;
let key: { "x-api-key": string };
let numbers: string[];
beforeAll(async () => {
  server = await startTestServer({ dataset: "reference" });
  alice = await signIn(server);
  key = (await createApiKey(server, alice)).headers;
  // Numbers in real ranges of three countries (China, the UK's register, France's), padded to full length,
  // and some no range names: toll-free, too short, no such calling code, invalid for its country.
  const prefixes = async (query: string) => ((await server.json(`/v1/number-ranges?${query}&limit=12`, { headers: key })).body.data.items as { prefix: string | null }[]).map((r) => r.prefix).filter((p): p is string => p !== null);
  const inRanges = [...(await prefixes("country=CN")), ...(await prefixes("prefix=44")), ...(await prefixes("prefix=33"))].map((p) => `+${(p + "12345678901234").slice(0, p.startsWith("86") ? 13 : 11 + (p.startsWith("44") ? 1 : 0))}`);
  numbers = [...inRanges, "+8613912345678", "+447700900123", "+80012345678", "+861391234", "+999123456789", "+8612345678901", "+33612345678"];
}, 120_000);
afterAll(() => server.close());

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The test's own narrowing: the answer's fields named by `fields` (dotted paths), in the answer's
 * order; a sub-field narrows an object, or each object of an array; a whole field wins over its sub-fields.
 */
function narrowed(answer: Json, fields: string): Json {
  const paths = fields.split(",").map((f) => f.trim().split("."));
  const pick = (value: Json, paths: string[][]): Json => {
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map((item) => pick(item, paths));
    const out: { [key: string]: Json } = {};
    for (const [name, inner] of Object.entries(value)) {
      const mine = paths.filter((p) => p[0] === name);
      if (mine.length === 0) continue;
      out[name] = mine.some((p) => p.length === 1) ? inner : pick(inner, mine.map((p) => p.slice(1)));
    }
    return out;
  };
  return pick(answer, paths);
}

const lookup = (number: string, fields?: string, headers: Record<string, string> = key) =>
  server.json(`/v1/lookup?number=${encodeURIComponent(number)}${fields === undefined ? "" : `&fields=${encodeURIComponent(fields)}`}`, { headers });

const SELECTIONS = [
  "number,country_iso2,valid,number_type,range_holder",
  "number,valid,number_type,range_holder,operator.id,network.mcc,network.mnc",
  "range_holder,number",
  "formats,location,time_zones,validation_reason",
  "formats.e164,location.zh,match,source.id,source.date,range.prefix,networks.id,primary_network",
  "operator,operator.name,current_operator.id,holder_successor,range_holder_reason,note,ported,range,networks",
];
const PUBLIC_SELECTIONS = ["number,country_iso2,valid,number_type,range_holder", "operator.id,range_holder_reason,source", "formats.national,location,time_zones,ported,operator"];
const withoutRequestId = (meta: Record<string, unknown>) => ({ ...meta, request_id: undefined });

describe("GET /v1/lookup?fields=", () => {
  it("answers the whole answer narrowed to the fields asked, for every number and selection, with an API key", async () => {
    let named = 0;
    for (const number of numbers) {
      const whole = await lookup(number);
      expect(whole.status, number).toBe(200);
      if (whole.body.data.operator !== null) named++;
      for (const fields of SELECTIONS) {
        const res = await lookup(number, fields);
        expect(res.status, `${number} ${fields}`).toBe(200);
        // Byte for byte: the same keys in the same order.
        expect(JSON.stringify(res.body.data), `${number} ${fields}`).toBe(JSON.stringify(narrowed(whole.body.data, fields)));
        expect(withoutRequestId(res.body.meta)).toEqual(withoutRequestId(whole.body.meta));
        expect(res.body.code).toBe(0);
      }
    }
    // The sample reaches ranges with operators, networks and sources, not only numbers no range names.
    expect(numbers.length).toBeGreaterThan(30);
    expect(named).toBeGreaterThan(20);
  });

  it("anonymous callers get the public answer narrowed", async () => {
    for (const number of numbers.slice(0, 12).concat(numbers.slice(-7))) {
      const whole = await lookup(number, undefined, {});
      for (const fields of PUBLIC_SELECTIONS) {
        const res = await lookup(number, fields, {});
        expect(res.status, `${number} ${fields}`).toBe(200);
        expect(JSON.stringify(res.body.data), `${number} ${fields}`).toBe(JSON.stringify(narrowed(whole.body.data, fields)));
      }
    }
  });

  it("the small answer is small", async () => {
    const small = await server.fetch(`/v1/lookup?number=%2B8613912345678&fields=number,country_iso2,valid,number_type,range_holder`, { headers: key });
    const text = await small.text();
    expect(JSON.parse(text).data).toEqual({ number: "+8613912345678", country_iso2: "CN", valid: true, number_type: "mobile", range_holder: "China Mobile" });
    const whole = await (await server.fetch(`/v1/lookup?number=%2B8613912345678`, { headers: key })).text();
    expect(text.length * 4).toBeLessThan(whole.length);
  });

  it("an IMSI's answer narrowed too", async () => {
    for (const headers of [key, {}]) {
      const whole = await server.json("/v1/lookup?imsi=460001234567890", { headers });
      const fields = headers === key ? "imsi,mcc,mnc,network.id,operator.name,ambiguous" : "imsi,mcc,network.id,operator.name";
      const res = await server.json(`/v1/lookup?imsi=460001234567890&fields=${fields}`, { headers });
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body.data)).toBe(JSON.stringify(narrowed(whole.body.data, fields)));
    }
  });

  it("unknown fields are a 400 naming them, in the contract's error body", async () => {
    for (const headers of [key, {}]) {
      const res = await lookup("+8613912345678", "number,carrier,operator.mccmnc,valid.x,imsi", headers);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body).sort()).toEqual(["code", "message", "request_id"]);
      expect(res.body.code).toBe("INVALID_REQUEST");
      for (const name of ["carrier", "operator.mccmnc", "valid.x", "imsi"]) expect(res.body.message).toContain(name);
      expect(res.body.message).not.toMatch(/\bnumber\b,/);
      expect(res.headers.get("x-request-id")).toBe(res.body.request_id);
    }
    const imsi = await server.json("/v1/lookup?imsi=460001234567890&fields=imsi,number_type", { headers: key });
    expect(imsi.status).toBe(400);
    expect(imsi.body.message).toContain("number_type");
  });

  it("fields outside the public projection are a 400 for anonymous callers, naming them, and answered with a key", async () => {
    const fields = "number,range,operator.brand,networks,network.mcc,current_operator";
    const refused = await lookup("+8613912345678", fields, {});
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("INVALID_REQUEST");
    for (const name of ["range", "operator.brand", "networks", "network.mcc", "current_operator"]) expect(refused.body.message).toContain(name);
    expect(refused.body.message).toMatch(/public projection/);
    const answered = await lookup("+8613912345678", fields);
    expect(answered.status).toBe(200);
    expect(Object.keys(answered.body.data)).toEqual(["number", "operator", "current_operator", "range", "network", "networks"]);
  });

  it("a malformed list is a 400", async () => {
    for (const fields of ["", "number,,valid", "number,", "Number", "operator..id", "number valid", "a".repeat(1001)]) {
      const res = await lookup("+8613912345678", fields);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.body.code).toBe("INVALID_REQUEST");
      expect(res.body.message).toMatch(/^fields/);
    }
  });

  it("spaces around names and repeated names are the same selection", async () => {
    const plain = await lookup("+8613912345678", "number,valid,operator.id");
    const spaced = await lookup("+8613912345678", " valid , number,operator.id,valid ");
    expect(spaced.body.data).toEqual(plain.body.data);
  });
});

describe("POST /v1/lookup/batch?fields=", () => {
  const batch = (body: object, fields?: string, headers: Record<string, string> = key) =>
    server.json(`/v1/lookup/batch${fields === undefined ? "" : `?fields=${encodeURIComponent(fields)}`}`, { method: "POST", headers, body });

  it("narrows every number's answer; an error item stays whole", async () => {
    const body = { numbers: [...numbers.slice(0, 20), "not a number", "13912345678", ...numbers.slice(-7)] };
    for (const [headers, selections] of [[key, SELECTIONS], [{}, PUBLIC_SELECTIONS]] as const) {
      const whole = await batch(body, undefined, headers);
      expect(whole.status).toBe(200);
      for (const fields of selections) {
        const res = await batch(body, fields, headers);
        expect(res.status, fields).toBe(200);
        const expected = whole.body.data.items.map((item: Json & object) => ("error" in item ? item : narrowed(item, fields)));
        expect(JSON.stringify(res.body.data), fields).toBe(JSON.stringify({ items: expected }));
      }
    }
  });

  it("refuses unknown and (anonymous) non-public fields, and fields in the body", async () => {
    const unknown = await batch({ numbers: ["+8613912345678"] }, "number,carrier");
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain("carrier");
    const anonymous = await batch({ numbers: ["+8613912345678"] }, "number,range.id", {});
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.message).toContain("range.id");
    const inBody = await batch({ numbers: ["+8613912345678"], fields: "number" });
    expect(inBody.status).toBe(400);
    expect(inBody.body.code).toBe("INVALID_REQUEST");
  });
});

describe("quota with fields=", () => {
  const used = async () => (await server.json("/console/usage", { headers: alice.headers })).body.data.used as number;

  it("a lookup with fields costs what one without costs; a batch one unit a number; a refused selection nothing", async () => {
    const before = await used();
    expect((await lookup("+8613912345678")).status).toBe(200);
    expect(await used()).toBe(before + 1);
    expect((await lookup("+8613912345678", "number,valid")).status).toBe(200);
    expect(await used()).toBe(before + 2);
    expect((await lookup("+8613912345678", "number,nope")).status).toBe(400);
    expect(await used()).toBe(before + 2);
    const body = { numbers: ["+8613912345678", "+447700900123", "+33612345678"] };
    expect((await server.json("/v1/lookup/batch?fields=number", { method: "POST", headers: key, body })).status).toBe(200);
    expect(await used()).toBe(before + 5);
    expect((await server.json("/v1/lookup/batch", { method: "POST", headers: key, body })).status).toBe(200);
    expect(await used()).toBe(before + 8);
    expect((await server.json("/v1/lookup/batch?fields=nope", { method: "POST", headers: key, body })).status).toBe(400);
    expect(await used()).toBe(before + 8);
  });
});
