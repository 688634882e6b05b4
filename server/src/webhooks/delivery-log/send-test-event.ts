import { sessionProcedure } from "../../trpc/procedures.ts";
import { webhookEnv } from "../env.ts";
import { ZSendTestEventRequest, ZSendTestEventResponse } from "./send-test-event.types.ts";
import { queueTestEvent } from "../subscriptions/subscriptions.ts";

/**
 * POST /console/webhooks/:id/test: queue an event with test: true; no body gives the subscription's
 * first type with a summary, `{event_type}` a realistic sample of that type.
 */
export const sendTestEventProcedure = sessionProcedure
  .input(ZSendTestEventRequest)
  .output(ZSendTestEventResponse)
  .mutation(async ({ ctx, input }) => {
    const meta = await ctx.deps.datasetMeta.current();
    const { deliveryId } = await queueTestEvent(webhookEnv(ctx.deps), ctx.access.userId, input.id, { version: meta.dataset_version }, input.event_type);
    return { delivery_id: deliveryId, queued: true as const };
  });
