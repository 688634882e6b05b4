import { z } from "zod";
import { SubscriptionCountries, SubscriptionEvents, SubscriptionOperators, WebhookSubscription, WebhookUrl } from "../../contract/webhooks.ts";

export const ZCreateSubscriptionRequest = z.strictObject({
  url: WebhookUrl,
  events: SubscriptionEvents,
  countries: SubscriptionCountries.optional(),
  operators: SubscriptionOperators.optional(),
});
/** The secret is shown here and at rotation only. */
export const ZCreateSubscriptionResponse = z.object({ item: WebhookSubscription, secret: z.string() });
export type TCreateSubscriptionRequest = z.infer<typeof ZCreateSubscriptionRequest>;
export type TCreateSubscriptionResponse = z.infer<typeof ZCreateSubscriptionResponse>;
