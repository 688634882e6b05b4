import type { Access, ChangesPage, ChangesQuery, DataClient } from "./data-api/client.ts";
import { isIr21ApiError } from "./errors.ts";
import type { EventPayload } from "./wire.ts";

/**
 * Catch-up by version (receiver rules 7 and 8): webhook deliveries are triggers, not data. They can
 * arrive late, twice or out of order, so a receiver does not write them into its copy of the catalogue;
 * it asks `/v1/changes` for everything after the version it holds, in log order, and persists the
 * version it reached. A missed delivery is then caught up on the next run.
 */

export interface SyncChangesOptions {
  /** A data client with an API key or a session (the change log is not public). */
  client: DataClient<Access>;
  /** The dataset version your copy reflects: `"none"` for the whole log, or the version of the snapshot you loaded. */
  since: string;
  /** Applies one per-record event, in log order. Awaited before the next. */
  onEvent: (event: EventPayload) => void | Promise<void>;
  /**
   * Reload the snapshot here, and return its `dataset_version` so events the snapshot already
   * contains are skipped. Called with the `ir21.catalog.updated` event (a global reset), or with
   * `null` when the server no longer serves `since` (400 UNKNOWN_DATASET_VERSION: older than its
   * change-log retention, or not its version); the listing then goes on from the version returned,
   * and without one the error is thrown.
   */
  onReset: (event: EventPayload | null) => string | void | Promise<string | void>;
  /** Narrow the per-record events; `ir21.catalog.updated` always comes through. */
  filter?: Pick<ChangesQuery, "types" | "country" | "operator">;
  /** Events per page, 1 to 1000. Default 500. */
  pageSize?: number;
  signal?: AbortSignal;
}

export interface SyncChangesResult {
  /** Persist this: the `since` of the next run. */
  version: string;
  /** Per-record events handed to `onEvent`. */
  applied: number;
  /** Calls of `onReset`: `ir21.catalog.updated` events, and a `since` the server no longer serves. */
  resets: number;
  /** Events skipped because a snapshot loaded by `onReset` already contained them. */
  skipped: number;
}

/**
 * Pages `/v1/changes` from `since` in order, applies each event, signals a snapshot reload on
 * `ir21.catalog.updated`, and returns the version to persist.
 * @example
 * const { version } = await syncChanges({
 *   client: ir21,
 *   since: state.version,
 *   onEvent: (event) => applyToMyCopy(event),
 *   onReset: async () => {
 *     const snapshot = await ir21.snapshot();
 *     if (snapshot.notModified) return;
 *     await replaceMyCopy(snapshot.data);
 *     return snapshot.data.dataset_version;
 *   },
 * });
 * state.version = version;
 */
export async function syncChanges(options: SyncChangesOptions): Promise<SyncChangesResult> {
  const { client, onEvent, onReset, signal } = options;
  if (typeof options.since !== "string" || options.since === "") throw new TypeError('syncChanges: since must be a dataset version or "none"');
  const limit = options.pageSize ?? 500;
  let since = options.since;
  let cursor: string | undefined;
  let currentVersion = since;
  // The version a reset's snapshot brought the copy to: events up to it are already in it.
  let reloadedTo: string | null = null;
  let sinceReloaded = false;
  const result = { applied: 0, resets: 0, skipped: 0 };
  for (;;) {
    let data: ChangesPage;
    try {
      ({ data } = await client.changes.list({ since, cursor, limit, ...options.filter, signal }));
    } catch (error) {
      // The log before `since` is gone (retention), even mid-listing: only a snapshot catches up.
      // Once per run, so a snapshot version the server does not know either cannot loop.
      if (sinceReloaded || !isIr21ApiError(error, "UNKNOWN_DATASET_VERSION")) throw error;
      result.resets++;
      const loaded = await onReset(null);
      if (typeof loaded !== "string" || loaded === "") throw error;
      sinceReloaded = true;
      since = reloadedTo = currentVersion = loaded;
      cursor = undefined;
      continue;
    }
    for (const event of data.items) {
      signal?.throwIfAborted();
      if (reloadedTo !== null && compareVersions(event.dataset_version, reloadedTo) <= 0) {
        result.skipped++;
        continue;
      }
      if (event.type === "ir21.catalog.updated") {
        result.resets++;
        const loaded = await onReset(event);
        if (typeof loaded === "string" && loaded !== "") reloadedTo = loaded;
      } else {
        result.applied++;
        await onEvent(event);
      }
    }
    currentVersion = data.current_version;
    cursor = data.next_cursor ?? undefined;
    if (cursor === undefined) break;
  }
  // A snapshot taken after the listing began can be newer than the listing's end.
  const version = reloadedTo !== null && compareVersions(reloadedTo, currentVersion) > 0 ? reloadedTo : currentVersion;
  return { version, ...result };
}

/**
 * Orders dataset versions (`YYYY-MM-DD.NNNNNN`, docs/catalog.md "Versions"): by date, then by sequence
 * number as a number (so a seventh digit still sorts after six). `"none"` is before everything.
 * @example
 * compareVersions("2026-11-23.000007", "2026-11-24.000001") // -1
 * if (compareVersions(event.dataset_version, state.version) <= 0) return; // already applied
 */
export function compareVersions(a: string, b: string): number {
  if (a === b) return 0;
  if (a === "none") return -1;
  if (b === "none") return 1;
  const [dateA = "", seqA = "0"] = a.split(".");
  const [dateB = "", seqB = "0"] = b.split(".");
  if (dateA !== dateB) return dateA < dateB ? -1 : 1;
  return Math.sign(Number(seqA) - Number(seqB));
}
