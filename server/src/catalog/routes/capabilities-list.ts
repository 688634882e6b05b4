/**
 * GET /v1/capabilities?country=&operator=&network=&name=&cursor=&limit=     API key or session
 *
 * 200 {code: 0, data: {items: Capability[], next_cursor}, meta}     400 INVALID_REQUEST     401 UNAUTHORIZED
 */
import { z } from "zod";
import { Capability, pageOf } from "../../contract/catalog.ts";
import { listCapabilities } from "../model/queries.ts";
import { CountryParam, ListQuery, NetworkIdParam, OperatorIdParam } from "./params.ts";
import { defineCatalogRoute } from "./define.ts";

export const capabilitiesListRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/capabilities",
  summary: "List capabilities",
  description: "Network and operator capabilities (radio technologies, CAMEL, LTE roaming, VoLTE, 5G, SMS …), filtered, paged by cursor. Not available anonymously.",
  access: "credentials",
  input: {
    query: ListQuery.extend({
      country: CountryParam.optional(),
      operator: OperatorIdParam.optional(),
      network: NetworkIdParam.optional(),
      name: z.string().regex(/^[a-z0-9_]+(?:\.[a-z0-9_]+)+$/, "must be a capability name such as volte.s8hr").optional(),
    }),
  },
  output: { full: pageOf(Capability) },
  async handle({ env, input, pageAt }) {
    const { seq, after } = await pageAt(input.cursor);
    return listCapabilities(env.db, seq, input, after, input.limit);
  },
});
