import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from "kysely";
import type { Tracing } from "./tracing.ts";

/**
 * A Kysely dialect whose statements each run in a span (`db.query.text`, `db.operation.name`,
 * `db.system.name`), on SQLite and MySQL alike: the span is made around the driver connection's
 * `executeQuery`, beneath Kysely and above better-sqlite3 or mysql2, so it covers every statement the
 * server runs (transactions' BEGIN and COMMIT are the driver's own and are not spans). A Kysely plugin
 * sees a query before and its result after, but not a failure, so it could not end a failed
 * statement's span. Used only when tracing is on (db/db.ts).
 * @example
 * new Kysely({ dialect: tracedDialect(new SqliteDialect({ database }), tracing, "sqlite") });
 */
export function tracedDialect(dialect: Dialect, tracing: Tracing, system: "sqlite" | "mysql"): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => new TracedDriver(dialect.createDriver(), tracing, system),
  };
}

/** SELECT, INSERT, … : the statement's first word, upper-cased (the span's name). */
function operationOf(sql: string): string {
  const match = /^\s*(?:\(\s*)?([A-Za-z]+)/.exec(sql);
  return match ? match[1]!.toUpperCase() : "SQL";
}

class TracedConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    readonly tracing: Tracing,
    readonly system: string,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const operation = operationOf(query.sql);
    const span = this.tracing.leafSpan(operation, { "db.system.name": this.system, "db.operation.name": operation, "db.query.text": query.sql }, "client");
    try {
      return await this.inner.executeQuery<R>(query);
    } catch (error) {
      span.fail(error);
      throw error;
    } finally {
      span.end();
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** The dialect's driver, handing out traced connections and unwrapping them for its own calls. */
class TracedDriver implements Driver {
  readonly #inner: Driver;
  readonly #tracing: Tracing;
  readonly #system: string;

  constructor(inner: Driver, tracing: Tracing, system: string) {
    this.#inner = inner;
    this.#tracing = tracing;
    this.#system = system;
    // Savepoints only when the driver has them (Kysely checks for the methods).
    if (inner.savepoint) this.savepoint = (c, name, compile) => inner.savepoint!(unwrap(c), name, compile);
    if (inner.rollbackToSavepoint) this.rollbackToSavepoint = (c, name, compile) => inner.rollbackToSavepoint!(unwrap(c), name, compile);
    if (inner.releaseSavepoint) this.releaseSavepoint = (c, name, compile) => inner.releaseSavepoint!(unwrap(c), name, compile);
  }

  savepoint?: Driver["savepoint"];
  rollbackToSavepoint?: Driver["rollbackToSavepoint"];
  releaseSavepoint?: Driver["releaseSavepoint"];

  init(): Promise<void> {
    return this.#inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new TracedConnection(await this.#inner.acquireConnection(), this.#tracing, this.#system);
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#inner.beginTransaction(unwrap(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(unwrap(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(unwrap(connection));
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#inner.releaseConnection(unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}

function unwrap(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof TracedConnection ? connection.inner : connection;
}
