import { sessionProcedure } from "../../trpc/procedures.ts";
import { CreateSubscriptionRequest, CreateSubscriptionResponse } from "../../contract/webhooks.ts";
import type { WebhookEnv } from "../env.ts";
import { createSubscription } from "./subscriptions.ts";

/** POST /console/webhooks: subscribe a public HTTPS URL; returns the signing secret once. */
export const createSubscriptionProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(CreateSubscriptionRequest)
    .output(CreateSubscriptionResponse)
    .mutation(({ ctx, input }) => createSubscription(env, ctx.access.userId, input));
