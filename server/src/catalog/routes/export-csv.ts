/**
 * GET /v1/exports/:file                          API key or session; a file, no envelope
 *   :file = countries.csv | operators.csv | networks.csv | number-ranges.csv | capabilities.csv
 *
 * One resource of the current version as RFC 4180 CSV (UTF-8, CRLF, header row; columns in
 * docs/api.md), streamed; formula-like cells get a leading apostrophe (snapshot.ts spreadsheetSafe). Every row names its source, the source's licence and attribution.
 * ETag = "<version>-<resource>"; If-None-Match -> 304. gzip when accepted. Counts as one request.
 *
 * 200 text/csv     304     400 INVALID_REQUEST (unknown file)     401 UNAUTHORIZED
 */
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { EXPORT_RESOURCES, csvExport, type ExportResource } from "../exports/snapshot.ts";
import { findVersion } from "../model/versions.ts";
import { etagOf, fileAnswer } from "../../data-api/files.ts";
import { defineCatalogRoute } from "./define.ts";

export const EXPORT_FILES = EXPORT_RESOURCES.map((r) => `${r}.csv` as const);

export const exportCsvRoute = defineCatalogRoute({
  method: "GET",
  path: "/v1/exports/:file",
  summary: "Export a resource as CSV",
  description:
    "RFC 4180 CSV of one resource at the current dataset version, streamed, with source licence and attribution per row. A cell starting with =, +, -, @, tab, CR or an apostrophe gets a leading apostrophe (spreadsheet safety; plain numbers excepted): drop one leading apostrophe to read the exact value.",
  access: "credentials",
  input: { params: z.object({ file: z.enum(EXPORT_FILES as [string, ...string[]], { error: `must be one of ${EXPORT_FILES.join(", ")}` }) }) },
  output: { file: { contentTypes: ["text/csv; charset=utf-8"], description: "RFC 4180 CSV with a header row",
      example: "iso2,iso3,name,name_zh,calling_codes,mccs,source,source_license,source_attribution\r\nCN,CHN,China,中国,86,460;461,reference,CC0-1.0,ISO 3166-1\r\n",
    },
  },
  async handle({ env, version, input }) {
    const resource = input.file.replace(/\.csv$/, "") as ExportResource;
    const etag = etagOf(`${version.meta.dataset_version}-${resource}`);
    // The version's record is read only when the client does not have the file (not for a 304).
    return fileAnswer({
      etag,
      contentType: "text/csv; charset=utf-8; header=present",
      filename: `ir21-${resource}-${version.meta.dataset_version}.csv`,
      async chunks() {
        const stored = await findVersion(env.db, version.meta.dataset_version);
        if (!stored) throw new AppError("NO_DATASET");
        return csvExport(env.db, resource, stored);
      },
    });
  },
});
