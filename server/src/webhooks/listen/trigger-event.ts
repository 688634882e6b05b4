import { sessionProcedure } from "../../trpc/procedures.ts";
import type { WebhookEnv } from "../env.ts";
import { triggerListenEvent } from "./deliveries.ts";
import { announceListenDeliveries } from "./hub.ts";
import { TriggerListenEventRequest, TriggerListenEventResponse } from "../../contract/listen.ts";

/**
 * POST /console/listen-sessions/trigger: a test event of `event_type` (test: true, realistic data) to
 * every open listen session of the account; 409 when none is open.
 */
export const triggerEventProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(TriggerListenEventRequest)
    .output(TriggerListenEventResponse)
    .mutation(async ({ ctx, input }) => {
      const { event, deliveries } = await triggerListenEvent(env, ctx.access.userId, input.event_type);
      await announceListenDeliveries(env, deliveries.map((d) => d.session_id));
      return { event_id: event.id, event_type: event.type, deliveries, queued: true as const };
    });
