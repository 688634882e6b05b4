import { sessionProcedure } from "../../trpc/procedures.ts";
import { listDeliveries } from "./deliveries.ts";
import { webhookEnv } from "../env.ts";
import { ZListDeliveriesRequest, ZListDeliveriesResponse } from "./list-deliveries.types.ts";

/** GET /console/webhooks/:id/deliveries: newest first, cursor-paged, filtered by status and event id. */
export const listDeliveriesProcedure = sessionProcedure
  .input(ZListDeliveriesRequest)
  .output(ZListDeliveriesResponse)
  .query(({ ctx, input: { id, ...query } }) => listDeliveries(webhookEnv(ctx.deps), ctx.access.userId, id, query));
