import type { Db } from "../../db/db.ts";
import { AppError } from "../../errors.ts";
import type { WebhookListenSessionTable } from "../tables.ts";

/** The caller's session, or 404 whether it does not exist or belongs to another account. */
export async function ownListenSession(db: Db, userId: string, id: string): Promise<WebhookListenSessionTable> {
  const row = await db.selectFrom("webhook_listen_sessions").selectAll().where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
  if (!row) throw new AppError("NOT_FOUND", "No listen session with this id");
  return row;
}
