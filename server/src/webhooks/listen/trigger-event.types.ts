import { z } from "zod";
import { EventType } from "../../contract/events.ts";

export const ZTriggerEventRequest = z.strictObject({ event_type: EventType });
export const ZTriggerEventResponse = z.object({
  event_id: z.string(),
  event_type: EventType,
  /** One delivery per open session of the account. */
  deliveries: z.array(z.object({ session_id: z.string(), delivery_id: z.string() })),
  /** Queued only means queued: each delivery's record says what the local receiver answered. */
  queued: z.literal(true),
});
