import type { DatasetMeta } from "../contract/envelope.ts";
import { AppError } from "../errors.ts";

/**
 * The dataset versions every /v1 answer is pinned to. The catalogue keeps them
 * (catalog/model/dataset-meta.ts); the data API asks through this port, so it needs nothing else of
 * the catalogue.
 */
export interface DatasetVersions {
  /**
   * The current version's meta and seq (seq 0 before the first import), cached briefly: the cached
   * value itself while it is fresh (no promise on the hot path), else a promise of the read.
   */
  pinned(): PinnedVersion | Promise<PinnedVersion>;
  /** The meta of an earlier version a listing's cursor is pinned to; null for an unknown seq. */
  metaOf(seq: number): Promise<DatasetMeta | null>;
}

/** The current version with its sequence number: what a data request pins and reads at. */
export interface PinnedVersion {
  meta: DatasetMeta;
  /** dataset_versions.seq; 0 before the first import. */
  seq: number;
}

/**
 * A position in a paged listing, as its cursor carries it: the version the listing started at, so
 * every page comes from the same version even if an import commits between pages, and the last key
 * of the previous page. The cursor handed out is this position sealed for its listing (cursors.ts).
 */
interface PagePosition {
  /** Version seq the listing is pinned at. */
  v: number;
  /** Last id of the previous page. */
  k: string;
}

/** The position after the last item of a page, for the next page's cursor. */
export function encodePosition(position: PagePosition): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

function decodePosition(cursor: string): PagePosition {
  try {
    const position = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as PagePosition;
    if (Number.isInteger(position.v) && position.v > 0 && typeof position.k === "string") return position;
  } catch {
    // fall through
  }
  throw new AppError("INVALID_REQUEST", "cursor: not a cursor returned by a previous page");
}

/** The version and key a listing request reads at: the cursor's (a later page) or the current version's start. */
export function readPosition(currentSeq: number, cursor: string | undefined): { seq: number; after: string | null } {
  if (!cursor) return { seq: currentSeq, after: null };
  const position = decodePosition(cursor);
  if (position.v > currentSeq) throw new AppError("INVALID_REQUEST", "cursor: not a cursor returned by a previous page");
  return { seq: position.v, after: position.k };
}
