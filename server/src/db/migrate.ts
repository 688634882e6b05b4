import { Migrator, type Kysely, type Migration, type MigrationResultSet } from "kysely";
import { migrations } from "./migrations/index.ts";

/**
 * Runs every migration not yet applied, in name order. The provider is a static list (not a folder
 * scan) so the same code runs from sources, a bundle or a test.
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
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`Migration ${failed} failed: ${(result.error as Error).message ?? String(result.error)}`, { cause: result.error });
  }
  return result;
}
