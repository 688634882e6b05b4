/**
 * GET /v1/networks/:id                           public projection for anonymous callers
 *
 * 200 {code: 0, data: Network | PublicNetwork, meta}     400 INVALID_REQUEST (not MCC-MNC)     404 NOT_FOUND
 */
import { z } from "zod";
import { Network, PublicNetwork } from "../../contract/catalog.ts";
import { AppError } from "../../errors.ts";
import { getNetwork } from "../model/queries.ts";
import { NetworkIdParam } from "./params.ts";
import { defineCatalogRoute } from "./define.ts";

export const networkGetRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/networks/:id",
  summary: "One network",
  description: "A network by MCC-MNC (e.g. 460-00).",
  access: "public",
  input: { params: z.object({ id: NetworkIdParam }) },
  output: { full: Network, public: PublicNetwork },
  async handle({ env, version, input }) {
    const network = await getNetwork(env.db, version.seq, input.id);
    if (!network) throw new AppError("NOT_FOUND", `No network ${input.id}`);
    return network;
  },
});
