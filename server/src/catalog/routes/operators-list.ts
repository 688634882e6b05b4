/**
 * GET /v1/operators?country=CN&q=mobile&cursor=…&limit=100     public projection for anonymous callers
 *
 * Operators in id order, filtered by country (the operator's own or one of its territories) and by a
 * case-insensitive search in name, brand and local name; rows that are no operator (`listed: false`:
 * test, unassigned, composite) are left out. Pages are pinned to the dataset version of the first page.
 *
 * 200 {code: 0, data: {items: Operator[] | PublicOperator[], next_cursor}, meta}     400 INVALID_REQUEST
 */
import { z } from "zod";
import { Operator, PublicOperator, pageOf } from "../../contract/catalog.ts";
import { listOperators } from "../model/queries.ts";
import { CountryParam, ListQuery } from "./params.ts";
import { defineCatalogRoute } from "./define.ts";

export const operatorsListRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/operators",
  summary: "List operators",
  description:
    "Operators, filtered by country (an operator is found under its own country and every territory it serves, `territories`) and a search text (q, at least 2 characters), paged by cursor. Test, unassigned and composite rows (listed: false) are left out; they still resolve by id.",
  access: "public",
  input: { query: ListQuery.extend({ country: CountryParam.optional(), q: z.string().trim().min(2).max(100).optional() }) },
  output: { full: pageOf(Operator), public: pageOf(PublicOperator) },
  async handle({ env, input, pageAt }) {
    const { seq, after } = await pageAt(input.cursor);
    return listOperators(env.db, seq, { country: input.country, q: input.q }, after, input.limit);
  },
});
