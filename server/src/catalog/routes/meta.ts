/**
 * GET /v1/meta[?files=true]                      public (same for every caller)
 *
 * The current dataset version: source mode and dates, record counts, and every source with package,
 * version, licence and attribution (the terms to reproduce with the data). Per-file checksums only
 * with `files=true`: libphonenumber's carrier data alone is 208 files, its geocoding and time zones
 * 154 more (57 KB in all); by default each source says how many files it read and one checksum over
 * them all (4.8 KB with the reference data, under 8 KB).
 *
 * 200 {code: 0, data: DataMeta, meta}     503 NO_DATASET before the first import
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { DataMeta, type SourceDescriptor } from "../../contract/catalog.ts";
import { toIso, toIsoOrNull } from "../../contract/common.ts";
import { olderRelease } from "../import/importers/data-versions.ts";
import { findVersion } from "../model/versions.ts";
import { attributionOf } from "../exports/snapshot.ts";
import { datedSource } from "../model/source-dates.ts";
import { defineCatalogRoute } from "./define.ts";

/** One checksum over a source's files (path and sha256 of each, in path order), for the small answer. */
function summarised(source: SourceDescriptor): SourceDescriptor {
  const lines = [...source.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((f) => `${f.sha256}  ${f.path}\n`);
  return { ...source, files: [], files_count: source.files.length, files_sha256: createHash("sha256").update(lines.join("")).digest("hex") };
}

function freshnessOf(sources: SourceDescriptor[]) {
  const carrier = sources.find((s) => s.id === "libphonenumber-carrier")?.data_version ?? null;
  const validity = sources.find((s) => s.id === "libphonenumber-js")?.data_version ?? null;
  return { carrier_data_version: carrier, validity_data_version: validity, carrier_data_older_than_validity: olderRelease(carrier, validity) };
}

export const metaRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/meta",
  summary: "Current dataset version, counts, sources and licences",
  description: "The dataset version every other answer comes from, with its record counts and the source, licence and attribution of every input.",
  access: "public",
  input: {
    query: z.object({
      files: z.enum(["true", "false"], { error: "must be true or false" }).optional(),
    }),
  },
  output: { full: DataMeta, public: DataMeta },
  async handle({ env, version, input }) {
    const v = (await findVersion(env.db, version.meta.dataset_version))!;
    return {
      dataset_version: v.version,
      previous_version: v.previousVersion,
      source_mode: v.sourceMode,
      source_published_at: toIsoOrNull(v.sourcePublishedAt),
      ingested_at: toIso(v.ingestedAt),
      counts: v.counts,
      // Each source's age and staleness against today (the server's clock), not against another source.
      sources: (input.files === "true" ? v.sources : v.sources.map(summarised)).map((s) => datedSource(s, env.clock.now().getTime())),
      attribution: attributionOf(v.sources),
      freshness: freshnessOf(v.sources),
    };
  },
});
