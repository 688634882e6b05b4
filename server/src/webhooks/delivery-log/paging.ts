import type { DeliveryStatus } from "../../contract/webhooks.ts";
import type { CursorSeal } from "../../cursors.ts";
import { listingOf } from "../../cursors.ts";
import type { Db } from "../../db/db.ts";
import { AppError } from "../../errors.ts";
import type { WebhookTables } from "../tables.ts";

/** The position inside a cursor: base64url of the last row's sort key (created_at, id); sealed for its listing (cursors.ts). */
export function encodePosition(row: { created_at: number; id: string }): string {
  return Buffer.from(JSON.stringify([Number(row.created_at), row.id])).toString("base64url");
}

export function decodePosition(position: string): { createdAt: number; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(position, "base64url").toString("utf8")) as [unknown, unknown];
    if (typeof createdAt === "number" && Number.isSafeInteger(createdAt) && typeof id === "string" && id.length <= 64) return { createdAt, id };
  } catch {
    // fall through
  }
  throw new AppError("INVALID_REQUEST", "cursor: not a cursor returned by a previous page");
}

/** What a delivery listing takes: the page and its filters (the contract's listDeliveries input, for a subscription or a listen session). */
export interface DeliveryListInput {
  cursor?: string;
  limit: number;
  status?: DeliveryStatus;
  event_id?: string;
}

/** The delivery tables and the column naming the thing (subscription or listen session) whose deliveries are listed. */
interface DeliveryLogs {
  webhook_deliveries: "subscription_id";
  webhook_listen_deliveries: "session_id";
}

/**
 * One page of a delivery log — a subscription's (`webhook_deliveries`) or a listen session's
 * (`webhook_listen_deliveries`) — newest first by (created_at, id), keyset-paged after the cursor's
 * position. `total` counts every delivery matching the filters (not just this page). The cursor is
 * sealed for `listing` (the endpoint, the account and the owner) with the filters, so it works only
 * where it was issued (cursors.ts).
 */
export async function pageOfDeliveries<T extends keyof DeliveryLogs>(
  env: { db: Db; cursors: CursorSeal },
  log: { table: T; owner: DeliveryLogs[T]; ownerId: string; userId: string; listing: string },
  input: DeliveryListInput,
): Promise<{ rows: WebhookTables[T][]; total: number; next_cursor: string | null }> {
  // Both tables have the columns read here (user_id, status, event_id, created_at, id): the query is
  // typed as the subscriptions' log and runs on `log.table`.
  const table = log.table as "webhook_deliveries";
  let filtered = env.db
    .selectFrom(table)
    .where(env.db.dynamic.ref<"subscription_id">(log.owner), "=", log.ownerId)
    .where("user_id", "=", log.userId);
  if (input.status) filtered = filtered.where("status", "=", input.status);
  if (input.event_id) filtered = filtered.where("event_id", "=", input.event_id);
  const { n } = await filtered.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  let page = filtered.selectAll().orderBy("created_at", "desc").orderBy("id", "desc").limit(input.limit + 1);
  const listing = listingOf(log.listing, { status: input.status, event_id: input.event_id });
  if (input.cursor) {
    const after = decodePosition(env.cursors.open(listing, input.cursor));
    page = page.where((eb) => eb.or([eb("created_at", "<", after.createdAt), eb.and([eb("created_at", "=", after.createdAt), eb("id", "<", after.id)])]));
  }
  const rows = (await page.execute()) as unknown as WebhookTables[T][];
  const items = rows.slice(0, input.limit);
  const more = rows.length > input.limit;
  return { rows: items, total: Number(n), next_cursor: more ? env.cursors.seal(listing, encodePosition(items.at(-1)!)) : null };
}
