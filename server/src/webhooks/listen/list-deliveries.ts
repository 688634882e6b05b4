import { sessionProcedure } from "../../trpc/procedures.ts";
import type { WebhookEnv } from "../env.ts";
import { listListenDeliveries } from "./deliveries.ts";
import { ListListenDeliveriesRequest, ListListenDeliveriesResponse } from "../../contract/listen.ts";

/** GET /console/listen-sessions/:id/deliveries: newest first, paged and filtered like a subscription's. */
export const listDeliveriesProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(ListListenDeliveriesRequest)
    .output(ListListenDeliveriesResponse)
    .query(({ ctx, input: { id, ...query } }) => listListenDeliveries(env, ctx.access.userId, id, query));
