import { writeTransaction } from "../../db/transaction.ts";
import type { WebhookEnv } from "../env.ts";

export interface RekeyReport {
  /** Subscriptions looked at. */
  subscriptions: number;
  /** Re-sealed under the current key (they were sealed under an older one). */
  rekeyed: number;
  /** Already sealed under the current key: left as they were. */
  current: number;
  /** No configured key opens them: left as they were; rotate their secret to recover. */
  unreadable: string[];
}

const PAGE = 200;

/**
 * Re-seals every stored signing secret (current and, during a grace period, previous) under the
 * current webhook secrets key (docs/webhooks.md "Secrets at rest"), so older keys can then be dropped
 * from WEBHOOK_SECRETS_PREVIOUS_KEYS. Idempotent and safe while the server runs: each row is written
 * only if its sealed values are still the ones read (a rotation meanwhile wins; the run retries it).
 */
export async function rekeyWebhookSecrets(env: Pick<WebhookEnv, "db" | "box" | "clock">): Promise<RekeyReport> {
  const report: RekeyReport = { subscriptions: 0, rekeyed: 0, current: 0, unreadable: [] };
  let after = "";
  for (;;) {
    const rows = await env.db
      .selectFrom("webhook_subscriptions")
      .select(["id", "secret_sealed", "previous_secret_sealed"])
      .where("id", ">", after)
      .orderBy("id")
      .limit(PAGE)
      .execute();
    if (rows.length === 0) return report;
    after = rows[rows.length - 1]!.id;
    for (let row of rows) {
      report.subscriptions++;
      for (let tries = 0; ; tries++) {
        const outcome = await rekeyOne(env, row);
        if (outcome !== "changed") {
          if (outcome === "unreadable") report.unreadable.push(row.id);
          else report[outcome]++;
          break;
        }
        const fresh = await env.db.selectFrom("webhook_subscriptions").select(["id", "secret_sealed", "previous_secret_sealed"]).where("id", "=", row.id).executeTakeFirst();
        if (!fresh || tries >= 3) {
          // Deleted meanwhile, or rotated over and over: whatever is there now was sealed by the running server.
          report.current++;
          break;
        }
        row = fresh;
      }
    }
  }
}

async function rekeyOne(
  env: Pick<WebhookEnv, "db" | "box" | "clock">,
  row: { id: string; secret_sealed: string; previous_secret_sealed: string | null },
): Promise<"rekeyed" | "current" | "unreadable" | "changed"> {
  let main, previous;
  try {
    main = env.box.openAny(row.secret_sealed, row.id);
    previous = row.previous_secret_sealed === null ? null : env.box.openAny(row.previous_secret_sealed, row.id);
  } catch {
    return "unreadable";
  }
  if (main.current && (previous === null || previous.current)) return "current";
  const secretSealed = main.current ? row.secret_sealed : env.box.seal(main.secret, row.id);
  const previousSealed = previous === null || previous.current ? row.previous_secret_sealed : env.box.seal(previous.secret, row.id);
  const updated = await writeTransaction(env.db, (trx) =>
    trx
      .updateTable("webhook_subscriptions")
      .set({ secret_sealed: secretSealed, previous_secret_sealed: previousSealed })
      .where("id", "=", row.id)
      .where("secret_sealed", "=", row.secret_sealed)
      .where((eb) => (row.previous_secret_sealed === null ? eb("previous_secret_sealed", "is", null) : eb("previous_secret_sealed", "=", row.previous_secret_sealed)))
      .executeTakeFirst(),
  );
  return Number(updated.numUpdatedRows) === 1 ? "rekeyed" : "changed";
}
