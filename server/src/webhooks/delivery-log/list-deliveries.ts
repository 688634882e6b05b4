import { sessionProcedure } from "../../trpc/procedures.ts";
import { listDeliveries } from "./deliveries.ts";
import type { WebhookEnv } from "../env.ts";
import { ListDeliveriesRequest, ListDeliveriesResponse } from "../../contract/webhooks.ts";

/** GET /console/webhooks/:id/deliveries: newest first, cursor-paged, filtered by status and event id. */
export const listDeliveriesProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(ListDeliveriesRequest)
    .output(ListDeliveriesResponse)
    .query(({ ctx, input: { id, ...query } }) => listDeliveries(env, ctx.access.userId, id, query));
