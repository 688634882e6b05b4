import { setTimeout as sleep } from "node:timers/promises";
import type { Kysely, Transaction } from "kysely";
import { AppError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { dialectOf, insertUnlessDuplicate, sessionsReadCommitted, type Db } from "./db.ts";
import type { Database } from "./schema.ts";

/**
 * The one way to write (docs/architecture.md "Writes"): every write path runs its statements through
 * {@link writeTransaction}, which
 *
 * - runs them in one transaction, on MySQL/MariaDB at READ COMMITTED: every statement sees what was
 *   committed before it (no stale REPEATABLE READ snapshot behind a lock just granted) and InnoDB takes
 *   no gap locks, the usual cause of deadlocks between inserts of unrelated rows;
 * - retries the whole transaction when the database aborts it for a write conflict — deadlock (1213,
 *   which is also how MariaDB Galera reports a certification failure), lock wait timeout (1205), SQLite
 *   busy — a bounded number of times with jittered backoff, so the work must be safe to run again:
 *   database statements only;
 * - lets nothing leave the process before the commit: work that must happen only once the writes are
 *   durable (an SMS, a webhook POST, telling other instances, a log line naming what was created) is
 *   registered with `afterCommit` and runs after the commit, once, never for an attempt rolled back.
 */

export type WriteTrx = Transaction<Database>;

export interface TransactionHooks {
  /**
   * Runs `hook` after the outermost transaction commits (in registration order), never when it rolls
   * back or is retried. A hook that throws does not undo the commit: the remaining hooks still run,
   * then the first error is thrown to the caller.
   */
  afterCommit(hook: () => unknown): void;
}

export interface WriteTransactionOptions {
  /** Attempts in all, the first included (default {@link DEFAULT_WRITE_ATTEMPTS}). */
  attempts?: number;
  /** Names the transaction in the retry log lines. */
  name?: string;
  log?: Pick<Logger, "debug" | "warn">;
  /** Jitter source, 0 <= x < 1 (tests pin it). */
  random?: () => number;
}

/** Enough for a handful of colliding writers; beyond it the caller gets a 503 to retry later. */
export const DEFAULT_WRITE_ATTEMPTS = 6;
/** Full-jitter backoff: attempt n waits a random time below min(CAP, BASE * 2^(n-1)). */
const BACKOFF_BASE_MS = 8;
const BACKOFF_CAP_MS = 250;

/** MySQL/MariaDB errors after which the same transaction may simply succeed when run again. */
const RETRYABLE_MYSQL_ERRNOS = new Set([
  1213, // ER_LOCK_DEADLOCK; also Galera's certification failure ("WSREP detected deadlock/conflict")
  1205, // ER_LOCK_WAIT_TIMEOUT
]);

/**
 * True when the database refused the transaction because of a concurrent one, so running it again
 * may succeed: MySQL/MariaDB deadlock or Galera certification failure (1213), lock wait timeout
 * (1205); SQLite busy (another process holds the write lock past busy_timeout, or a read snapshot
 * became stale before its first write).
 */
export function isWriteConflict(error: unknown): boolean {
  const e = error as { errno?: unknown; code?: unknown } | null;
  if (typeof e?.errno === "number" && RETRYABLE_MYSQL_ERRNOS.has(e.errno)) return true;
  return typeof e?.code === "string" && e.code.startsWith("SQLITE_BUSY");
}

/** Hooks of the transactions this module opened, so nested calls join the outermost one. */
const hooksOf = new WeakMap<WriteTrx, Array<() => unknown>>();

/**
 * Runs `work` in a write transaction, retried on write conflicts, with `afterCommit` hooks.
 * Called with a transaction (from inside another `writeTransaction`), it joins it: no new
 * transaction, no retry of its own (the outermost call retries everything), hooks run after the
 * outermost commit. Once the attempts are used up, the conflict becomes `503 SERVICE_UNAVAILABLE`
 * with `Retry-After: 1`.
 * @example
 * const key = await writeTransaction(db, async (trx, { afterCommit }) => {
 *   await lockAccount(trx, userId);
 *   await trx.insertInto("api_keys").values(row).execute();
 *   afterCommit(() => log.info({ key_id: row.id }, "API key created"));
 *   return row;
 * });
 */
export async function writeTransaction<T>(db: Db, work: (trx: WriteTrx, hooks: TransactionHooks) => Promise<T>, options: WriteTransactionOptions = {}): Promise<T> {
  if (db.isTransaction) {
    const outer = hooksOf.get(db as WriteTrx);
    if (!outer) throw new Error("writeTransaction: called inside a transaction it did not open; open the outer one with writeTransaction");
    return work(db as WriteTrx, { afterCommit: (hook) => void outer.push(hook) });
  }
  const attempts = Math.max(1, options.attempts ?? DEFAULT_WRITE_ATTEMPTS);
  const random = options.random ?? Math.random;
  // READ COMMITTED: set per transaction unless the connections start at it (openDatabase).
  const setLevel = dialectOf(db) === "mysql" && !sessionsReadCommitted(db);
  for (let attempt = 1; ; attempt++) {
    const hooks: Array<() => unknown> = [];
    let result: T;
    try {
      const builder = setLevel ? db.transaction().setIsolationLevel("read committed") : db.transaction();
      result = await builder.execute(async (trx) => {
        hooksOf.set(trx, hooks);
        return work(trx, { afterCommit: (hook) => void hooks.push(hook) });
      });
    } catch (error) {
      if (!isWriteConflict(error)) throw error;
      const code = (error as { code?: string }).code;
      if (attempt >= attempts) {
        options.log?.warn({ transaction: options.name, attempts, code }, "write transaction gave up after repeated conflicts");
        throw new AppError("SERVICE_UNAVAILABLE", "The database is busy with conflicting writes; try again", { headers: { "Retry-After": "1" }, cause: error });
      }
      options.log?.debug({ transaction: options.name, attempt, code }, "write transaction conflicted; retrying");
      await sleep(Math.floor(random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1))));
      continue;
    }
    await runHooks(hooks);
    return result;
  }
}

async function runHooks(hooks: Array<() => unknown>): Promise<void> {
  let failure: { error: unknown } | null = null;
  for (const hook of hooks) {
    try {
      await hook();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}

/**
 * Serialises the writes that must see one account's state whole — a cap ("at most 20 keys") checked
 * and then filled — on both databases and across the nodes of a multi-primary cluster. MySQL/MariaDB:
 * the account's `users` row is read with a lock (`SELECT … FOR UPDATE`) and its `write_locks` row
 * ({@link writeLock}) is written, so a second transaction for the account on the same server waits
 * here until the first commits and then counts its rows, and one on another Galera node, which got
 * its own node-local locks, fails certification at commit (1213) and is retried by
 * {@link writeTransaction}, counting again. On SQLite a no-op UPDATE of the `users` row makes the
 * transaction the database's one writer from this statement on (within a process Kysely runs
 * transactions one at a time anyway; across processes the other writers wait for the lock,
 * busy_timeout). Call it first in the transaction. Returns false when the account does not exist.
 * @example
 * await writeTransaction(db, async (trx) => {
 *   if (!(await lockAccount(trx, userId))) throw new AppError("UNAUTHORIZED");
 *   if ((await countActiveKeys(trx, userId)) >= max) throw new AppError("API_KEY_LIMIT_REACHED");
 *   await trx.insertInto("api_keys").values(row).execute();
 * });
 */
export async function lockAccount(trx: WriteTrx, userId: string): Promise<boolean> {
  if (dialectOf(trx) === "mysql") {
    const found = (await trx.selectFrom("users").select("id").where("id", "=", userId).forUpdate().executeTakeFirst()) !== undefined;
    if (found) await writeLock(trx, `account:${userId}`);
    return found;
  }
  const result = await trx.updateTable("users").set((eb) => ({ plan: eb.ref("plan") })).where("id", "=", userId).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Takes the write lock `name` for the rest of the transaction by changing its `write_locks` row
 * (created on first use). Unlike a locking read, a write conflicts across the nodes of MariaDB Galera
 * (and other multi-primary engines): of two transactions that took the same lock on different nodes,
 * the second to commit fails certification (1213) and {@link writeTransaction} runs it again, now
 * seeing the first one's rows. On one server it is an ordinary row lock. SQLite needs none of this
 * (one writer at a time); calling it there is harmless.
 * @example
 * await writeLock(trx, `sms-ip:${ip}`);
 */
export async function writeLock(trx: WriteTrx, name: string): Promise<void> {
  const bump = () =>
    trx
      .updateTable("write_locks")
      .set((eb) => ({ seq: eb("seq", "+", 1) }))
      .where("name", "=", name)
      .executeTakeFirst();
  if (Number((await bump()).numUpdatedRows) === 1) return;
  // First use: create the row (a concurrent creator's duplicate is fine), then write it.
  await insertUnlessDuplicate(trx, trx.insertInto("write_locks").values({ name, seq: 0 }));
  await bump();
}

/**
 * The query as a locking read on MySQL/MariaDB (`SELECT … FOR UPDATE`: the rows stay locked until the
 * transaction ends, and the read sees the latest committed version); unchanged on SQLite, where a
 * transaction that writes is the database's only writer and one that read stale rows is refused at its
 * first write (SQLITE_BUSY_SNAPSHOT, which {@link writeTransaction} retries).
 * @example
 * const row = await forUpdate(trx, trx.selectFrom("webhook_subscriptions").selectAll().where("id", "=", id)).executeTakeFirst();
 */
export function forUpdate<Q extends { forUpdate(): Q }>(db: Kysely<any>, query: Q): Q {
  return dialectOf(db) === "mysql" ? query.forUpdate() : query;
}
