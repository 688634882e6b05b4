import { defineCommand } from "citty";
import { UsageError, withServerDeps } from "../command-support.ts";
import type { AppDeps } from "../deps.ts";
import { maskPhone } from "../../log.ts";
import { AdminError, findAccount, setPlan } from "../../console/admin.ts";
import { usageReport } from "../../metering/usage.ts";
import { planOf } from "../../metering/plans.ts";

/** An operator command on the environment's database; a bad account or plan reference is a usage error. */
async function withDeps<T>(run: (deps: AppDeps) => Promise<T>): Promise<T> {
  try {
    return await withServerDeps(run);
  } catch (error) {
    if (error instanceof AdminError) throw new UsageError(error.message);
    throw error;
  }
}

/** `ir21-server accounts set-plan <phone|user id> <plan>`, as a function the tests call directly. */
export async function setPlanCommand(deps: Pick<AppDeps, "db" | "meteringSettings" | "invalidations">, ref: string, plan: string): Promise<string> {
  const { user, previous } = await setPlan(deps.db, deps.invalidations, deps.meteringSettings, ref, plan);
  return `${user.id} (${maskPhone(user.phone)}): plan ${previous} -> ${user.plan}`;
}

/** `ir21-server accounts show <phone|user id>`: plan, this month's usage, keys and sessions. */
export async function showAccountCommand(deps: Pick<AppDeps, "db" | "meteringSettings" | "ledger" | "clock">, ref: string): Promise<Record<string, unknown>> {
  await deps.ledger.flush();
  const user = await findAccount(deps.db, ref);
  const now = deps.clock.now().getTime();
  const plan = planOf(deps.meteringSettings, user.plan);
  const usage = await usageReport(deps.db, user.id, now, plan.monthly_quota);
  const keys = await deps.db.selectFrom("api_keys").select((eb) => eb.fn.countAll<number>().as("n")).where("user_id", "=", user.id).where("revoked_at", "is", null).executeTakeFirstOrThrow();
  const sessions = await deps.db
    .selectFrom("sessions")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", user.id)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirstOrThrow();
  return {
    id: user.id,
    phone: user.phone,
    plan: plan.id,
    created_at: new Date(user.created_at).toISOString(),
    usage: { used: usage.used, quota: usage.quota, failures: usage.failures, resets_at: usage.resets_at },
    active_api_keys: Number(keys.n),
    active_sessions: Number(sessions.n),
  };
}

/** Operators' account commands; registered in main.ts. */
export const accountsCommand = defineCommand({
  meta: { name: "accounts", description: "Accounts: show one, or change its plan" },
  subCommands: {
    "set-plan": defineCommand({
      meta: { name: "set-plan", description: "Put an account on a plan (free, developer, business, enterprise)" },
      args: {
        account: { type: "positional", description: "User id (usr_…) or mobile number", required: true },
        plan: { type: "positional", description: "Plan id", required: true },
      },
      async run({ args }) {
        console.log(await withDeps((deps) => setPlanCommand(deps, args.account, args.plan)));
      },
    }),
    show: defineCommand({
      meta: { name: "show", description: "An account's plan, usage this month, keys and sessions" },
      args: { account: { type: "positional", description: "User id (usr_…) or mobile number", required: true } },
      async run({ args }) {
        console.log(JSON.stringify(await withDeps((deps) => showAccountCommand(deps, args.account)), null, 2));
      },
    }),
  },
});
