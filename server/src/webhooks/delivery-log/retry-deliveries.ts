import { sessionProcedure } from "../../trpc/procedures.ts";
import { retryDeliveries } from "./deliveries.ts";
import { webhookEnv } from "../env.ts";
import { ZRetryDeliveriesRequest, ZRetryDeliveriesResponse } from "./retry-deliveries.types.ts";

/** POST /console/webhooks/:id/deliveries/retry-batch: 1 to 20 ids, all of this subscription, or nothing is queued. */
export const retryDeliveriesProcedure = sessionProcedure
  .input(ZRetryDeliveriesRequest)
  .output(ZRetryDeliveriesResponse)
  .mutation(async ({ ctx, input }) => {
    const ids = await retryDeliveries(webhookEnv(ctx.deps), ctx.access.userId, input.id, input.delivery_ids);
    return { queued: ids.length, delivery_ids: ids };
  });
