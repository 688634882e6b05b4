import { sessionProcedure } from "../../trpc/procedures.ts";
import { webhookEnv } from "../env.ts";
import { triggerListenEvent } from "./deliveries.ts";
import { announceListenDeliveries } from "./hub.ts";
import { ZTriggerEventRequest, ZTriggerEventResponse } from "./trigger-event.types.ts";

/**
 * POST /console/listen-sessions/trigger: a test event of `event_type` (test: true, realistic data) to
 * every open listen session of the account; 409 when none is open.
 */
export const triggerEventProcedure = sessionProcedure
  .input(ZTriggerEventRequest)
  .output(ZTriggerEventResponse)
  .mutation(async ({ ctx, input }) => {
    const { event, deliveries } = await triggerListenEvent(webhookEnv(ctx.deps), ctx.access.userId, input.event_type);
    await announceListenDeliveries(ctx.deps, deliveries.map((d) => d.session_id));
    return { event_id: event.id, event_type: event.type, deliveries, queued: true as const };
  });
