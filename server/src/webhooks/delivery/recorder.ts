import type { Db } from "../../db/db.ts";
import { recordAndClaim, recordOutcomes, type ClaimInput, type Recording } from "./queue.ts";

/** At most this many results per recording transaction (one multi-row insert of attempts). */
export const MAX_RECORDINGS_PER_WRITE = 64;

/**
 * Claiming in the recording transaction (worker.ts): before a batch is written, the worker says what to
 * claim for the lanes the batch frees (or null: nothing more is due); once the transaction committed,
 * it gets the claims, before the batch's results settle. A failed transaction claimed nothing.
 */
export interface FollowOnClaim {
  plan(freed: number): ClaimInput | null;
  claimed(input: ClaimInput, result: Awaited<ReturnType<typeof recordAndClaim>>): void;
  abandoned(input: ClaimInput): void;
}

interface Waiting {
  recording: Recording;
  resolve(written: boolean): void;
  reject(error: unknown): void;
}

/**
 * Group commit of delivery results (docs/webhooks.md "Queue"): a result waits for the recording
 * transaction running now, if any, and goes with every other result that arrived meanwhile in the
 * next one. One transaction (one commit, on SQLite one WAL sync) then carries a batch of attempts
 * and state updates instead of one each, and an idle worker adds no delay: the first result after a
 * quiet spell is written at the end of its event-loop turn, with whatever finished in the same turn.
 * A result's promise settles only after its transaction committed, so the delivery's lane (and the
 * log line about it) never runs ahead of what is stored.
 *
 * A worker may have the same transaction claim the next deliveries for the lanes the batch frees
 * ({@link FollowOnClaim}, queue.ts recordAndClaim): one commit per round instead of two.
 *
 * Should a batch fail for a reason other than a write conflict (writeTransaction retries those), each
 * of its results is written alone (and claims nothing), so one bad row cannot take the others with it; a result that then
 * still fails rejects, and its delivery is sent again when its lease expires (at least once).
 */
export class OutcomeRecorder {
  readonly #db: Db;
  #waiting: Waiting[] = [];
  #running: Promise<void> | null = null;
  #followOn: FollowOnClaim | null = null;

  constructor(db: Db) {
    this.#db = db;
  }

  /** From now on, each recording transaction also claims what `followOn` plans (null: stop doing so). */
  claimWith(followOn: FollowOnClaim | null): void {
    this.#followOn = followOn;
  }

  /** Queues one result; resolves with whether it was written (its fence held), once committed. */
  record(recording: Recording): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#waiting.push({ recording, resolve, reject });
      this.#running ??= this.#run();
    });
  }

  /** Settles once every result queued so far is written. */
  async flushed(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #run(): Promise<void> {
    // Let the results that complete in this event-loop turn join the first transaction.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.#waiting.length) {
        const batch = this.#waiting.splice(0, MAX_RECORDINGS_PER_WRITE);
        await this.#write(batch);
      }
    } finally {
      this.#running = null;
    }
  }

  async #write(batch: Waiting[]): Promise<void> {
    const followOn = this.#followOn;
    const next = followOn?.plan(batch.length) ?? null;
    try {
      if (followOn && next) {
        let result: Awaited<ReturnType<typeof recordAndClaim>>;
        try {
          result = await recordAndClaim(this.#db, batch.map((w) => w.recording), next);
        } catch (error) {
          followOn.abandoned(next);
          throw error;
        }
        followOn.claimed(next, result);
        batch.forEach((w, i) => w.resolve(result.written[i]!));
        return;
      }
      const written = await recordOutcomes(this.#db, batch.map((w) => w.recording));
      batch.forEach((w, i) => w.resolve(written[i]!));
      return;
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
    }
    for (const w of batch) {
      try {
        const [written] = await recordOutcomes(this.#db, [w.recording]);
        w.resolve(written!);
      } catch (error) {
        w.reject(error);
      }
    }
  }
}
