import { sessionProcedure } from "../../trpc/procedures.ts";
import type { WebhookEnv } from "../env.ts";
import { recordReport } from "./deliveries.ts";
import { announceListenDeliveries } from "./hub.ts";
import { ReportListenDeliveryRequest, ReportListenDeliveryResponse } from "../../contract/listen.ts";

/**
 * POST /console/listen-sessions/:id/deliveries/:deliveryId/report: the forwarder's outcome for one
 * delivery; a 2xx makes it delivered, anything else failed. 409 when it is not waiting for a report.
 */
export const reportDeliveryProcedure = (env: WebhookEnv) =>
  sessionProcedure
    .input(ReportListenDeliveryRequest)
    .output(ReportListenDeliveryResponse)
    .mutation(async ({ ctx, input: { id, deliveryId, ...report } }) => {
      const outcome = await recordReport(env, ctx.access.userId, id, deliveryId, report);
      // A slot of the session's buffer is free again: its holder may send what waits.
      await announceListenDeliveries(env, [id]);
      return { recorded: true as const, status: outcome.status };
    });
