import { sessionProcedure } from "../../trpc/procedures.ts";
import type { WebhookEnv } from "../env.ts";
import { updateSubscription } from "./subscriptions.ts";
import { UpdateSubscriptionRequest, UpdateSubscriptionResponse } from "../../contract/webhooks.ts";

/** PATCH /console/webhooks/:id: change the URL or filters, or enable/disable (disabling cancels pending deliveries). */
export const updateSubscriptionProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(UpdateSubscriptionRequest)
    .output(UpdateSubscriptionResponse)
    .mutation(async ({ ctx, input: { id, ...patch } }) => ({ item: await updateSubscription(env, ctx.access.userId, id, patch) }));
