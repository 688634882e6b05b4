import { sessionProcedure } from "../../trpc/procedures.ts";
import { retryDeliveries } from "./deliveries.ts";
import type { WebhookEnv } from "../env.ts";
import { RetryDeliveryRequest, RetryDeliveryResponse } from "../../contract/webhooks.ts";

/** POST /console/webhooks/:id/deliveries/:deliveryId/retry: queue it again with the same event id. */
export const retryDeliveryProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(RetryDeliveryRequest)
    .output(RetryDeliveryResponse)
    .mutation(async ({ ctx, input }) => {
      await retryDeliveries(env, ctx.access.userId, input.id, [input.deliveryId]);
      return { queued: true as const };
    });
