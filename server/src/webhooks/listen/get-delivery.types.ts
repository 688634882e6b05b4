import { z } from "zod";
import { EventPayload } from "../../contract/events.ts";
import { WebhookAttempt, WebhookDelivery } from "../../contract/webhooks.ts";

export const ZGetDeliveryRequest = z.strictObject({ id: z.string().max(64), deliveryId: z.string().max(64) });
export const ZGetDeliveryResponse = z.object({ item: WebhookDelivery, attempts: z.array(WebhookAttempt), event: EventPayload });
