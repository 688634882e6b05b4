import { sessionProcedure } from "../../trpc/procedures.ts";
import { webhookEnv } from "../env.ts";
import { ZListSubscriptionsRequest, ZListSubscriptionsResponse } from "./list-subscriptions.types.ts";
import { listSubscriptions } from "./subscriptions.ts";

/** GET /console/webhooks: the account's subscriptions, newest first; never a secret. */
export const listSubscriptionsProcedure = sessionProcedure
  .input(ZListSubscriptionsRequest)
  .output(ZListSubscriptionsResponse)
  .query(async ({ ctx }) => ({ items: await listSubscriptions(webhookEnv(ctx.deps), ctx.access.userId) }));
