import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, MysqlAdapter, MysqlDialect, SqliteDialect, sql, type CreateTableBuilder, type InsertQueryBuilder } from "kysely";
import { createPool } from "mysql2";
import type { Database } from "./schema.ts";

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
export function openDatabase(url: string, options: { poolSize?: number } = {}): DatabaseHandle {
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
    const db = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
    return { db, dialect: "mysql", close: () => db.destroy() };
  }
  const path = url.replace(/^file:/, "");
  if (path !== ":memory:") mkdirSync(dirname(resolve(path)), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, dialect: "sqlite", close: () => db.destroy() };
}

export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof MysqlAdapter ? "mysql" : "sqlite";
}

/**
 * An insert that skips rows colliding with a primary or unique key: `INSERT IGNORE` on MySQL,
 * `INSERT OR IGNORE` on SQLite.
 * @example
 * await insertIgnoringDuplicates(db, db.insertInto("users").values(row)).execute();
 */
export function insertIgnoringDuplicates<DB, TB extends keyof DB, O>(db: Kysely<any>, insert: InsertQueryBuilder<DB, TB, O>): InsertQueryBuilder<DB, TB, O> {
  return dialectOf(db) === "mysql" ? insert.ignore() : insert.orIgnore();
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
