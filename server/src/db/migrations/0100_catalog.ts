import { sql, type CreateTableBuilder, type Kysely } from "kysely";
import { portableTable } from "../db.ts";

/**
 * The catalogue (docs/catalog.md): versioned record tables, the change log and the import lock.
 * Record tables keep every incarnation of a record with its validity range of dataset versions
 * (valid_from <= seq < valid_to); the primary key (id, valid_from) also serves id lookups and keyset
 * pages, the secondary indexes serve the /v1 filters.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("dataset_versions").addColumn("events", "bigint", (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable("dataset_versions").addColumn("reset_reason", "varchar(40)").execute();

  const versioned = <T extends string>(builder: CreateTableBuilder<T, never>, idType: string) =>
    builder
      .addColumn("id", sql.raw(idType), (c) => c.notNull())
      .addColumn("source", "varchar(100)", (c) => c.notNull())
      .addColumn("dataset_version", "varchar(40)", (c) => c.notNull())
      .addColumn("content_hash", "varchar(32)", (c) => c.notNull())
      .addColumn("valid_from", "bigint", (c) => c.notNull())
      .addColumn("valid_to", "bigint", (c) => c.notNull());

  await portableTable(
    versioned(db.schema.createTable("catalog_countries"), "varchar(2)")
      .addColumn("iso3", "varchar(3)")
      .addColumn("name", "varchar(100)", (c) => c.notNull())
      .addColumn("name_zh", "varchar(100)")
      .addColumn("calling_codes", "text", (c) => c.notNull())
      .addColumn("mccs", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("catalog_countries_pk", ["id", "valid_from"]),
    db,
  ).execute();

  await portableTable(
    versioned(db.schema.createTable("catalog_operators"), "varchar(100)")
      .addColumn("country_iso2", "varchar(2)", (c) => c.notNull())
      .addColumn("name", "varchar(200)", (c) => c.notNull())
      .addColumn("name_local", "varchar(200)")
      .addColumn("brand", "varchar(200)")
      .addColumn("tadig", "varchar(5)")
      .addColumn("status", "varchar(24)", (c) => c.notNull())
      .addPrimaryKeyConstraint("catalog_operators_pk", ["id", "valid_from"]),
    db,
  ).execute();
  await db.schema.createIndex("catalog_operators_country").on("catalog_operators").columns(["country_iso2", "id"]).execute();

  await portableTable(
    versioned(db.schema.createTable("catalog_networks"), "varchar(7)")
      .addColumn("mcc", "varchar(3)", (c) => c.notNull())
      .addColumn("mnc", "varchar(3)", (c) => c.notNull())
      .addColumn("country_iso2", "varchar(2)", (c) => c.notNull())
      .addColumn("operator_id", "varchar(100)")
      .addColumn("name", "varchar(200)")
      .addColumn("tadig", "varchar(5)")
      .addColumn("network_type", "varchar(24)", (c) => c.notNull())
      .addColumn("status", "varchar(32)", (c) => c.notNull())
      .addColumn("technologies", "text", (c) => c.notNull())
      .addColumn("bands", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("catalog_networks_pk", ["id", "valid_from"]),
    db,
  ).execute();
  await db.schema.createIndex("catalog_networks_country").on("catalog_networks").columns(["country_iso2", "id"]).execute();
  await db.schema.createIndex("catalog_networks_operator").on("catalog_networks").columns(["operator_id", "id"]).execute();
  await db.schema.createIndex("catalog_networks_tadig").on("catalog_networks").columns(["tadig", "id"]).execute();

  await portableTable(
    versioned(db.schema.createTable("catalog_number_ranges"), "varchar(80)")
      .addColumn("plan", "varchar(4)", (c) => c.notNull())
      .addColumn("kind", "varchar(8)", (c) => c.notNull())
      .addColumn("country_iso2", "varchar(2)", (c) => c.notNull())
      .addColumn("prefix", "varchar(15)")
      .addColumn("range_start", "varchar(15)")
      .addColumn("range_end", "varchar(15)")
      .addColumn("mcc", "varchar(3)")
      .addColumn("mnc", "varchar(3)")
      .addColumn("operator_id", "varchar(100)")
      .addColumn("network_id", "varchar(7)")
      .addColumn("range_holder", "varchar(200)")
      .addColumn("range_holder_local", "varchar(200)")
      .addPrimaryKeyConstraint("catalog_number_ranges_pk", ["id", "valid_from"]),
    db,
  ).execute();
  await db.schema.createIndex("catalog_number_ranges_country").on("catalog_number_ranges").columns(["country_iso2", "id"]).execute();
  await db.schema.createIndex("catalog_number_ranges_operator").on("catalog_number_ranges").columns(["operator_id", "id"]).execute();

  await portableTable(
    versioned(db.schema.createTable("catalog_capabilities"), "varchar(191)")
      .addColumn("subject_type", "varchar(8)", (c) => c.notNull())
      .addColumn("subject_id", "varchar(100)", (c) => c.notNull())
      .addColumn("country_iso2", "varchar(2)", (c) => c.notNull())
      .addColumn("operator_id", "varchar(100)")
      .addColumn("network_id", "varchar(7)")
      .addColumn("name", "varchar(64)", (c) => c.notNull())
      .addColumn("value", "text", (c) => c.notNull())
      .addColumn("effective_at", "bigint")
      .addPrimaryKeyConstraint("catalog_capabilities_pk", ["id", "valid_from"]),
    db,
  ).execute();
  await db.schema.createIndex("catalog_capabilities_country").on("catalog_capabilities").columns(["country_iso2", "id"]).execute();
  await db.schema.createIndex("catalog_capabilities_operator").on("catalog_capabilities").columns(["operator_id", "id"]).execute();

  await portableTable(
    db.schema
      .createTable("catalog_changes")
      .addColumn("seq", "bigint", (c) => c.primaryKey())
      .addColumn("event_id", "varchar(40)", (c) => c.notNull().unique())
      .addColumn("type", "varchar(40)", (c) => c.notNull())
      .addColumn("dataset_version", "varchar(40)", (c) => c.notNull())
      .addColumn("previous_version", "varchar(40)", (c) => c.notNull())
      .addColumn("version_seq", "bigint", (c) => c.notNull())
      .addColumn("occurred_at", "bigint", (c) => c.notNull())
      .addColumn("effective_at", "bigint")
      .addColumn("country_iso2", "varchar(2)")
      .addColumn("operator_id", "varchar(100)")
      .addColumn("entity_id", "varchar(191)")
      .addColumn("data", "text", (c) => c.notNull()),
    db,
  ).execute();
  await db.schema.createIndex("catalog_changes_version").on("catalog_changes").columns(["version_seq", "seq"]).execute();

  await portableTable(
    db.schema
      .createTable("catalog_import_lock")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .addColumn("holder", "varchar(100)")
      .addColumn("locked_at", "bigint"),
    db,
  ).execute();
  await db.insertInto("catalog_import_lock").values({ id: 1, holder: null, locked_at: null }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["catalog_import_lock", "catalog_changes", "catalog_capabilities", "catalog_number_ranges", "catalog_networks", "catalog_operators", "catalog_countries"]) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.alterTable("dataset_versions").dropColumn("reset_reason").execute();
  await db.schema.alterTable("dataset_versions").dropColumn("events").execute();
}
