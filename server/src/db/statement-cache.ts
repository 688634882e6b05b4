import type { SqliteDatabase, SqliteStatement } from "kysely";

/** Distinct SQL texts kept prepared per SQLite connection (docs/performance.md "Prepared statements"). */
export const STATEMENT_CACHE_SIZE = 256;

/** What the cache needs of a better-sqlite3 database: prepare, close, and a statement's busy flag. */
interface PreparingDatabase {
  prepare(sql: string): SqliteStatement & { readonly busy: boolean };
  close(): void;
}

/**
 * Wraps a better-sqlite3 database for Kysely's SqliteDialect so that a statement is prepared once per
 * SQL text and reused, instead of on every query (Kysely's SQLite connection calls `prepare` for each
 * one; preparing costs about as much as running a short statement, 20–200 µs, the claim of webhook
 * deliveries the most). Parameters are bound per run, so reuse is safe for any text; SQLite re-prepares
 * a cached statement by itself after a schema change (a migration). Bounded, least recently used
 * first out: texts that differ per call (IN lists of varying length) cannot grow it without limit.
 * A statement still iterating (a streamed query not yet finished) is busy and cannot run twice at once:
 * the same text then gets a fresh, uncached statement.
 *
 * Hand-rolled rather than lru-cache: a Map in insertion order is the whole LRU here (about ten lines),
 * and the server package gains no runtime dependency for it.
 */
export function withStatementCache(database: PreparingDatabase, capacity = STATEMENT_CACHE_SIZE): SqliteDatabase {
  if (!(Number.isInteger(capacity) && capacity >= 1)) throw new Error(`statement cache capacity must be a positive integer, not ${capacity}`);
  const cache = new Map<string, SqliteStatement & { readonly busy: boolean }>();
  return {
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql);
      if (cached) {
        if (cached.busy) return database.prepare(sql);
        // Most recently used goes last; the first key is then always the one to evict.
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const statement = database.prepare(sql);
      cache.set(sql, statement);
      if (cache.size > capacity) cache.delete(cache.keys().next().value!);
      return statement;
    },
    close(): void {
      cache.clear();
      database.close();
    },
  };
}
