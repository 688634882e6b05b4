import { sessionProcedure } from "../../trpc/procedures.ts";
import { webhookEnv } from "../env.ts";
import { recordReport } from "./deliveries.ts";
import { announceListenDeliveries } from "./hub.ts";
import { ZReportDeliveryRequest, ZReportDeliveryResponse } from "./report-delivery.types.ts";

/**
 * POST /console/listen-sessions/:id/deliveries/:deliveryId/report: the forwarder's outcome for one
 * delivery; a 2xx makes it delivered, anything else failed. 409 when it is not waiting for a report.
 */
export const reportDeliveryProcedure = sessionProcedure
  .input(ZReportDeliveryRequest)
  .output(ZReportDeliveryResponse)
  .mutation(async ({ ctx, input: { id, deliveryId, ...report } }) => {
    const outcome = await recordReport(webhookEnv(ctx.deps), ctx.access.userId, id, deliveryId, report);
    // A slot of the session's buffer is free again: its holder may send what waits.
    await announceListenDeliveries(ctx.deps, [id]);
    return { recorded: true as const, status: outcome.status };
  });
