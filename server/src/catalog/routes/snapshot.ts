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
import { jsonSnapshot, streamOf } from "../exports/snapshot.ts";
import { findVersion } from "../model/versions.ts";
import { etagOf, fileResponse, notModified, notModifiedResponse } from "./files.ts";
import { defineRoute } from "../../data-api/route.ts";

export const snapshotRoute = defineRoute({
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
  async handle({ event, deps, version }) {
    const etag = etagOf(version.meta.dataset_version);
    if (notModified(event, etag)) return notModifiedResponse(event, etag);
    const stored = await findVersion(deps.db, version.meta.dataset_version);
    if (!stored) throw new AppError("NO_DATASET");
    return fileResponse(event, streamOf(jsonSnapshot(deps.db, stored)), {
      contentType: "application/json; charset=utf-8",
      filename: `ir21-snapshot-${stored.version}.json`,
      etag,
    });
  },
});
