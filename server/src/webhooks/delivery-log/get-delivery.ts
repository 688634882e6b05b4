import { sessionProcedure } from "../../trpc/procedures.ts";
import { getDelivery } from "./deliveries.ts";
import type { WebhookEnv } from "../env.ts";
import { GetDeliveryRequest, GetDeliveryResponse } from "../../contract/webhooks.ts";

/** GET /console/webhooks/:id/deliveries/:deliveryId: the delivery, every attempt in order, and the event. */
export const getDeliveryProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(GetDeliveryRequest)
    .output(GetDeliveryResponse)
    .query(({ ctx, input }) => getDelivery(env, ctx.access.userId, input.id, input.deliveryId));
