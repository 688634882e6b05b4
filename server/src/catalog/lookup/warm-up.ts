import type { DatasetVersions } from "../../data-api/versions.ts";
import { findNumber } from "./lookup.ts";
import type { LookupIndexes } from "./lookup-index.ts";
import { nextTurn, type Pause } from "./number-geo.ts";

/** The calling codes whose geocoding files are large (+86: 8 MB in two languages): loaded by the warm-up. */
const WARMED_CALLING_CODES = ["86"];

/**
 * Loads what the first lookup would otherwise load: the current version's index, the geocoding and
 * time-zone files of the calling codes whose files are large, and one answer in each projection. In
 * slices, with `pause` between them (the next event-loop turn by default), so that requests arriving
 * meanwhile are answered (docs/performance.md "Warm-up").
 * @example
 * await warmLookups({ versions: datasetMeta, lookupIndexes });
 */
export async function warmLookups(catalog: { versions: Pick<DatasetVersions, "pinned">; lookupIndexes: LookupIndexes }, pause: Pause = nextTurn): Promise<void> {
  const version = await catalog.versions.pinned();
  if (version.seq === 0) return;
  const index = await catalog.lookupIndexes.at(version.seq, pause);
  await index.geo.warm(WARMED_CALLING_CODES, pause);
  // One answer in each projection: compiles the output schemas (zod builds its parsers on first use)
  // and runs libphonenumber-js once on the numbers' metadata.
  for (const number of ["+8613912345678", "+861012345678"]) {
    for (const projection of ["full", "public"] as const) index.answers.json(findNumber(index, number), projection);
    await pause();
  }
}
