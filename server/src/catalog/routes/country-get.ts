/**
 * GET /v1/countries/:iso2                        public (same for every caller)
 *
 * One country with the operators serving it (filed under it or serving it as one of their
 * territories), public operator fields.
 *
 * 200 {code: 0, data: CountryDetail, meta}     400 INVALID_REQUEST (not alpha-2)     404 NOT_FOUND
 */
import { z } from "zod";
import { CountryDetail } from "../../contract/catalog.ts";
import { AppError } from "../../errors.ts";
import { countryOperators, getCountry } from "../model/queries.ts";
import { CountryParam } from "./params.ts";
import { defineCatalogRoute } from "./define.ts";

export const countryGetRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/countries/:iso2",
  summary: "One country",
  description:
    "A country by ISO 3166-1 alpha-2 code (case-insensitive), with the operators serving it: those filed under it and those whose territories include it (e.g. Réunion's operators under YT).",
  access: "public",
  input: { params: z.object({ iso2: CountryParam }) },
  output: { full: CountryDetail, public: CountryDetail },
  async handle({ env, version, input }) {
    const country = await getCountry(env.db, version.seq, input.iso2);
    if (!country) throw new AppError("NOT_FOUND", `No country ${input.iso2}`);
    const operators = await countryOperators(env.db, version.seq, input.iso2);
    return { ...country, operators: operators.map((o) => ({ id: o.id, country_iso2: o.country_iso2, name: o.name })) };
  },
});
