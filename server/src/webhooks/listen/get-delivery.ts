import { sessionProcedure } from "../../trpc/procedures.ts";
import type { WebhookEnv } from "../env.ts";
import { getListenDelivery } from "./deliveries.ts";
import { GetListenDeliveryRequest, GetListenDeliveryResponse } from "../../contract/listen.ts";

/** GET /console/listen-sessions/:id/deliveries/:deliveryId: the delivery, its attempts with the local answer, the event. */
export const getDeliveryProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(GetListenDeliveryRequest)
    .output(GetListenDeliveryResponse)
    .query(({ ctx, input }) => getListenDelivery(env, ctx.access.userId, input.id, input.deliveryId));
