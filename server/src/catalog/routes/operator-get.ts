/**
 * GET /v1/operators/:id                          public projection for anonymous callers
 *
 * One operator with its networks, capabilities and number-range counts (full); anonymous callers get
 * id, country, name and its networks' public fields. The id of a near-duplicate merged into another
 * operator (operator-lineage.ts OPERATOR_MERGES) answers the survivor's record (docs/catalog.md
 * "Near-duplicates and listings").
 *
 * 200 {code: 0, data: OperatorDetail | PublicOperatorDetail, meta}     400 INVALID_REQUEST     404 NOT_FOUND
 */
import { z } from "zod";
import { OperatorDetail, PublicOperatorDetail } from "../../contract/catalog.ts";
import { AppError } from "../../errors.ts";
import { operatorDetail } from "../model/queries.ts";
import { OperatorIdParam } from "./params.ts";
import { defineCatalogRoute } from "./define.ts";

export const operatorGetRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/operators/:id",
  summary: "One operator with networks, capabilities and range counts",
  description: "An operator by id (e.g. cn.china-mobile). The id of a merged near-duplicate answers the surviving operator's record.",
  access: "public",
  input: { params: z.object({ id: OperatorIdParam }) },
  output: { full: OperatorDetail, public: PublicOperatorDetail },
  async handle({ env, version, input }) {
    const operator = await operatorDetail(env.db, version.seq, input.id);
    if (!operator) throw new AppError("NOT_FOUND", `No operator ${input.id}`);
    return operator;
  },
});
