import { z } from "zod";

/**
 * What the forwarder saw when it POSTed a delivery to the local receiver: its status (or null and an
 * error when no answer came), how long it took, its headers and the start of its body. The server
 * keeps at most 4 KiB of body and redacts credentials (docs/webhooks.md "What the receiver answered").
 */
export const ZReportDeliveryRequest = z.strictObject({
  id: z.string().max(64),
  deliveryId: z.string().max(64),
  status: z.number().int().min(100).max(599).nullable(),
  duration_ms: z.number().int().min(0).max(3_600_000),
  headers: z.record(z.string().max(256), z.string().max(8192)).optional(),
  body: z.string().max(16_384).optional(),
  body_truncated: z.boolean().optional(),
  error: z.string().max(2048).nullable().optional(),
});
export const ZReportDeliveryResponse = z.object({ recorded: z.literal(true), status: z.enum(["delivered", "failed"]) });
