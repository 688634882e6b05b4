import { sessionProcedure } from "../../trpc/procedures.ts";
import { retryDeliveries } from "./deliveries.ts";
import { webhookEnv } from "../env.ts";
import { ZRetryDeliveryRequest, ZRetryDeliveryResponse } from "./retry-delivery.types.ts";

/** POST /console/webhooks/:id/deliveries/:deliveryId/retry: queue it again with the same event id. */
export const retryDeliveryProcedure = sessionProcedure
  .input(ZRetryDeliveryRequest)
  .output(ZRetryDeliveryResponse)
  .mutation(async ({ ctx, input }) => {
    await retryDeliveries(webhookEnv(ctx.deps), ctx.access.userId, input.id, [input.deliveryId]);
    return { queued: true as const };
  });
