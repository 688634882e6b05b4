import { sql, type Kysely } from "kysely";
import { dialectOf } from "../db.ts";

/**
 * A dataset version's sources (JSON) outgrew MySQL's TEXT (64 KB) once national registers joined them:
 * each register file is a source with its coverage, beside libphonenumber's 362 files and their
 * checksums. MEDIUMTEXT (16 MB) on MySQL; SQLite's TEXT has no such bound.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === "mysql") await db.schema.alterTable("dataset_versions").modifyColumn("sources", sql`mediumtext`, (c) => c.notNull()).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === "mysql") await db.schema.alterTable("dataset_versions").modifyColumn("sources", "text", (c) => c.notNull()).execute();
}
