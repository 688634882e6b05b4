import { sessionProcedure } from "../trpc/procedures.ts";
import { ZGetUsageRequest, ZGetUsageResponse } from "./get-usage.types.ts";
import { currentPlan } from "./get-plan.ts";
import { usageReport } from "../metering/usage.ts";

/** GET /console/usage: this month's (Asia/Shanghai) successful queries, quota, failures and reset time. */
export const getUsageProcedure = sessionProcedure
  .input(ZGetUsageRequest)
  .output(ZGetUsageResponse)
  .query(async ({ ctx }) => {
    const plan = await currentPlan(ctx.deps, ctx.access.userId);
    // Counts are buffered for up to a second; this instance's are written first, so a report always
    // includes the caller's own requests (other instances' appear once they have written theirs).
    await ctx.deps.console.ledger.flush();
    return usageReport(ctx.deps.db, ctx.access.userId, ctx.deps.clock.now().getTime(), plan.monthly_quota);
  });
