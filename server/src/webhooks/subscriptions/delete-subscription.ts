import { sessionProcedure } from "../../trpc/procedures.ts";
import { DeleteSubscriptionRequest, DeleteSubscriptionResponse } from "../../contract/webhooks.ts";
import type { WebhookEnv } from "../env.ts";
import { deleteSubscription } from "./subscriptions.ts";

/** DELETE /console/webhooks/:id: the subscription, its deliveries and their attempts. */
export const deleteSubscriptionProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(DeleteSubscriptionRequest)
    .output(DeleteSubscriptionResponse)
    .mutation(async ({ ctx, input }) => {
      await deleteSubscription(env, ctx.access.userId, input.id);
      return { deleted: true as const };
    });
