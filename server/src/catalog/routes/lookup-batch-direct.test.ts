import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { describe, expect, it } from "vitest";
import { directAnswersSuite, type Answer } from "../../../testing/direct-answers.ts";

/**
 * POST /v1/lookup/batch's direct answers (each item spliced from its range's prebuilt fragment,
 * route.ts `serialised`) against the generic way (`handle`, the union output schema, h3's
 * serialisation): the same requests through both apps over one server's state give the same status,
 * headers and body, byte for byte; only the date differs, and the rate limit's remaining count, which
 * must fall by one between the two (each way counts the attempt). Request ids are given inbound.
 */
const QUOTA = 400;
const suite = directAnswersSuite(QUOTA);

/** The same batch through the generic handler, then the direct one; the reference answer. */
async function both(body: string, headers: Record<string, string> = {}): Promise<Answer> {
  return (await suite.both("/v1/lookup/batch", { method: "POST", body, headers: { "content-type": "application/json", ...headers } }))[0];
}

// Valid (China mobile, UK mobile), toll-free (no range named), too short, unknown calling code, not a
// number, national without a country, an IMSI sent as a number (the batch takes numbers only),
// duplicates, a number with spaces: the item kinds a batch can hold.
const MIX = [
  "+8613912345678",
  "not a number",
  "+447700900123",
  "+8680012345678",
  "+861391234",
  "+999123456789",
  "13912345678",
  "460001234567890",
  "+8613912345678",
  "+86 139 1234 5678",
  "+8613312345678",
  "not a number",
];

describe("POST /v1/lookup/batch: direct and generic handlers answer alike", () => {
  it("a mix of valid, invalid, unanswerable, duplicate and error items, both projections, with and without a country", async () => {
    const session = suite.alice.headers;
    for (const [who, headers] of [["anonymous", {}], ["API key", suite.key], ["session", session]] as const) {
      for (const body of [{ numbers: MIX }, { numbers: MIX, country: "CN" }, { numbers: MIX, country: "GB" }, { numbers: ["+8613912345678"] }]) {
        const usedBefore = await suite.usedOf();
        const reference = await both(JSON.stringify(body), headers);
        expect(reference.status, who).toBe(200);
        const items = JSON.parse(reference.body).data.items as Array<{ number: string; error?: { code: string }; networks?: unknown }>;
        // Independent of the code under test: one item per number, in order, each number read as
        // libphonenumber reads it, an error exactly where it finds no number (here: not number-like,
        // or national without a country).
        expect(items).toHaveLength(body.numbers.length);
        body.numbers.forEach((n, i) => {
          const parsed = parsePhoneNumberFromString(n, body.country as never);
          expect(items[i]!.number, n).toBe(items[i]!.error ? n : (parsed?.number ?? items[i]!.number));
        });
        const errors = body.numbers.map((n) => !/^\+?[\d\s]+$/.test(n) || (!body.country && !n.startsWith("+")));
        expect(items.map((item) => item.error !== undefined)).toEqual(errors);
        // The public projection leaves out the range and its networks; the full one has them.
        const valid = items.find((item) => item.number === "+8613912345678" && !item.error)!;
        expect("networks" in valid && "range" in valid, who).toBe(who !== "anonymous");
        // Quota: one unit per number for each way's keyed or session success, nothing for anonymous.
        expect(await suite.usedOf(), who).toBe(usedBefore + (who === "anonymous" ? 0 : 2 * body.numbers.length));
      }
    }
  });

  it("bad batches: the same 400 and 415 bodies, nothing charged", async () => {
    const usedBefore = await suite.usedOf();
    const bad = [
      JSON.stringify({ numbers: [] }),
      JSON.stringify({ numbers: Array.from({ length: 101 }, () => "+8613912345678") }),
      JSON.stringify({ numbers: [12] }),
      JSON.stringify({ numbers: ["+8613912345678"], country: "CHN" }),
      JSON.stringify({ numbers: ["+8613912345678"], extra: 1 }),
      "{not json",
    ];
    const statuses = [];
    for (const body of bad) statuses.push((await both(body, suite.key)).status);
    statuses.push((await both("numbers=1", { ...suite.key, "content-type": "text/plain" })).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 415]);
    expect(await suite.usedOf()).toBe(usedBefore);
  });

  it("the bound: 100 numbers answer alike and cost 100 units each way", async () => {
    const numbers = Array.from({ length: 100 }, (_, i) => `+86139${String(12345600 + i)}`);
    const usedBefore = await suite.usedOf();
    const reference = await both(JSON.stringify({ numbers }), suite.key);
    expect(JSON.parse(reference.body).data.items).toHaveLength(100);
    expect(await suite.usedOf()).toBe(usedBefore + 200);
  });

  it("over quota: a batch that does not fit is refused alike (429 QUOTA_EXCEEDED), nothing charged", async () => {
    const left = QUOTA - (await suite.usedOf());
    expect(left, "the test starts under its quota").toBeGreaterThan(2);
    // Fill the quota to one unit short of a 2-number batch; a single number still fits.
    for (let used = await suite.usedOf(); QUOTA - used > 1; used = await suite.usedOf()) {
      const n = Math.min(100, QUOTA - used - 1);
      await suite.server.json("/v1/lookup/batch", { method: "POST", headers: suite.key, body: { numbers: Array.from({ length: n }, () => "+8613912345678") } });
    }
    const refused = await both(JSON.stringify({ numbers: ["+8613912345678", "+447700900123"] }), suite.key);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).code).toBe("QUOTA_EXCEEDED");
    expect(await suite.usedOf()).toBe(QUOTA - 1);
  });
});
