import { sessionProcedure } from "../trpc/procedures.ts";
import { ZGetBillingRequest, ZGetBillingResponse } from "./get-billing.types.ts";

/** GET /console/billing: payment is disabled, so there are never bills. */
export const getBillingProcedure = sessionProcedure
  .input(ZGetBillingRequest)
  .output(ZGetBillingResponse)
  .query(() => ({ items: [], payment_enabled: false as const }));
