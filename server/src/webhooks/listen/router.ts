import { router } from "../../trpc/init.ts";
import type { WebhookEnv } from "../env.ts";
import { endSessionProcedure } from "./end-session.ts";
import { getDeliveryProcedure } from "./get-delivery.ts";
import { listDeliveriesProcedure } from "./list-deliveries.ts";
import { listSessionsProcedure } from "./list-sessions.ts";
import { reportDeliveryProcedure } from "./report-delivery.ts";
import { triggerEventProcedure } from "./trigger-event.ts";

/** `webhooks.listen.*`: listen sessions (the stream itself is a plain HTTP route, open-stream.ts). */
export const listenRouter = (env: WebhookEnv) =>
  router({
    list: listSessionsProcedure(env),
    end: endSessionProcedure(env),
    trigger: triggerEventProcedure(env),
    report: reportDeliveryProcedure(env),
    listDeliveries: listDeliveriesProcedure(env),
    getDelivery: getDeliveryProcedure(env),
  });
