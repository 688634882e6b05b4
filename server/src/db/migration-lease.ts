import { setTimeout as sleep } from "node:timers/promises";
import { MysqlAdapter, MysqlDialect, type Kysely, type MigrationLockOptions } from "kysely";

/** A migration run that has not released its lease by then is presumed dead (crashed, killed). */
export const MIGRATION_LEASE_SECONDS = 15 * 60;
/** How long a second `migrate` waits for the first before giving up. */
const WAIT_LIMIT_MS = MIGRATION_LEASE_SECONDS * 1000 + 60_000;
const POLL_MS = 250;

/**
 * Kysely's MySQL adapter with its migration lock taken as a lease row instead of `GET_LOCK()`.
 *
 * `GET_LOCK()` is a lock in one server's memory: on MariaDB Galera (and other multi-primary MySQL
 * engines) two `migrate` runs through two nodes would both get it and apply the same migration twice.
 * A row is the same on every node: the lock is a conditional UPDATE of Kysely's own lock row
 * (`kysely_migration_lock`, `is_locked` = the lease's end in Unix seconds, 0 when free), which one
 * writer wins — the database's row lock on one node, Galera's certification (the loser's commit fails
 * with 1213 and it polls again) across nodes. A run killed before releasing leaves a lease that expires
 * after {@link MIGRATION_LEASE_SECONDS}; `GET_LOCK` had the connection's end for that.
 */
export class LeaseMysqlAdapter extends MysqlAdapter {
  override async acquireMigrationLock(db: Kysely<any>, options: MigrationLockOptions): Promise<void> {
    const table = options.lockTableSchema ? db.withSchema(options.lockTableSchema) : db;
    const waitUntil = Date.now() + WAIT_LIMIT_MS;
    for (;;) {
      const now = Math.floor(Date.now() / 1000);
      try {
        const taken = await table
          .updateTable(options.lockTable)
          .set({ is_locked: now + MIGRATION_LEASE_SECONDS })
          .where("id", "=", options.lockRowId)
          .where((eb) => eb.or([eb("is_locked", "=", 0), eb("is_locked", "<", now)]))
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) === 1) return;
      } catch (error) {
        // 1213: another node's run certified first (Galera), 1205: a lock wait on this node timed out.
        const errno = (error as { errno?: unknown }).errno;
        if (errno !== 1213 && errno !== 1205) throw error;
      }
      if (Date.now() > waitUntil) throw new Error(`Another migrate run has held the migration lease for over ${MIGRATION_LEASE_SECONDS} s (${options.lockTable}); try again when it is done`);
      await sleep(POLL_MS);
    }
  }

  override async releaseMigrationLock(db: Kysely<any>, options: MigrationLockOptions): Promise<void> {
    const table = options.lockTableSchema ? db.withSchema(options.lockTableSchema) : db;
    await table.updateTable(options.lockTable).set({ is_locked: 0 }).where("id", "=", options.lockRowId).execute();
  }
}

/** MysqlDialect whose migrations lock with {@link LeaseMysqlAdapter}. */
export class LeaseMysqlDialect extends MysqlDialect {
  override createAdapter(): MysqlAdapter {
    return new LeaseMysqlAdapter();
  }
}
