import { sessionProcedure } from "../../trpc/procedures.ts";
import { ZDeleteSubscriptionRequest, ZDeleteSubscriptionResponse } from "./delete-subscription.types.ts";
import { webhookEnv } from "../env.ts";
import { deleteSubscription } from "./subscriptions.ts";

/** DELETE /console/webhooks/:id: the subscription, its deliveries and their attempts. */
export const deleteSubscriptionProcedure = sessionProcedure
  .input(ZDeleteSubscriptionRequest)
  .output(ZDeleteSubscriptionResponse)
  .mutation(async ({ ctx, input }) => {
    await deleteSubscription(webhookEnv(ctx.deps), ctx.access.userId, input.id);
    return { deleted: true as const };
  });
