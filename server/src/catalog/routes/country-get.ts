/**
 * GET /v1/countries/:iso2                        public (same for every caller)
 *
 * 200 {code: 0, data: Country, meta}     400 INVALID_REQUEST (not alpha-2)     404 NOT_FOUND
 */
import { z } from "zod";
import { Country } from "../../contract/catalog.ts";
import { AppError } from "../../errors.ts";
import { getCountry } from "../queries.ts";
import { CountryParam } from "./params.ts";
import { defineRoute } from "./route.ts";

export const countryGetRoute = defineRoute({
  method: "GET",
  path: "/v1/countries/:iso2",
  summary: "One country",
  description: "A country by ISO 3166-1 alpha-2 code (case-insensitive).",
  access: "public",
  input: { params: z.object({ iso2: CountryParam }) },
  output: { full: Country, public: Country },
  async handle({ deps, version, input }) {
    const country = await getCountry(deps.db, version.seq, input.iso2);
    if (!country) throw new AppError("NOT_FOUND", `No country ${input.iso2}`);
    return country;
  },
});
