import { z } from "zod";

export const ZSendTestEventRequest = z.strictObject({ id: z.string().max(64) });
/** Queued only means queued: the delivery's status tells whether the receiver accepted it. */
export const ZSendTestEventResponse = z.object({ delivery_id: z.string(), queued: z.literal(true) });
