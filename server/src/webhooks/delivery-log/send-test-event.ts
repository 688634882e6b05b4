import { sessionProcedure } from "../../trpc/procedures.ts";
import type { WebhookEnv } from "../env.ts";
import { SendTestEventRequest, SendTestEventResponse } from "../../contract/webhooks.ts";
import { queueTestEvent } from "../subscriptions/subscriptions.ts";

/**
 * POST /console/webhooks/:id/test: queue an event with test: true; no body gives the subscription's
 * first type with a summary, `{event_type}` a realistic sample of that type.
 */
export const sendTestEventProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(SendTestEventRequest)
    .output(SendTestEventResponse)
    .mutation(async ({ ctx, input }) => {
      const { deliveryId } = await queueTestEvent(env, ctx.access.userId, input.id, { version: await env.catalogVersion() }, input.event_type);
      return { delivery_id: deliveryId, queued: true as const };
    });
