import { z } from "zod";
import { DeliveryListQuery, WebhookDelivery } from "../../contract/webhooks.ts";

export const ZListDeliveriesRequest = z.strictObject({ id: z.string().max(64), ...DeliveryListQuery.shape });
export const ZListDeliveriesResponse = z.object({ items: z.array(WebhookDelivery), total: z.number().int(), next_cursor: z.string().nullable() });
