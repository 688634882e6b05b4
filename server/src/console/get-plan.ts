import { getUser } from "../auth/users.ts";
import type { AppDeps } from "../app/deps.ts";
import { sessionProcedure } from "../trpc/procedures.ts";
import { ZGetPlanRequest, ZGetPlanResponse } from "./get-plan.types.ts";
import { planOf, type Plan } from "../metering/plans.ts";

export async function currentPlan(deps: Pick<AppDeps, "db" | "console">, userId: string): Promise<Plan> {
  const user = await getUser(deps.db, userId);
  return planOf(deps.console.settings, user.plan);
}

/** GET /console/plan: the account's plan and every plan on offer (provisional prices; payment disabled). */
export const getPlanProcedure = sessionProcedure
  .input(ZGetPlanRequest)
  .output(ZGetPlanResponse)
  .query(async ({ ctx }) => ({
    current_plan: (await currentPlan(ctx.deps, ctx.access.userId)).id,
    pricing_is_provisional: true as const,
    payment_enabled: false as const,
    plans: [...ctx.deps.console.settings.plans],
  }));
