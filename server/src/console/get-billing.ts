import { sessionProcedure } from "../trpc/procedures.ts";
import { Billing, NoInput } from "../contract/console.ts";

/** GET /console/billing: payment is disabled, so there are never bills. */
export const getBillingProcedure = () =>
  sessionProcedure
    .input(NoInput)
    .output(Billing)
    .query(() => ({ items: [], payment_enabled: false as const }));
