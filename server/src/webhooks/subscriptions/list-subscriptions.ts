import { sessionProcedure } from "../../trpc/procedures.ts";
import type { WebhookEnv } from "../env.ts";
import { ListSubscriptionsRequest, ListSubscriptionsResponse } from "../../contract/webhooks.ts";
import { listSubscriptions } from "./subscriptions.ts";

/** GET /console/webhooks: the account's subscriptions, newest first; never a secret. */
export const listSubscriptionsProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(ListSubscriptionsRequest)
    .output(ListSubscriptionsResponse)
    .query(async ({ ctx }) => ({ items: await listSubscriptions(env, ctx.access.userId) }));
