import { z } from "zod";

export const ZRetryDeliveryRequest = z.strictObject({ id: z.string().max(64), deliveryId: z.string().max(64) });
export const ZRetryDeliveryResponse = z.object({ queued: z.literal(true) });
