/**
 * GET /v1/meta                                   public (same for every caller)
 *
 * The current dataset version: source mode and dates, record counts, and every source with package,
 * version, file checksums, licence and attribution (the terms to reproduce with the data).
 *
 * 200 {code: 0, data: DataMeta, meta}     503 NO_DATASET before the first import
 */
import { DataMeta } from "../../contract/catalog.ts";
import { toIso, toIsoOrNull } from "../../contract/common.ts";
import { findVersion } from "../versions.ts";
import { attributionOf } from "../snapshot.ts";
import { defineRoute } from "./route.ts";

export const metaRoute = defineRoute({
  method: "GET",
  path: "/v1/meta",
  summary: "Current dataset version, counts, sources and licences",
  description: "The dataset version every other answer comes from, with its record counts and the source, licence and attribution of every input.",
  access: "public",
  input: {},
  output: { full: DataMeta, public: DataMeta },
  async handle({ deps, version }) {
    const v = (await findVersion(deps.db, version.meta.dataset_version))!;
    return {
      dataset_version: v.version,
      previous_version: v.previousVersion,
      source_mode: v.sourceMode,
      source_published_at: toIsoOrNull(v.sourcePublishedAt),
      ingested_at: toIso(v.ingestedAt),
      counts: v.counts,
      sources: v.sources,
      attribution: attributionOf(v.sources),
    };
  },
});
