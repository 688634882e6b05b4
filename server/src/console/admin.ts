import { toE164 } from "../auth/phone.ts";
import type { Db } from "../db/db.ts";
import { writeTransaction } from "../db/transaction.ts";
import type { UserTable } from "../auth/tables.ts";
import type { InvalidationBus } from "../storage/invalidations.ts";
import type { MeteringSettings } from "../metering/plans.ts";
import { ACCOUNT_CHANGED } from "../metering/usage-ledger.ts";

/** Operators' account administration (used by `ir21-server accounts …`). */
export class AdminError extends Error {
  override name = "AdminError";
}

/** The account a `usr_…` id or a phone number (any mainland spelling) names. */
export async function findAccount(db: Db, ref: string): Promise<UserTable> {
  const byId = ref.startsWith("usr_");
  const phone = byId ? null : toE164(ref);
  if (!byId && !phone) throw new AdminError(`"${ref}" is neither a user id (usr_…) nor a mainland mobile number`);
  const user = byId
    ? await db.selectFrom("users").selectAll().where("id", "=", ref).executeTakeFirst()
    : await db.selectFrom("users").selectAll().where("phone", "=", phone!).executeTakeFirst();
  if (!user) throw new AdminError(`No account for ${ref}`);
  return user;
}

/**
 * Puts an account on a plan. Quota and rate limit follow from the account's next request in every
 * instance told through `invalidations` (all of them with REDIS_URL); otherwise within a few seconds,
 * when the instance re-reads the account (docs/console.md "Plans").
 */
export async function setPlan(
  db: Db,
  invalidations: Pick<InvalidationBus, "publish">,
  settings: Pick<MeteringSettings, "plans">,
  ref: string,
  planId: string,
): Promise<{ user: UserTable; previous: string }> {
  if (!settings.plans.some((p) => p.id === planId)) {
    throw new AdminError(`Unknown plan "${planId}"; plans: ${settings.plans.map((p) => p.id).join(", ")}`);
  }
  const user = await findAccount(db, ref);
  await writeTransaction(db, (trx) => trx.updateTable("users").set({ plan: planId }).where("id", "=", user.id).execute());
  await invalidations.publish({ topic: ACCOUNT_CHANGED, id: user.id });
  return { user: { ...user, plan: planId }, previous: user.plan };
}
