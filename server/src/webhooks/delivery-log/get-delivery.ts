import { sessionProcedure } from "../../trpc/procedures.ts";
import { getDelivery } from "./deliveries.ts";
import { webhookEnv } from "../env.ts";
import { ZGetDeliveryRequest, ZGetDeliveryResponse } from "./get-delivery.types.ts";

/** GET /console/webhooks/:id/deliveries/:deliveryId: the delivery, every attempt in order, and the event. */
export const getDeliveryProcedure = sessionProcedure
  .input(ZGetDeliveryRequest)
  .output(ZGetDeliveryResponse)
  .query(({ ctx, input }) => getDelivery(webhookEnv(ctx.deps), ctx.access.userId, input.id, input.deliveryId));
