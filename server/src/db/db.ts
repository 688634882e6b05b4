import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import SQLite from "better-sqlite3";
import { CompiledQuery, Kysely, MysqlAdapter, type Dialect as KyselyDialect, SqliteDialect, sql, type CreateTableBuilder, type InsertQueryBuilder, type InsertResult } from "kysely";
import { createPool } from "mysql2";
import type { Database } from "./schema.ts";
import { LeaseMysqlDialect } from "./migration-lease.ts";
import { withStatementCache } from "./statement-cache.ts";
import { tracedDialect } from "../observability/database.ts";
import type { Tracing } from "../observability/tracing.ts";

export type Dialect = "sqlite" | "mysql";
export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  close(): Promise<void>;
}

/**
 * Opens the database named by a DATABASE_URL: `file:<path>` for SQLite (WAL) or
 * `mysql://user:pass@host:port/db` for MySQL 8 / MariaDB 10.6+ through a mysql2 pool.
 * @example
 * const { db, close } = openDatabase("file:data/ir21.sqlite");
 */
export function openDatabase(url: string, options: { poolSize?: number; tracing?: Tracing | null } = {}): DatabaseHandle {
  // With tracing, every statement is a span (observability/database.ts); without, the dialect as it is.
  const traced = (dialect: KyselyDialect, system: Dialect) => (options.tracing ? tracedDialect(dialect, options.tracing, system) : dialect);
  if (/^(mysql|mariadb):\/\//.test(url)) {
    const pool = createPool({
      uri: url.replace(/^mariadb:/, "mysql:"),
      connectionLimit: options.poolSize ?? 10,
      timezone: "Z",
      charset: "utf8mb4",
      // Counts and sums come back as numbers, not strings, while they fit in a double.
      supportBigNumbers: true,
      bigNumberStrings: false,
      decimalNumbers: true,
    });
    const db = new Kysely<Database>({
      dialect: traced(new LeaseMysqlDialect({
        pool,
        // Every connection starts at READ COMMITTED, the level write transactions run at (transaction.ts),
        // so a transaction needs no SET TRANSACTION round trip of its own.
        onCreateConnection: async (connection) => void (await connection.executeQuery(CompiledQuery.raw("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"))),
      }), "mysql"),
    });
    readCommittedSessions.add(db);
    return { db, dialect: "mysql", close: () => db.destroy() };
  }
  const path = url.replace(/^file:/, "");
  if (path !== ":memory:") mkdirSync(dirname(resolve(path)), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  // Each SQL text is prepared once and its statement reused (statement-cache.ts).
  const db = new Kysely<Database>({ dialect: traced(new SqliteDialect({ database: withStatementCache(sqlite) }), "sqlite") });
  return { db, dialect: "sqlite", close: () => db.destroy() };
}

/** Kysely instances whose MySQL connections are all at READ COMMITTED from the start (openDatabase). */
const readCommittedSessions = new WeakSet<Kysely<any>>();

/**
 * True when every connection of `db` runs its transactions at READ COMMITTED already, so a write
 * transaction need not set the level (one round trip fewer). False for any other instance, including
 * one derived with `withPlugin`: it then sets the level per transaction, as before.
 */
export function sessionsReadCommitted(db: Kysely<any>): boolean {
  return readCommittedSessions.has(db);
}

/**
 * Whether the database answers a `SELECT 1` within `withinMs`, and how long it took (the metrics'
 * `ir21_database_up`); never throws.
 */
export async function pingDatabase(db: Kysely<any>, withinMs = 2_000): Promise<{ up: boolean; seconds: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), withinMs)));
  const up = await Promise.race([
    sql`select 1`.execute(db).then(
      () => true,
      () => false,
    ),
    timeout,
  ]);
  clearTimeout(timer);
  return { up, seconds: (performance.now() - started) / 1000 };
}

export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof MysqlAdapter ? "mysql" : "sqlite";
}

/** True for the error of an insert that collided with a primary or unique key, on either database. */
export function isDuplicateKeyError(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown } | null;
  // mysql2: ER_DUP_ENTRY (1062); better-sqlite3: SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY.
  return e?.errno === 1062 || e?.code === "ER_DUP_ENTRY" || e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/**
 * Inserts ONE row unless it collides with a primary or unique key; resolves true when it was inserted,
 * false when the key already existed. Only a duplicate key is skipped; every other failure throws:
 *
 * - SQLite: `INSERT … ON CONFLICT DO NOTHING`, which covers uniqueness conflicts only
 *   (`INSERT OR IGNORE` would also skip a row that breaks NOT NULL or CHECK).
 * - MySQL/MariaDB: a plain INSERT whose ER_DUP_ENTRY is caught. Not `INSERT IGNORE`: it turns every
 *   error into a warning, so a too-long value is stored truncated, a NULL in a NOT NULL column as
 *   '' or 0, a failing foreign key as no row — all reported as success or as "duplicate". Not a no-op
 *   `ON DUPLICATE KEY UPDATE pk = pk` either: mysql2 sets CLIENT_FOUND_ROWS, so it reports one row
 *   whether it inserted or found one, and a caller could not tell created from existing. A duplicate-key
 *   error rolls back only the statement; an enclosing transaction goes on. Several rows in one insert
 *   would be all or nothing there, hence one row per call.
 *
 * Inside a MySQL transaction (REPEATABLE READ), read the existing row with a locking read afterwards:
 * a plain SELECT sees the transaction's snapshot, which may predate the row that won.
 * @example
 * const created = await insertUnlessDuplicate(db, db.insertInto("sms_throttle").values({ phone, next_send_at: 0 }));
 */
export async function insertUnlessDuplicate<DB, TB extends keyof DB>(db: Kysely<any>, insert: InsertQueryBuilder<DB, TB, InsertResult>): Promise<boolean> {
  if (dialectOf(db) === "sqlite") {
    const result = await insert.onConflict((oc) => oc.doNothing()).executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }
  try {
    await insert.executeTakeFirst();
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}

/**
 * Table options that make MySQL behave like SQLite where it matters: InnoDB for transactions and row
 * locks, utf8mb4 for Chinese operator names, and a binary collation so comparisons and unique keys are
 * exact (SQLite compares bytes too).
 */
export function portableTable<T extends string, C extends string>(builder: CreateTableBuilder<T, C>, db: Kysely<any>): CreateTableBuilder<T, C> {
  return dialectOf(db) === "mysql"
    ? builder.modifyEnd(sql.raw("engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin"))
    : builder;
}
