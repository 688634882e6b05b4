import { sessionProcedure } from "../../trpc/procedures.ts";
import { webhookEnv } from "../env.ts";
import { updateSubscription } from "./subscriptions.ts";
import { ZUpdateSubscriptionRequest, ZUpdateSubscriptionResponse } from "./update-subscription.types.ts";

/** PATCH /console/webhooks/:id: change the URL or filters, or enable/disable (disabling cancels pending deliveries). */
export const updateSubscriptionProcedure = sessionProcedure
  .input(ZUpdateSubscriptionRequest)
  .output(ZUpdateSubscriptionResponse)
  .mutation(async ({ ctx, input: { id, ...patch } }) => ({ item: await updateSubscription(webhookEnv(ctx.deps), ctx.access.userId, id, patch) }));
