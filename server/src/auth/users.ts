import type { Clock } from "../clock.ts";
import { toIso } from "../contract/common.ts";
import type { User } from "../contract/auth.ts";
import { dialectOf, insertUnlessDuplicate, type Db } from "../db/db.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { UserTable } from "./tables.ts";

/** Plan given to every new account; operators change it with `ir21-server accounts set-plan`. */
export const DEFAULT_PLAN = "free";

export function toUser(row: Pick<UserTable, "id" | "phone" | "name" | "plan" | "created_at">): User {
  // E-mail sign-in is removed, so email is always null (DESIGN.md "User").
  return { id: row.id, email: null, phone: row.phone, name: row.name, plan: row.plan, created_at: toIso(row.created_at) };
}

export async function getUser(db: Db, userId: string): Promise<User> {
  const row = await db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst();
  if (!row) throw new AppError("UNAUTHORIZED", "The account no longer exists; sign in again");
  return toUser(row);
}

/**
 * The user with this phone, created when the number is new. Safe against a concurrent first login of
 * the same number: the unique phone index decides, the loser reads the winner's row.
 */
export async function findOrCreateUser(db: Db, clock: Clock, phone: string): Promise<{ user: UserTable; created: boolean }> {
  const existing = await db.selectFrom("users").selectAll().where("phone", "=", phone).executeTakeFirst();
  if (existing) return { user: existing, created: false };
  const now = clock.now().getTime();
  const row: UserTable = { id: newId("usr", now), phone, name: null, plan: DEFAULT_PLAN, created_at: now };
  if (await insertUnlessDuplicate(db, db.insertInto("users").values(row))) return { user: row, created: true };
  // In a MySQL transaction the read above fixed a snapshot from before the winner committed: only a
  // locking read sees its row. (SQLite transactions are serialised; there is no such snapshot.)
  let winner = db.selectFrom("users").selectAll().where("phone", "=", phone);
  if (dialectOf(db) === "mysql") winner = winner.forUpdate();
  return { user: await winner.executeTakeFirstOrThrow(), created: false };
}

/**
 * Records that the user accepted these agreement versions (PIPL consent evidence). Append-only: a
 * version already recorded keeps its first acceptance; a new version adds a row.
 */
export async function recordAgreements(
  db: Db,
  clock: Clock,
  userId: string,
  versions: { termsVersion: string; privacyVersion: string },
  from: { ip: string | null; userAgent: string | null },
): Promise<void> {
  const accepted_at = clock.now().getTime();
  const rows = [
    { user_id: userId, document: "terms" as const, version: versions.termsVersion, accepted_at, ip: from.ip, user_agent: from.userAgent?.slice(0, 512) ?? null },
    { user_id: userId, document: "privacy" as const, version: versions.privacyVersion, accepted_at, ip: from.ip, user_agent: from.userAgent?.slice(0, 512) ?? null },
  ];
  // One row at a time: a version already recorded must not keep the other one out.
  for (const row of rows) await insertUnlessDuplicate(db, db.insertInto("user_agreements").values(row));
}
