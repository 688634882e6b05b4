/**
 * GET /v1/networks?country=&operator=&mcc=&mnc=&tadig=&cursor=&limit=     public projection for anonymous callers
 *
 * 200 {code: 0, data: {items: Network[] | PublicNetwork[], next_cursor}, meta}     400 INVALID_REQUEST
 */
import { z } from "zod";
import { Network, PublicNetwork, pageOf } from "../../contract/catalog.ts";
import { listNetworks } from "../model/queries.ts";
import { CountryParam, Digits, ListQuery, OperatorIdParam } from "./params.ts";
import { defineCatalogRoute } from "./define.ts";

export const networksListRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/networks",
  summary: "List networks (PLMNs)",
  description: "Networks by MCC-MNC, filtered by country, operator, MCC, MNC or TADIG code, paged by cursor.",
  access: "public",
  input: {
    query: ListQuery.extend({
      country: CountryParam.optional(),
      operator: OperatorIdParam.optional(),
      mcc: Digits("mcc", 3, 3).optional(),
      mnc: Digits("mnc", 2, 3).optional(),
      tadig: z.string().regex(/^[A-Z]{3}[A-Z0-9]{2}$/, "must be a TADIG code such as CHNCT").optional(),
    }),
  },
  output: { full: pageOf(Network), public: pageOf(PublicNetwork) },
  async handle({ env, input, pageAt }) {
    const { seq, after } = await pageAt(input.cursor);
    return listNetworks(env.db, seq, input, after, input.limit);
  },
});
