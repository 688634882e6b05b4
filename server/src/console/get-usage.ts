import { sessionProcedure } from "../trpc/procedures.ts";
import type { ConsoleEnv } from "./env.ts";
import { NoInput, Usage } from "../contract/console.ts";
import { currentPlan } from "./get-plan.ts";
import { usageReport } from "../metering/usage.ts";

/** GET /console/usage: this month's (Asia/Shanghai) successful queries, quota, failures and reset time. */
export const getUsageProcedure = (env: ConsoleEnv) =>
  sessionProcedure
    .input(NoInput)
    .output(Usage)
    .query(async ({ ctx }) => {
      const plan = await currentPlan(env, ctx.access.userId);
      // Counts are buffered for up to a second; this instance's are written first, so a report always
      // includes the caller's own requests (other instances' appear once they have written theirs).
      await env.ledger.flush();
      return usageReport(env.db, ctx.access.userId, env.clock.now().getTime(), plan.monthly_quota);
    });
