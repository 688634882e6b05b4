import { sessionProcedure } from "../../trpc/procedures.ts";
import { webhookEnv } from "../env.ts";
import { getListenDelivery } from "./deliveries.ts";
import { ZGetDeliveryRequest, ZGetDeliveryResponse } from "./get-delivery.types.ts";

/** GET /console/listen-sessions/:id/deliveries/:deliveryId: the delivery, its attempts with the local answer, the event. */
export const getDeliveryProcedure = sessionProcedure
  .input(ZGetDeliveryRequest)
  .output(ZGetDeliveryResponse)
  .query(({ ctx, input }) => getListenDelivery(webhookEnv(ctx.deps), ctx.access.userId, input.id, input.deliveryId));
