import { sql, type Kysely } from "kysely";
import { dialectOf, portableTable } from "../db.ts";

/**
 * Source files an operator loads (`import carriers`, `import nanpa`; docs/catalog.md "Loaded source
 * files") kept in the database, which every instance shares, instead of one machine's DATA_DIR:
 *
 * - `catalog_source_sets`: one validated set of files of a kind (`libphonenumber`, `nanpa`), named by
 *   the content digest of its files;
 * - `catalog_source_files`: its files, gzip-compressed and cut into parts of at most 512 KiB so that no
 *   statement comes near MariaDB's max_allowed_packet (16 MB by default; a release's largest file is
 *   3.9 MB, a kept file may be up to 32 MB);
 * - `catalog_source_current`: per kind, the set in use (digest null: the packaged data). No row: never
 *   chosen, so files of an older version's DATA_DIR may still be adopted (catalog/legacy-sources.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const blob = dialectOf(db) === "mysql" ? sql`mediumblob` : sql`blob`;
  await portableTable(
    db.schema
      .createTable("catalog_source_sets")
      .addColumn("kind", "varchar(32)", (c) => c.notNull())
      .addColumn("digest", "char(64)", (c) => c.notNull())
      .addColumn("version", "varchar(100)")
      .addColumn("release_name", "varchar(100)")
      .addColumn("files", "integer", (c) => c.notNull())
      .addColumn("bytes", "bigint", (c) => c.notNull())
      .addColumn("stored_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("catalog_source_sets_pk", ["kind", "digest"]),
    db,
  ).execute();
  await portableTable(
    db.schema
      .createTable("catalog_source_files")
      .addColumn("kind", "varchar(32)", (c) => c.notNull())
      .addColumn("digest", "char(64)", (c) => c.notNull())
      .addColumn("path", "varchar(191)", (c) => c.notNull())
      .addColumn("part", "integer", (c) => c.notNull())
      .addColumn("content", blob, (c) => c.notNull())
      .addPrimaryKeyConstraint("catalog_source_files_pk", ["kind", "digest", "path", "part"]),
    db,
  ).execute();
  await portableTable(
    db.schema
      .createTable("catalog_source_current")
      .addColumn("kind", "varchar(32)", (c) => c.primaryKey())
      .addColumn("digest", "char(64)")
      .addColumn("changed_at", "bigint", (c) => c.notNull()),
    db,
  ).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["catalog_source_current", "catalog_source_files", "catalog_source_sets"]) await db.schema.dropTable(table).execute();
}
