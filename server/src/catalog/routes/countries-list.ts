/**
 * GET /v1/countries                              public (same for every caller)
 *
 * Every country of the dataset (about 250, one page): ISO codes, names (en, zh), calling codes, MCCs.
 * `ZZ` groups international (non-geographic) numbers and networks.
 *
 * 200 {code: 0, data: {items: Country[]}, meta}
 */
import { z } from "zod";
import { Country } from "../../contract/catalog.ts";
import { listCountries } from "../model/queries.ts";
import { defineCatalogRoute } from "./define.ts";

const Output = z.object({ items: z.array(Country) });

export const countriesListRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/countries",
  summary: "List countries",
  description: "All countries in one page, with calling codes and MCCs. Countries are public reference data.",
  access: "public",
  input: {},
  output: { full: Output, public: Output },
  async handle({ env, version }) {
    return { items: await listCountries(env.db, version.seq) };
  },
});
