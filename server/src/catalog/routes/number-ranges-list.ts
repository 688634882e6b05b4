/**
 * GET /v1/number-ranges?country=&operator=&kind=&plan=&prefix=&cursor=&limit=     API key or session
 *
 * Number ranges in id order. `prefix` lists the ranges whose digits (country code included) start
 * with it, e.g. prefix=86139. `range_holder` is the original holder, not the current carrier.
 *
 * 200 {code: 0, data: {items: NumberRange[], next_cursor}, meta}     400 INVALID_REQUEST     401 UNAUTHORIZED
 */
import { NumberKind, NumberPlan, NumberRange, pageOf } from "../../contract/catalog.ts";
import { listNumberRanges } from "../model/queries.ts";
import { CountryParam, Digits, ListQuery, OperatorIdParam } from "./params.ts";
import { defineCatalogRoute } from "./define.ts";

export const numberRangesListRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/number-ranges",
  summary: "List number ranges",
  description: "E.164 and E.212 ranges, filtered by country, operator, kind, plan and digit prefix, paged by cursor. Not available anonymously.",
  access: "credentials",
  input: {
    query: ListQuery.extend({
      country: CountryParam.optional(),
      operator: OperatorIdParam.optional(),
      kind: NumberKind.optional(),
      plan: NumberPlan.optional(),
      prefix: Digits("prefix", 1, 15).optional(),
    }),
  },
  output: { full: pageOf(NumberRange) },
  async handle({ env, input, pageAt }) {
    const { seq, after } = await pageAt(input.cursor);
    return listNumberRanges(env.db, seq, input, after, input.limit);
  },
});
