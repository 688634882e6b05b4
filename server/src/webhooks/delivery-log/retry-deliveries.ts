import { sessionProcedure } from "../../trpc/procedures.ts";
import { retryDeliveries } from "./deliveries.ts";
import type { WebhookEnv } from "../env.ts";
import { RetryDeliveriesRequest, RetryDeliveriesResponse } from "../../contract/webhooks.ts";

/** POST /console/webhooks/:id/deliveries/retry-batch: 1 to 20 ids, all of this subscription, or nothing is queued. */
export const retryDeliveriesProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(RetryDeliveriesRequest)
    .output(RetryDeliveriesResponse)
    .mutation(async ({ ctx, input }) => {
      const ids = await retryDeliveries(env, ctx.access.userId, input.id, input.delivery_ids);
      return { queued: ids.length, delivery_ids: ids };
    });
