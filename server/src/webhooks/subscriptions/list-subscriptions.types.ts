import { z } from "zod";
import { WebhookSubscription } from "../../contract/webhooks.ts";

export const ZListSubscriptionsRequest = z.strictObject({}).optional();
export const ZListSubscriptionsResponse = z.object({ items: z.array(WebhookSubscription) });
export type TListSubscriptionsResponse = z.infer<typeof ZListSubscriptionsResponse>;
