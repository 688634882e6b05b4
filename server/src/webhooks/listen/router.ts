import { router } from "../../trpc/init.ts";
import { endSessionProcedure } from "./end-session.ts";
import { getDeliveryProcedure } from "./get-delivery.ts";
import { listDeliveriesProcedure } from "./list-deliveries.ts";
import { listSessionsProcedure } from "./list-sessions.ts";
import { reportDeliveryProcedure } from "./report-delivery.ts";
import { triggerEventProcedure } from "./trigger-event.ts";

/** `webhooks.listen.*`: listen sessions (the stream itself is the h3 route in open-stream.ts). */
export const listenRouter = router({
  list: listSessionsProcedure,
  end: endSessionProcedure,
  trigger: triggerEventProcedure,
  report: reportDeliveryProcedure,
  listDeliveries: listDeliveriesProcedure,
  getDelivery: getDeliveryProcedure,
});
