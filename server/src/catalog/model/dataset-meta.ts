import type { DatasetMeta, SourceMode } from "../../contract/envelope.ts";
import { toIso, toIsoOrNull } from "../../contract/common.ts";
import type { DatasetVersions, PinnedVersion } from "../../data-api/versions.ts";
import type { Db } from "../../db/db.ts";
import { fromVersionRow } from "./versions.ts";

/**
 * What the envelope reports before the first import: no version yet. /readyz stays 503 in this
 * state, so a load balancer never routes to a server without data.
 */
export const NO_DATASET: DatasetMeta = {
  dataset_version: "none",
  source_mode: "demo",
  source_published_at: null,
  ingested_at: toIso(0),
};

/**
 * The catalogue's versions as the envelope and the data API see them (data-api/versions.ts): the
 * current one cached briefly, so other instances' imports show within the TTL.
 */
export interface DatasetMetaSource extends DatasetVersions {
  /** The current version's meta. */
  current(): Promise<DatasetMeta>;
  /** Forget the cached value (called after a local import switches the version). */
  invalidate(): void;
}

/**
 * Reads the current dataset version (highest seq) for the envelope's meta, caching it for `ttlMs`
 * so a busy server does one tiny query per second rather than one per request.
 */
export function createDatasetMetaSource(db: Db, options: { ttlMs?: number; now?: () => number } = {}): DatasetMetaSource {
  const ttlMs = options.ttlMs ?? 1000;
  // Real time, not the injected clock: this is cache freshness, not domain behaviour.
  const now = options.now ?? Date.now;
  let cached: { value: PinnedVersion; at: number } | null = null;
  let inflight: Promise<PinnedVersion> | null = null;

  async function load(): Promise<PinnedVersion> {
    const row = await db
      .selectFrom("dataset_versions")
      .select(["version", "seq", "source_mode", "source_published_at", "ingested_at"])
      .orderBy("seq", "desc")
      .limit(1)
      .executeTakeFirst();
    if (!row) return { meta: NO_DATASET, seq: 0 };
    return {
      meta: {
        dataset_version: row.version,
        source_mode: row.source_mode as SourceMode,
        source_published_at: toIsoOrNull(row.source_published_at === null ? null : Number(row.source_published_at)),
        ingested_at: toIso(Number(row.ingested_at)),
      },
      seq: Number(row.seq),
    };
  }

  // Not async: a fresh cached version is handed back as it is, so a request that finds it costs no
  // promise or microtask (docs/performance.md "Lookup, sixth pass").
  function pinned(): PinnedVersion | Promise<PinnedVersion> {
    if (cached && now() - cached.at < ttlMs) return cached.value;
    inflight ??= load()
      .then((value) => {
        cached = { value, at: now() };
        return value;
      })
      .finally(() => {
        inflight = null;
      });
    return inflight;
  }

  return {
    async current() {
      return (await pinned()).meta;
    },
    pinned,
    async metaOf(seq) {
      const row = await db.selectFrom("dataset_versions").selectAll().where("seq", "=", seq).executeTakeFirst();
      if (!row) return null;
      const v = fromVersionRow(row);
      return { dataset_version: v.version, source_mode: v.sourceMode, source_published_at: toIsoOrNull(v.sourcePublishedAt), ingested_at: toIso(v.ingestedAt) };
    },
    invalidate() {
      cached = null;
    },
  };
}

export type { PinnedVersion };
