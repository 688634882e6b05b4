import { sessionProcedure } from "../../trpc/procedures.ts";
import { ZCreateSubscriptionRequest, ZCreateSubscriptionResponse } from "./create-subscription.types.ts";
import { webhookEnv } from "../env.ts";
import { createSubscription } from "./subscriptions.ts";

/** POST /console/webhooks: subscribe a public HTTPS URL; returns the signing secret once. */
export const createSubscriptionProcedure = sessionProcedure
  .input(ZCreateSubscriptionRequest)
  .output(ZCreateSubscriptionResponse)
  .mutation(({ ctx, input }) => createSubscription(webhookEnv(ctx.deps), ctx.access.userId, input));
