import { z } from "zod";
import { TestEventRequest } from "../../contract/webhooks.ts";

/** The contract's call has no body; `event_type` (additive) asks for a sample of that type. */
export const ZSendTestEventRequest = z.strictObject({ id: z.string().max(64), ...TestEventRequest.shape });
/** Queued only means queued: the delivery's status tells whether the receiver accepted it. */
export const ZSendTestEventResponse = z.object({ delivery_id: z.string(), queued: z.literal(true) });
