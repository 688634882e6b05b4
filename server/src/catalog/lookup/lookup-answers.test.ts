import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NumberRange } from "../../contract/catalog.ts";
import { startTestServer, type TestServer } from "../../../testing/index.ts";
import { numberRanges } from "../model/entities.ts";
import type { Projection } from "../../data-api/route.ts";
import { jsonOf, NumberAnswers } from "./lookup-answers.ts";
import { buildLookupIndex, type LookupIndex } from "./lookup-index.ts";
import { findNumber, lookupNumber } from "./lookup.ts";
import { rangePartOf } from "./answer-parts.ts";
import { streamRecords } from "../model/queries.ts";
import { lookupRoute } from "../routes/lookup.ts";
import type { JsonOutput } from "../../data-api/route.ts";

/**
 * The projection guarantee of the prebuilt answers (issue 20): on every range of the reference
 * dataset, for both projections, the answer spliced from the range's fragment equals, byte for byte
 * (the bytes are served as they are, so key order counts), `JSON.stringify` of the /v1/lookup route's
 * own output schema (the union of number and IMSI answers, per projection) over `lookupNumber`.
 */
let server: TestServer;
let index: LookupIndex;
let ranges: NumberRange[];
const output = lookupRoute.output as JsonOutput;
const schemaOf = (projection: Projection) => (projection === "public" ? output.public! : output.full);
const PROJECTIONS: Projection[] = ["full", "public"];

beforeAll(async () => {
  server = await startTestServer({ dataset: "reference" });
  const { seq } = await server.deps.datasetMeta.pinned();
  index = await buildLookupIndex(server.deps.db, seq);
  ranges = [];
  for await (const record of streamRecords(server.deps.db, numberRanges, seq)) if ((record as NumberRange).plan === "e164") ranges.push(record as NumberRange);
}, 120_000);
afterAll(() => server.close());

/** Digits to try after a range's prefix: a number of the range libphonenumber calls valid and of a served type. */
const FILLERS = ["0", "1", "5", "9", "2", "8"];
/** A number whose longest match is `range`, or null when none of the candidates is one (shadowed, or no valid number). */
function numberOf(range: NumberRange): string | null {
  const starts = range.prefix !== null ? [range.prefix] : [range.start!, range.end!];
  for (const start of starts) {
    if (range.prefix === null && findNumber(index, `+${start}`).range?.id === range.id) return `+${start}`;
    for (let length = Math.max(start.length + 1, 8); length <= 15; length++) {
      for (const filler of FILLERS) {
        const candidate = `+${(start + filler.repeat(length)).slice(0, length)}`;
        if (findNumber(index, candidate).range?.id === range.id) return candidate;
      }
    }
  }
  return null;
}

describe("prebuilt number answers (lookup-answers.ts)", () => {
  it("equal the schema-parsed answer of lookupNumber on every range of the reference dataset, both projections, key order included", () => {
    expect(ranges.length).toBeGreaterThan(20_000);
    const answers = new NumberAnswers(index);
    let answered = 0;
    const unanswerable: NumberRange[] = [];
    for (const range of ranges) {
      const number = numberOf(range);
      if (number === null) {
        unanswerable.push(range);
        continue;
      }
      answered++;
      const found = findNumber(index, number);
      for (const projection of PROJECTIONS) {
        const expected = JSON.stringify(schemaOf(projection).parse(lookupNumber(index, number)));
        expect(answers.json(found, projection), `${projection} ${range.id} ${number}`).toBe(expected);
        // The second answer comes from the kept fragment.
        expect(answers.json(found, projection)).toBe(expected);
      }
    }
    // Ranges no valid number reaches (shadowed by a longer one, or holding no number of a served
    // type): their fragment still has to equal the schema over the same range part for a real number.
    const donor = findNumber(index, "+8613912345678");
    for (const range of unanswerable) {
      const own = { ...donor.own, country_iso2: range.country_iso2 };
      for (const projection of PROJECTIONS) {
        const expected = JSON.stringify(schemaOf(projection).parse({ ...own, ...rangePartOf(index, range, own.country_iso2) }));
        expect(answers.json({ own, range, reason: null }, projection), `${projection} ${range.id}`).toBe(expected);
      }
    }
    // Most ranges are reached by a real number (the figure is in docs/performance.md).
    expect(answered / ranges.length).toBeGreaterThan(0.8);
    console.info(`prebuilt answers: ${answered} ranges through a real number, ${unanswerable.length} through the range part`);
  }, 300_000);

  it("equal it for answers without a range: invalid, not a served type, no range, not even parseable, national with a country, other countries", () => {
    const answers = new NumberAnswers(index);
    const inputs: [string, string?][] = [
      ["+861391234567"], // too short
      ["+8613912345678999"], // too long
      ["+8640012345678"], // invalid
      ["+8680012345678"], // toll-free: not a served type
      ["+441134960000"], // fixed line
      ["+12"], // not parseable into a number
      ["+999123456789"], // no such calling code
      ["13912345678", "CN"],
      ["07400123456", "GB"],
      ["+14155552671"],
      ["+919876543210"],
      ["+5511987654321"],
      ["+8613912345678"],
    ];
    for (const [number, country] of inputs) {
      for (const projection of PROJECTIONS) {
        const expected = JSON.stringify(schemaOf(projection).parse(lookupNumber(index, number, country)));
        expect(answers.json(findNumber(index, number, country), projection), `${projection} ${number}`).toBe(expected);
      }
    }
  });
});

describe("jsonOf", () => {
  it("is JSON.stringify for every value, plain or not", () => {
    const pieces = ["", "a", "+86", "江苏", "😀", "\ud800", "\udc00", '"', "\\", "\n", "\u0000", "\u001f", " ", "\u2028", "Zürich", "fixed_line"];
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const values: unknown[] = [null, true, false, 0, 1.5, -3, [], ["a"], { a: 1 }, ...pieces];
    // The generator's high bits: its low bits repeat with a short period.
    const pick = (n: number) => (next() >>> 16) % n;
    for (let i = 0; i < 2000; i++) values.push(Array.from({ length: pick(5) }, () => pieces[pick(pieces.length)]).join(""));
    for (const value of values) expect(jsonOf(value), JSON.stringify(value)).toBe(JSON.stringify(value));
  });
});
