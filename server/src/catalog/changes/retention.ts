import type { Db } from "../../db/db.ts";
import { writeTransaction } from "../../db/transaction.ts";

/**
 * Change-log retention (docs/catalog.md "Change-log retention"). A version's events are kept while a
 * client synced to the version before it may still ask for them: until the version has been superseded
 * (the next version ingested) for longer than the retention window. Pruning goes oldest first and
 * keeps a contiguous prefix pruned, so "is `since` still served?" is one comparison with the newest
 * pruned version (prunedThroughSeq).
 *
 * Never pruned: the current version's events (a client one version behind can always catch up), and
 * events the webhook fan-out has not read yet (`readerSeq`; its cursor). Deliveries already queued
 * carry their own copy of the event (webhook_events.payload), so pruning never touches them.
 */

/** The newest dataset_versions.seq whose events were pruned; 0 when none were. */
export async function prunedThroughSeq(db: Db): Promise<number> {
  const row = await db
    .selectFrom("dataset_versions")
    .select((eb) => eb.fn.max("seq").as("seq"))
    .where("changes_pruned_at", "is not", null)
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

export interface PruneInput {
  /** Epoch ms (the injected clock). */
  now: number;
  retentionMs: number;
  /** The change-log seq every reader that must not miss events (the webhook fan-out) has passed. */
  readerSeq: number;
  /** Rows per DELETE statement, so one run never holds long locks. */
  batchSize?: number;
}

/** Marks the versions whose events expired and deletes those events; returns what it did. */
export async function pruneChangeLog(db: Db, input: PruneInput): Promise<{ versions: number; events: number }> {
  const cutoff = input.now - input.retentionMs;
  const candidates = await db
    .selectFrom("dataset_versions")
    .select(["seq", "ingested_at"])
    .where("changes_pruned_at", "is", null)
    .orderBy("seq")
    .limit(1000)
    .execute();
  // Versions [i] whose successor [i + 1] was ingested before the cutoff; the last (current) never.
  let throughSeq = 0;
  for (let i = 0; i + 1 < candidates.length; i++) {
    const version = candidates[i]!;
    if (Number(candidates[i + 1]!.ingested_at) >= cutoff) break;
    const newest = await db
      .selectFrom("catalog_changes")
      .select((eb) => eb.fn.max("seq").as("seq"))
      .where("version_seq", "=", version.seq)
      .executeTakeFirst();
    if (Number(newest?.seq ?? 0) > input.readerSeq) break;
    throughSeq = Number(version.seq);
  }
  let versions = 0;
  if (throughSeq > 0) {
    // Marked before the rows go: from here on /v1/changes refuses a `since` older than throughSeq, so
    // no reader ever sees a half-deleted version.
    const marked = await writeTransaction(db, (trx) =>
      trx.updateTable("dataset_versions").set({ changes_pruned_at: input.now }).where("changes_pruned_at", "is", null).where("seq", "<=", throughSeq).executeTakeFirst(),
    );
    versions = Number(marked.numUpdatedRows);
  }
  // Deletes the rows of every marked version, including any a crashed run left behind.
  const pruned = await prunedThroughSeq(db);
  if (pruned === 0) return { versions, events: 0 };
  const batch = input.batchSize ?? 5_000;
  let events = 0;
  for (;;) {
    const boundary = await db
      .selectFrom("catalog_changes")
      .select("seq")
      .where("version_seq", "<=", pruned)
      .orderBy("seq")
      .offset(batch - 1)
      .limit(1)
      .executeTakeFirst();
    const deleted = await writeTransaction(db, async (trx) => {
      let q = trx.deleteFrom("catalog_changes").where("version_seq", "<=", pruned);
      if (boundary) q = q.where("seq", "<=", boundary.seq);
      return Number((await q.executeTakeFirst()).numDeletedRows);
    });
    events += deleted;
    if (!boundary || deleted === 0) break;
  }
  return { versions, events };
}
