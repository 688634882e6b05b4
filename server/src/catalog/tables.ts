export interface DatasetVersionTable {
  version: string;
  seq: number;
  previous_version: string | null;
  source_mode: string;
  source_published_at: number | null;
  ingested_at: number;
  /** JSON array of source descriptors. */
  sources: string;
  /** JSON object of record counts per resource. */
  counts: string;
}

export interface CatalogTables {
  dataset_versions: DatasetVersionTable;
}
