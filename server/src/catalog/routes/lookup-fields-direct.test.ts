import { describe, expect, it } from "vitest";
import { directAnswersSuite } from "../../../testing/direct-answers.ts";

/**
 * `fields=` on POST /v1/lookup/batch: the direct handler (narrowed answers written from the range's
 * parts and only the number's own fields asked, lookup-answers.ts `writeSelected`) against the
 * generic one (`handle`, the output schema, then the route's `narrow` of the whole answer): the same
 * status, headers and bytes, each way counting alike. GET /v1/lookup's cases are in
 * lookup-direct.test.ts; the answers against the test's own narrowing in lookup-fields.test.ts.
 */
const suite = directAnswersSuite(1000);

const NUMBERS = ["+8613912345678", "not a number", "+447700900123", "+8680012345678", "+861391234", "+999123456789", "13912345678", "+8613312345678"];

describe("POST /v1/lookup/batch?fields=: direct and generic handlers answer alike", () => {
  it("narrowed items, error items, unknown and non-public names, every caller, with and without a country", async () => {
    const statuses = new Set<number>();
    for (const headers of [{}, suite.key, suite.alice.headers]) {
      for (const fields of ["number,valid,number_type,range_holder,operator.id,network.mcc", "formats.national,location,time_zones,range,source.id,validation_reason", "number,nope", "range_holder,networks.id", "", "number,,valid"]) {
        for (const body of [{ numbers: NUMBERS }, { numbers: NUMBERS, country: "CN" }]) {
          const [reference] = await suite.both(`/v1/lookup/batch?fields=${encodeURIComponent(fields)}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", ...headers } });
          statuses.add(reference.status);
        }
      }
    }
    expect([...statuses].sort()).toEqual([200, 400]);
  });
});
