import { DatasetCounts, SourceDescriptor, type DatasetVersionInfo } from "../../contract/catalog.ts";
import { toIso, toIsoOrNull } from "../../contract/common.ts";
import type { SourceMode } from "../../contract/envelope.ts";
import type { Db } from "../../db/db.ts";
import type { DatasetVersionTable } from "./tables.ts";

/**
 * Dataset version strings (docs/catalog.md "Versions"): `YYYY-MM-DD.NNNNNN`, the UTC import date and
 * the version's sequence number, zero-padded to at least six digits. The date part never goes back
 * (a clock set backwards reuses the previous version's date), so the strings sort lexicographically
 * in apply order; the sequence alone already orders them.
 * @example
 * formatVersion(7, Date.parse("2026-11-23T04:00:00Z"), null) // "2026-11-23.000007"
 */
export function formatVersion(seq: number, at: number, previous: string | null): string {
  let date = new Date(at).toISOString().slice(0, 10);
  const previousDate = previous?.slice(0, 10);
  if (previousDate && previousDate > date) date = previousDate;
  return `${date}.${String(seq).padStart(6, "0")}`;
}

export const VERSION_PATTERN = /^\d{4}-\d{2}-\d{2}\.\d{6,}$/;

export interface StoredVersion {
  version: string;
  seq: number;
  previousVersion: string | null;
  sourceMode: SourceMode;
  sourcePublishedAt: number | null;
  ingestedAt: number;
  sources: SourceDescriptor[];
  counts: DatasetCounts;
  events: number;
  resetReason: string | null;
}

export function fromVersionRow(row: DatasetVersionTable): StoredVersion {
  return {
    version: row.version,
    seq: Number(row.seq),
    previousVersion: row.previous_version,
    sourceMode: row.source_mode as SourceMode,
    sourcePublishedAt: row.source_published_at === null ? null : Number(row.source_published_at),
    ingestedAt: Number(row.ingested_at),
    sources: JSON.parse(row.sources) as SourceDescriptor[],
    counts: { number_ranges_linked: 0, ...(JSON.parse(row.counts) as Partial<DatasetCounts>) } as DatasetCounts,
    events: Number(row.events),
    resetReason: row.reset_reason,
  };
}

export function toVersionInfo(v: StoredVersion): DatasetVersionInfo {
  return {
    version: v.version,
    previous_version: v.previousVersion,
    source_mode: v.sourceMode,
    source_published_at: toIsoOrNull(v.sourcePublishedAt),
    ingested_at: toIso(v.ingestedAt),
    events: v.events,
    reset_reason: v.resetReason,
    counts: v.counts,
    sources: v.sources,
  };
}

/** The current version (highest seq), or null before the first import. */
export async function currentVersion(db: Db): Promise<StoredVersion | null> {
  const row = await db.selectFrom("dataset_versions").selectAll().orderBy("seq", "desc").limit(1).executeTakeFirst();
  return row ? fromVersionRow(row) : null;
}

export async function findVersion(db: Db, version: string): Promise<StoredVersion | null> {
  const row = await db.selectFrom("dataset_versions").selectAll().where("version", "=", version).executeTakeFirst();
  return row ? fromVersionRow(row) : null;
}

/** Newest first. */
export async function listVersions(db: Db, options: { limit: number }): Promise<StoredVersion[]> {
  const rows = await db.selectFrom("dataset_versions").selectAll().orderBy("seq", "desc").limit(options.limit).execute();
  return rows.map(fromVersionRow);
}

/** The version with this sequence number, or null. */
export async function findVersionBySeq(db: Db, seq: number): Promise<StoredVersion | null> {
  const row = await db.selectFrom("dataset_versions").selectAll().where("seq", "=", seq).executeTakeFirst();
  return row ? fromVersionRow(row) : null;
}

/** The current version's name, sequence number and ingestion time, without its sources (the metrics read it at each scrape). */
export async function currentVersionStamp(db: Db): Promise<{ version: string; seq: number; ingestedAt: number } | null> {
  const row = await db.selectFrom("dataset_versions").select(["version", "seq", "ingested_at"]).orderBy("seq", "desc").limit(1).executeTakeFirst();
  return row ? { version: row.version, seq: Number(row.seq), ingestedAt: Number(row.ingested_at) } : null;
}
