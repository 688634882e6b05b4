import { z } from "zod";
import { LIMITS } from "../../contract/limits.ts";

export const ZRetryDeliveriesRequest = z.strictObject({
  id: z.string().max(64),
  delivery_ids: z.array(z.string().max(64)).min(LIMITS.retryBatchIds.min).max(LIMITS.retryBatchIds.max),
});
export const ZRetryDeliveriesResponse = z.object({ queued: z.number().int(), delivery_ids: z.array(z.string()) });
