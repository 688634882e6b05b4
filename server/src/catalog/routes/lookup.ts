/**
 * GET /v1/lookup?number=+8613912345678          public projection for anonymous callers
 * GET /v1/lookup?number=13912345678&country=CN
 * GET /v1/lookup?imsi=460001234567890
 *
 * A phone number (E.164, or national with `country`) by longest-prefix match over the number ranges:
 * country, range holder, operator, network, range and kind. Or an IMSI by MCC + MNC (and IR.21 IMSI
 * sub-ranges). Exactly one of `number` and `imsi`. A number no range matches is an answer with null
 * range and operator, not an error. `range_holder` is the original holder of the range, not the
 * current carrier (numbers are ported).
 *
 * 200 {code: 0, data: NumberLookup | PublicNumberLookup | ImsiLookup | PublicImsiLookup, meta}
 * 400 INVALID_REQUEST (neither or both, not a phone number, not an IMSI)
 */
import { z } from "zod";
import { ImsiLookup, NumberLookup, PublicImsiLookup, PublicNumberLookup } from "../../contract/catalog.ts";
import { findNumber, lookupImsi, lookupNumber } from "../lookup/lookup.ts";
import { CountryParam } from "./params.ts";
import { defineCatalogRoute } from "./define.ts";

export const LookupQuery = z
  .object({
    number: z.string().trim().min(3).max(32).optional(),
    country: CountryParam.optional(),
    imsi: z.string().trim().regex(/^\d{6,15}$/, "must be 6 to 15 digits (MCC + MNC + MSIN)").optional(),
  })
  .refine((q) => (q.number === undefined) !== (q.imsi === undefined), { message: "give exactly one of number and imsi", path: ["number"] });

export const lookupRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/lookup",
  summary: "Look up a phone number or an IMSI",
  description:
    "Longest-prefix match of a phone number (E.164, or national with country) over the number ranges, or an IMSI by MCC+MNC. range_holder is the original range holder; ported numbers are not reflected.",
  access: "public",
  input: { query: LookupQuery },
  output: { full: z.union([NumberLookup, ImsiLookup]), public: z.union([PublicNumberLookup, PublicImsiLookup]) },
  async handle({ env, input, version }) {
    const index = await env.lookupIndexes.at(version.seq);
    return input.imsi !== undefined ? lookupImsi(index, input.imsi) : lookupNumber(index, input.number!, input.country);
  },
  // A number's answer spliced from its range's prebuilt fragment and its own fields (lookup-answers.ts);
  // an IMSI's answer the generic way.
  async serialised({ env, input, version }, projection, schema, out) {
    const index = await env.lookupIndexes.at(version.seq);
    if (input.imsi !== undefined) out.text(JSON.stringify(schema.parse(lookupImsi(index, input.imsi))));
    else index.answers.write(findNumber(index, input.number!, input.country), projection, out);
  },
});
