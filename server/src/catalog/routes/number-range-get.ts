/**
 * GET /v1/number-ranges/:id                      API key or session
 *
 * 200 {code: 0, data: NumberRange, meta}     401 UNAUTHORIZED     404 NOT_FOUND
 */
import { z } from "zod";
import { NumberRange } from "../../contract/catalog.ts";
import { AppError } from "../../errors.ts";
import { getNumberRange } from "../model/queries.ts";
import { defineCatalogRoute } from "./define.ts";

export const numberRangeGetRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/number-ranges/:id",
  summary: "One number range",
  description: "A number range by id (e.g. e164-86139).",
  access: "credentials",
  input: { params: z.object({ id: z.string().regex(/^e(164|212)-[0-9-]{1,60}$/, "must be a range id such as e164-86139") }) },
  output: { full: NumberRange },
  async handle({ env, version, input }) {
    const range = await getNumberRange(env.db, version.seq, input.id);
    if (!range) throw new AppError("NOT_FOUND", `No number range ${input.id}`);
    return range;
  },
});
