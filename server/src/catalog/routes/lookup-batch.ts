/**
 * POST /v1/lookup/batch                          public projection for anonymous callers
 * {"numbers": ["+8613912345678", "13312345678"], "country": "CN"}
 *
 * Up to 100 phone numbers in one request, answered in order. A number that does not parse is an item
 * with `error: {code, message}`; the batch itself succeeds. Quota cost: one unit per number (a batch of
 * 40 costs 40), as if each were looked up alone; the rate limit counts the request once.
 * `?fields=` (a query parameter, as on GET /v1/lookup, so one URL parameter selects on both routes and
 * the body stays the list of numbers) narrows every number's answer; an error item stays whole.
 *
 * 200 {code: 0, data: {items: (NumberLookup | PublicNumberLookup | {number, error})[]}, meta}
 * 400 INVALID_REQUEST (no numbers, more than 100, not strings)     415 not JSON
 */
import { z } from "zod";
import { BatchLookupItemError, LookupFields, NumberLookup, PublicNumberLookup } from "../../contract/catalog.ts";
import { lookupFields, project } from "../lookup/answer-fields.ts";
import { AppError } from "../../errors.ts";
import type { FoundNumber } from "../lookup/answer-parts.ts";
import { findNumber, lookupNumber } from "../lookup/lookup.ts";
import { CountryParam } from "./params.ts";
import { defineCatalogRoute } from "./define.ts";

export const BATCH_LOOKUP_MAX = 100;

export const lookupBatchRoute = defineCatalogRoute({
  method: "POST",
  path: "/v1/lookup/batch",
  summary: "Look up to 100 phone numbers",
  description: `Up to ${BATCH_LOOKUP_MAX} numbers in one request, answered in order; invalid numbers are items with an error. Costs one quota unit per number.`,
  access: "public",
  input: {
    query: z.object({
      fields: LookupFields.optional().describe(
        "Answer only these fields of each number's answer (as on GET /v1/lookup: comma-separated top-level fields and dotted sub-fields); an item with an error stays whole. Fields and their costs: docs/api.md \"Lookup fields\".",
      ),
    }),
    body: z.strictObject({
      numbers: z.array(z.string().trim().min(1).max(32)).min(1).max(BATCH_LOOKUP_MAX),
      country: CountryParam.optional(),
    }),
  },
  cost: (input) => input.numbers.length,
  output: {
    full: z.object({ items: z.array(z.union([NumberLookup, BatchLookupItemError])) }),
    public: z.object({ items: z.array(z.union([PublicNumberLookup, BatchLookupItemError])) }),
  },
  async handle({ env, input, version }) {
    const index = await env.lookupIndexes.at(version.seq);
    return {
      items: input.numbers.map((number) => {
        try {
          return lookupNumber(index, number, input.country);
        } catch (error) {
          return itemErrorOf(number, error);
        }
      }),
    };
  },
  // Each number's answer spliced from its range's prebuilt fragment and its own fields, as GET
  // /v1/lookup does (lookup-answers.ts), into one buffer. The output schema's union takes the
  // number answer first, so a number's item is the number schema's text; an error item is parsed by
  // its own schema (lookup-batch-direct.test.ts compares the bytes with `handle` + the union schema).
  narrow(input, projection, data) {
    if (input.fields === undefined) return data;
    const { fields } = lookupFields("number", projection, input.fields);
    const { items } = data as { items: object[] };
    return { items: items.map((item) => ("error" in item ? item : project(item, fields))) };
  },
  async serialised({ env, input, version }, projection, _schema, out) {
    // The selection first: a field the caller may not ask for is refused before any work.
    const selection = input.fields === undefined ? null : lookupFields("number", projection, input.fields);
    const index = await env.lookupIndexes.at(version.seq);
    out.text('{"items":[');
    input.numbers.forEach((number, i) => {
      if (i > 0) out.text(",");
      let found: FoundNumber;
      try {
        found = findNumber(index, number, input.country, selection?.needs);
      } catch (error) {
        out.text(JSON.stringify(BatchLookupItemError.parse(itemErrorOf(number, error))));
        return;
      }
      if (selection === null) index.answers.write(found, projection, out);
      else index.answers.writeSelected(found, projection, selection, out);
    });
    out.text("]}");
  },
});

/** A number the lookup refuses (not a phone number, national without a country) is an item with its error; anything else is the batch's failure. */
function itemErrorOf(number: string, error: unknown): z.infer<typeof BatchLookupItemError> {
  if (error instanceof AppError) return { number, error: { code: error.code, message: error.message } };
  throw error;
}
