import type { Kysely } from "kysely";
import { portableTable } from "../db.ts";

/**
 * `write_locks`: one row per thing whose writers must take turns (an account's caps, a client
 * address's SMS caps), which they UPDATE rather than only lock (db/transaction.ts `lockAccount`,
 * docs/operations.md "Galera"). On MariaDB Galera `SELECT … FOR UPDATE` locks a row on one node only:
 * two transactions on two nodes both get it, and only a row they both write makes certification fail
 * one of them at commit (1213, which writeTransaction retries), so a cap checked after the write is
 * exact across nodes. An UPDATE that leaves a row as it was would not do: no change, nothing to certify.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await portableTable(
    db.schema
      .createTable("write_locks")
      .addColumn("name", "varchar(191)", (c) => c.primaryKey())
      .addColumn("seq", "bigint", (c) => c.notNull().defaultTo(0)),
    db,
  ).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("write_locks").execute();
}
