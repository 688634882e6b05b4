import { Kysely, type KyselyPlugin } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testTarget, type TestDatabase } from "../../testing/databases.ts";
import { openDatabase, type DatabaseHandle } from "./db.ts";
import { migrateToLatest } from "./migrate.ts";
import { migrations } from "./migrations/index.ts";

let database: TestDatabase;
let handles: DatabaseHandle[] = [];
beforeAll(async () => {
  database = await createTestDatabase();
  // Three processes' worth of pools on one fresh database (on Galera: three nodes).
  handles = [0, 1, 2].map(() => openDatabase(database.url));
});
afterAll(async () => {
  for (const h of handles) await h.close();
  await database.drop();
});

// MySQL/MariaDB only: `migrate` is how several processes share one server's schema there. (SQLite
// migrates at start in its one process; Kysely's SQLite adapter takes no migration lock.)
describe.runIf(testTarget() === "mysql")("migrations run once however many migrate at once (lease row, not GET_LOCK)", () => {
  it("three concurrent runs apply every migration exactly once, and the lease is free afterwards", async () => {
    const runs = await Promise.all(handles.map((h) => migrateToLatest(h.db)));
    const applied = runs.flatMap((r) => (r.results ?? []).filter((m) => m.status === "Success").map((m) => m.migrationName));
    expect(applied.sort()).toEqual(Object.keys(migrations).sort());
    const lock = await handles[0]!.db.selectFrom("kysely_migration_lock" as any).select("is_locked" as any).executeTakeFirstOrThrow();
    expect(Number((lock as { is_locked: unknown }).is_locked)).toBe(0);
  });

  it("waits for a live lease and takes an expired one", async () => {
    const db = handles[0]!.db as any;
    const now = Math.floor(Date.now() / 1000);
    // A run that died holding the lease a minute ago, its lease already over: the next run takes it.
    await db.updateTable("kysely_migration_lock").set({ is_locked: now - 60 }).execute();
    await expect(migrateToLatest(handles[1]!.db)).resolves.toBeDefined();
    // A live lease (another run in progress): migrate waits until it is released.
    await db.updateTable("kysely_migration_lock").set({ is_locked: now + 600 }).execute();
    let done = false;
    const waiting = migrateToLatest(handles[2]!.db).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 600));
    expect(done).toBe(false);
    await db.updateTable("kysely_migration_lock").set({ is_locked: 0 }).execute();
    await waiting;
    expect(done).toBe(true);
  });
});

/** Fails the first `failures` statements it sees as Galera fails a certification conflict. */
function conflicting(failures: number): KyselyPlugin {
  let left = failures;
  return {
    transformQuery(args) {
      if (left > 0) {
        left--;
        throw Object.assign(new Error("Deadlock found when trying to get lock; try restarting transaction"), { errno: 1213, code: "ER_LOCK_DEADLOCK" });
      }
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
}

describe("a migrate run that loses the race for Kysely's own tables", () => {
  it("starts again after a conflict before any migration, and gives up after a few", async () => {
    const fresh = await createTestDatabase();
    const handle = openDatabase(fresh.url);
    try {
      // The first statement (creating kysely_migration) fails as the loser of a Galera race does.
      const racing = (handle.db as Kysely<any>).withPlugin(conflicting(1));
      const result = await migrateToLatest(racing);
      expect((result.results ?? []).filter((m) => m.status === "Success").map((m) => m.migrationName).sort()).toEqual(Object.keys(migrations).sort());
      // Conflicts that never stop: it gives up with the database's error, naming the setup.
      await expect(migrateToLatest((handle.db as Kysely<any>).withPlugin(conflicting(1000)))).rejects.toThrow(/^Migration setup failed: Deadlock found/);
    } finally {
      await handle.close();
      await fresh.drop();
    }
  });
});
