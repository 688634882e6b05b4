import { getUser } from "../auth/users.ts";
import { sessionProcedure } from "../trpc/procedures.ts";
import type { ConsoleEnv } from "./env.ts";
import { NoInput, PlanInfo } from "../contract/console.ts";
import { planOf, type Plan } from "../metering/plans.ts";

export async function currentPlan(env: Pick<ConsoleEnv, "db" | "plans">, userId: string): Promise<Plan> {
  const user = await getUser(env.db, userId);
  return planOf(env.plans, user.plan);
}

/** GET /console/plan: the account's plan and every plan on offer (provisional prices; payment disabled). */
export const getPlanProcedure = (env: ConsoleEnv) =>
  sessionProcedure
    .input(NoInput)
    .output(PlanInfo)
    .query(async ({ ctx }) => ({
      current_plan: (await currentPlan(env, ctx.access.userId)).id,
      pricing_is_provisional: true as const,
      payment_enabled: false as const,
      plans: [...env.plans.plans],
    }));
