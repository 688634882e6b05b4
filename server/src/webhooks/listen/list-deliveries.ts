import { sessionProcedure } from "../../trpc/procedures.ts";
import { webhookEnv } from "../env.ts";
import { listListenDeliveries } from "./deliveries.ts";
import { ZListDeliveriesRequest, ZListDeliveriesResponse } from "./list-deliveries.types.ts";

/** GET /console/listen-sessions/:id/deliveries: newest first, paged and filtered like a subscription's. */
export const listDeliveriesProcedure = sessionProcedure
  .input(ZListDeliveriesRequest)
  .output(ZListDeliveriesResponse)
  .query(({ ctx, input: { id, ...query } }) => listListenDeliveries(webhookEnv(ctx.deps), ctx.access.userId, id, query));
