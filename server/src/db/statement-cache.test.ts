import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { withStatementCache } from "./statement-cache.ts";

/** A real in-memory better-sqlite3 database that counts how often each SQL text is prepared. */
function countingDatabase() {
  const database = new SQLite(":memory:");
  const prepared = new Map<string, number>();
  const prepare = database.prepare.bind(database);
  const counting = {
    prepare(text: string) {
      prepared.set(text, (prepared.get(text) ?? 0) + 1);
      return prepare(text);
    },
    close: () => database.close(),
  };
  return { database, counting, prepared };
}

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

describe("withStatementCache", () => {
  it("prepares a text once and binds each call's parameters to the same statement", async () => {
    const { database, counting, prepared } = countingDatabase();
    database.exec("CREATE TABLE ranges (prefix TEXT PRIMARY KEY, operator TEXT NOT NULL)");
    const insert = database.prepare("INSERT INTO ranges VALUES (?, ?)");
    for (const [prefix, operator] of [["86134", "China Mobile"], ["86130", "China Unicom"], ["86133", "China Telecom"]]) insert.run(prefix, operator);
    const db = new Kysely<{ ranges: { prefix: string; operator: string } }>({ dialect: new SqliteDialect({ database: withStatementCache(counting) }) });
    open.push({ close: () => void db.destroy() });

    const operatorOf = (prefix: string) => db.selectFrom("ranges").select("operator").where("prefix", "=", prefix).executeTakeFirst();
    expect(await operatorOf("86134")).toEqual({ operator: "China Mobile" });
    expect(await operatorOf("86133")).toEqual({ operator: "China Telecom" });
    expect(await operatorOf("86199")).toBeUndefined();
    await db.updateTable("ranges").set({ operator: "CMCC" }).where("prefix", "=", "86134").execute();
    await db.updateTable("ranges").set({ operator: "CUCC" }).where("prefix", "=", "86130").execute();
    expect(await operatorOf("86134")).toEqual({ operator: "CMCC" });
    expect(await operatorOf("86130")).toEqual({ operator: "CUCC" });

    expect(prepared.get('select "operator" from "ranges" where "prefix" = ?')).toBe(1);
    expect(prepared.get('update "ranges" set "operator" = ? where "prefix" = ?')).toBe(1);
  });

  it("keeps at most `capacity` texts, dropping the least recently used", () => {
    const { counting, prepared } = countingDatabase();
    const cache = withStatementCache(counting, 2);
    open.push(cache);
    cache.prepare("SELECT 1");
    cache.prepare("SELECT 2");
    cache.prepare("SELECT 1"); // used again: SELECT 2 is now the oldest
    cache.prepare("SELECT 3"); // evicts SELECT 2
    cache.prepare("SELECT 1");
    cache.prepare("SELECT 3");
    expect([prepared.get("SELECT 1"), prepared.get("SELECT 3")]).toEqual([1, 1]);
    cache.prepare("SELECT 2");
    expect(prepared.get("SELECT 2")).toBe(2);
  });

  it("gives a fresh statement for a text whose cached one is still iterating", () => {
    const { database, counting } = countingDatabase();
    database.exec("CREATE TABLE t (n INTEGER)");
    database.exec("INSERT INTO t VALUES (1), (2), (3)");
    const cache = withStatementCache(counting);
    open.push(cache);
    const first = cache.prepare("SELECT n FROM t ORDER BY n");
    const iterating = first.iterate([]);
    expect(iterating.next().value).toEqual({ n: 1 });
    const second = cache.prepare("SELECT n FROM t ORDER BY n");
    expect(second).not.toBe(first);
    expect(second.all([])).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect([...iterating]).toEqual([{ n: 2 }, { n: 3 }]);
    // Once the iteration finished, the cached statement serves again.
    expect(cache.prepare("SELECT n FROM t ORDER BY n")).toBe(first);
  });

  it("sees a schema change made after the statement was cached (a migration)", () => {
    const { database, counting } = countingDatabase();
    database.exec("CREATE TABLE t (a INTEGER)");
    database.exec("INSERT INTO t VALUES (1)");
    const cache = withStatementCache(counting);
    open.push(cache);
    expect(cache.prepare("SELECT * FROM t").all([])).toEqual([{ a: 1 }]);
    database.exec("ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'x'");
    expect(cache.prepare("SELECT * FROM t").all([])).toEqual([{ a: 1, b: "x" }]);
  });
});
