import { sessionProcedure } from "../trpc/procedures.ts";
import { ZGetUsageRequest, ZGetUsageResponse } from "./get-usage.types.ts";
import { currentPlan } from "./get-plan.ts";
import { usageReport } from "./usage.ts";

/** GET /console/usage: this month's (Asia/Shanghai) successful queries, quota, failures and reset time. */
export const getUsageProcedure = sessionProcedure
  .input(ZGetUsageRequest)
  .output(ZGetUsageResponse)
  .query(async ({ ctx }) => {
    const plan = await currentPlan(ctx.deps, ctx.access.userId);
    return usageReport(ctx.deps.db, ctx.access.userId, ctx.deps.clock.now().getTime(), plan.monthly_quota);
  });
