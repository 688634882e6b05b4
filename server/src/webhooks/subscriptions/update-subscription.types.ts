import { z } from "zod";
import { SubscriptionCountries, SubscriptionEvents, SubscriptionOperators, WebhookSubscription, WebhookUrl } from "../../contract/webhooks.ts";

export const ZUpdateSubscriptionRequest = z.strictObject({
  id: z.string().max(64),
  url: WebhookUrl.optional(),
  events: SubscriptionEvents.optional(),
  countries: SubscriptionCountries.optional(),
  operators: SubscriptionOperators.optional(),
  enabled: z.boolean().optional(),
});
export const ZUpdateSubscriptionResponse = z.object({ item: WebhookSubscription });
export type TUpdateSubscriptionRequest = z.infer<typeof ZUpdateSubscriptionRequest>;
