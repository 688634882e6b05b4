import { z } from "zod";

export const ZDeleteSubscriptionRequest = z.strictObject({ id: z.string().max(64) });
export const ZDeleteSubscriptionResponse = z.object({ deleted: z.literal(true) });
