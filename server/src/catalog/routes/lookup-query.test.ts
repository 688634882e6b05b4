import { getQuery, type H3Event } from "h3";
import { describe, expect, it } from "vitest";
import { decodeEscapes, LookupQuery, plainLookupQuery } from "./lookup.ts";

/**
 * The lookup's hand reading of plain queries (`plainLookupQuery`, the route's `plainQuery` on node's
 * lane) against the reference: h3's query parser and the LookupQuery schema, as the app reads every
 * query. Wherever the hand reading answers, the schema must accept the same query and give the same
 * input (deep and strict: no extra or missing names); everything else it must leave to the schema.
 */
function reference(raw: string): { ok: true; input: unknown } | { ok: false } {
  const parsed = LookupQuery.safeParse(getQuery({ url: { search: `?${raw}` } } as H3Event));
  return parsed.success ? { ok: true, input: { ...parsed.data } } : { ok: false };
}

function agree(raw: string): "plain" | "schema" {
  const plain = plainLookupQuery(raw);
  if (plain === undefined) return "schema";
  const expected = reference(raw);
  expect(expected.ok, `${raw}: the schema refuses what the hand reading took`).toBe(true);
  if (expected.ok) expect(plain, raw).toStrictEqual(expected.input);
  return "plain";
}

describe("plain lookup queries read by hand", () => {
  it("takes what callers send, as the schema reads it", () => {
    const taken = [
      "number=%2B8613912345678",
      "number=%2B8613912345678&fields=number,country_iso2,valid,number_type,range_holder",
      "fields=number,valid&number=%2B447700900123",
      "number=13912345678&country=cn",
      "number=13912345678&country=CN&fields=operator.id,network.mcc",
      "imsi=460001234567890",
      "imsi=460001234567890&fields=mcc,mnc",
      "number=%20%2B8613912345678%20",
      "number=%2B86%20139%201234%205678",
      "number=(139)1234-5678&country=Cn",
      "fields=%20number%20,%20valid%20&number=%2B8613912345678",
      "imsi=%20460001234567890",
    ];
    for (const raw of taken) expect(agree(raw), raw).toBe("plain");
  });

  it("leaves the rest to the schema", () => {
    const left = [
      "",
      "number=+8613912345678",
      "number=%2B8613912345678&number=%2B8613912345679",
      "number=%2B8613912345678&imsi=460001234567890",
      "country=CN",
      "number=12",
      `number=${"1".repeat(33)}`,
      "number=%2B8613912345678&country=CHN",
      "number=%2B8613912345678&country=C1",
      "imsi=12345",
      "imsi=46000123456789012",
      "imsi=46000abc",
      "number=%2B8613912345678&fields=Number",
      "number=%2B8613912345678&fields=number,,valid",
      "number=%2B8613912345678&fields=",
      "number=%2B8613912345678&projection=public",
      "number=%2B8613912345678&",
      "&number=%2B8613912345678",
      "number",
      "number==%2B8613912345678",
      "number=%E0%A4%A",
      "%6Eumber=%2B8613912345678",
      "number=%2B8613912345678&fields=number&fields=valid",
    ];
    for (const raw of left) expect(agree(raw), raw).toBe("schema");
  });

  it("agrees with the schema on queries built from pieces", () => {
    const pieces = [
      "number=%2B8613912345678",
      "number=13912345678",
      "number=%20%20",
      "number=1",
      "number=%2B44%207700%20900123",
      "country=cn",
      "country=GB",
      "country=g",
      "country=%43N",
      "imsi=460001234567890",
      "imsi=4600",
      "imsi=%34%36%30001234567890",
      "fields=number",
      "fields=number,valid,operator.id",
      "fields=number.",
      "fields=%2Cnumber",
      "other=1",
      "number=%ZZ",
      "=x",
      "number=a=b",
    ];
    // Every ordered pair and triple: 20 + 400 + 8,000 queries.
    let taken = 0;
    const queries = [...pieces, ...pieces.flatMap((a) => pieces.map((b) => `${a}&${b}`))];
    queries.push(...queries.slice(pieces.length).flatMap((ab) => pieces.map((c) => `${ab}&${c}`)));
    for (const raw of queries) if (agree(raw) === "plain") taken++;
    // The hand reading must take some of them, or this test compares nothing.
    expect(taken).toBeGreaterThan(100);
  });
});

describe("query values percent-decoded by hand", () => {
  it("decodes as decodeURIComponent does, and throws where it throws", () => {
    // A fixed-seed generator, so that a failure replays.
    let seed = 34;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pieces = ["%2B", "%2b", "%20", "%25", "%7F", "%80", "%C3%A9", "%E4%B8%AD", "%E4%B8", "%", "%2", "%G1", "%2G", "%%", "86", "+", "a", "é", "中", "-", "."];
    const outcome = (decode: (value: string) => string, value: string) => {
      try {
        return { value: decode(value) };
      } catch (error) {
        return { throws: (error as Error).name };
      }
    };
    let compared = 0;
    for (let i = 0; i < 5000; i++) {
      const value = Array.from({ length: 1 + Math.floor(random() * 6) }, () => pieces[Math.floor(random() * pieces.length)]).join("");
      expect(outcome(decodeEscapes, value), value).toStrictEqual(outcome(decodeURIComponent, value));
      compared++;
    }
    for (let code = 0; code < 256; code++) {
      const value = `%${code.toString(16).padStart(2, "0")}x`;
      expect(outcome(decodeEscapes, value), value).toStrictEqual(outcome(decodeURIComponent, value));
    }
    expect(compared).toBe(5000);
  });
});
