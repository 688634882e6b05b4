/**
 * GET /v1/snapshot                               API key or session; a file, no envelope
 *
 * The whole catalogue of the current version as one JSON document (header with version, sources,
 * licences, attribution and counts; then countries, operators, networks, number_ranges,
 * capabilities), streamed; gzip when accepted. ETag = "<version>"; If-None-Match -> 304 (nothing
 * sent). Content-Disposition names the version. Counts as one request. This is what
 * ir21.catalog.updated tells subscribers to fetch.
 *
 * 200 application/json     304     401 UNAUTHORIZED
 */
import { AppError } from "../../errors.ts";
import { jsonSnapshot } from "../exports/snapshot.ts";
import { findVersion } from "../model/versions.ts";
import { etagOf, fileAnswer } from "../../data-api/files.ts";
import { defineCatalogRoute } from "./define.ts";

export const snapshotRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/snapshot",
  summary: "Full snapshot of the current dataset version",
  description: "The whole catalogue as JSON, streamed, gzip when accepted; ETag is the dataset version (If-None-Match gives 304).",
  access: "credentials",
  input: {},
  output: { file: { contentTypes: ["application/json"], description: "The snapshot document (docs/api.md \"Snapshot\")",
      example: { dataset_version: "2026-09-08.1", countries: [], operators: [], networks: [], number_ranges: [], capabilities: [] },
    },
  },
  async handle({ env, version }) {
    const etag = etagOf(version.meta.dataset_version);
    // The version's record is read only when the client does not have the file (not for a 304).
    return fileAnswer({
      etag,
      contentType: "application/json; charset=utf-8",
      filename: `ir21-snapshot-${version.meta.dataset_version}.json`,
      async chunks() {
        const stored = await findVersion(env.db, version.meta.dataset_version);
        if (!stored) throw new AppError("NO_DATASET");
        return jsonSnapshot(env.db, stored);
      },
    });
  },
});
