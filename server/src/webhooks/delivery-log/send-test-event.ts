import { sessionProcedure } from "../../trpc/procedures.ts";
import { webhookEnv } from "../env.ts";
import { ZSendTestEventRequest, ZSendTestEventResponse } from "./send-test-event.types.ts";
import { queueTestEvent } from "../subscriptions/subscriptions.ts";

/** POST /console/webhooks/:id/test: queue an event with test: true and a summary. */
export const sendTestEventProcedure = sessionProcedure
  .input(ZSendTestEventRequest)
  .output(ZSendTestEventResponse)
  .mutation(async ({ ctx, input }) => {
    const meta = await ctx.deps.datasetMeta.current();
    const { deliveryId } = await queueTestEvent(webhookEnv(ctx.deps), ctx.access.userId, input.id, { version: meta.dataset_version });
    return { delivery_id: deliveryId, queued: true as const };
  });
