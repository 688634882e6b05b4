import { setTimeout as sleep } from "node:timers/promises";
import { Migrator, type Kysely, type Migration, type MigrationResultSet } from "kysely";
import { migrations } from "./migrations/index.ts";
import { isWriteConflict } from "./transaction.ts";

/** Runs of the migrator a write conflict before any migration may cost, one after another. */
const SETUP_ATTEMPTS = 5;

/**
 * Runs every migration not yet applied, in name order. The provider is a static list (not a folder
 * scan) so the same code runs from sources, a bundle or a test.
 *
 * Several `migrate` runs at once (one per Galera node, or a deploy starting several) race to create
 * Kysely's own tables and its lock row before the lease decides who migrates (migration-lease.ts);
 * on Galera the loser of that race can get a certification failure (1213, "Deadlock found") with no
 * migration run (seen in the cluster suite's three concurrent runs). Such a run starts again (a few
 * times, briefly apart) and finds the tables there; a failure inside a migration is never retried.
 * @example
 * await migrateToLatest(db);
 */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async (): Promise<Record<string, Migration>> => migrations },
    // Each domain numbers in its own hundred (migrations/index.ts), so a new catalogue migration
    // (0101) can follow an applied 0400 on an existing database; it is applied, not refused.
    allowUnorderedMigrations: true,
  });
  for (let attempt = 1; ; attempt++) {
    const result = await migrator.migrateToLatest();
    if (!result.error) return result;
    const failed = result.results?.find((r) => r.status === "Error")?.migrationName;
    if (failed === undefined && isWriteConflict(result.error) && attempt < SETUP_ATTEMPTS) {
      await sleep(50 * attempt);
      continue;
    }
    throw new Error(`Migration ${failed ?? "setup"} failed: ${(result.error as Error).message ?? String(result.error)}`, { cause: result.error });
  }
}
