import { createWriteStream, renameSync, rmSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { leaf, type Ir21Command } from "../command.ts";
import { UsageError } from "../errors.ts";
import { humanBytes } from "../output.ts";
import { downloadProgress } from "../progress.ts";
import { quotedEtag } from "./shared.ts";
import type { Runtime } from "../runtime.ts";
import { EXPORT_RESOURCES, type ExportResource } from "../sdk.ts";

export function exportCommand(rt: Runtime): Ir21Command {
  return leaf({
    category: "Data",
    summary: "Download a CSV export or the full snapshot to a file",
    details: [
      "CSV: one resource per file (--resource, default number-ranges), RFC 4180 with each row's source licence.",
      "Snapshot: the whole catalogue of the current version as one JSON document.",
      "The file is written under a temporary name and renamed when complete, so an interrupted download",
      "never leaves a truncated file behind. With --if-none-match and the ETag of the copy you hold, an",
      "unchanged version is not downloaded (and not charged). Progress is shown on a terminal.",
      "Needs an API key or a login; one export counts as one request against the quota.",
    ].join("\n"),
    examples: [
      "ir21 export --format csv --resource operators -o operators.csv",
      "ir21 export --format snapshot -o snapshot.json",
      'ir21 export --format snapshot -o snapshot.json --if-none-match "$(jq -r .etag last-export.json)"',
      "ir21 export --format csv -o - | head",
    ],
    args: {
      format: { type: "enum", options: ["csv", "snapshot"], required: true, description: "csv (one resource) or snapshot (everything, JSON)" },
      output: { type: "string", alias: "o", valueHint: "file", required: true, description: "Where to write; - for stdout" },
      resource: { type: "enum", options: [...EXPORT_RESOURCES], description: "The CSV export's resource (default number-ranges)" },
      "if-none-match": { type: "string", valueHint: "etag", description: "Skip the download when the server's version still has this ETag" },
    },
    run: async (args) => {
      if (args.format === "snapshot" && args.resource) throw new UsageError("--resource is for --format csv only");
      const resource = (args.resource ?? "number-ranges") as ExportResource;
      const toStdout = args.output === "-";
      if (toStdout && rt.globals.json) throw new UsageError("-o - writes the file to stdout, where --json would print its summary: drop one");
      const progress = rt.out.progress();
      const label = args.format === "csv" ? `${resource}.csv` : "snapshot";
      const options = {
        ifNoneMatch: args["if-none-match"] === undefined ? undefined : quotedEtag(args["if-none-match"], "--if-none-match"),
        onProgress: downloadProgress(progress, label),
      };
      const client = rt.data();
      const download = args.format === "csv" ? await client.exportCsv(resource, options) : await client.downloadSnapshot(options);

      if (download.notModified) {
        rt.out.success(`Not modified: the server's ${label} still has ETag ${download.etag}; nothing downloaded`);
        rt.out.result({ not_modified: true, etag: download.etag, format: args.format, resource: args.format === "csv" ? resource : null }, () => {});
        return;
      }
      let bytes = 0;
      const counted = Readable.fromWeb(download.body as import("node:stream/web").ReadableStream<Uint8Array>).on("data", (chunk: Buffer) => (bytes += chunk.length));
      try {
        if (toStdout) await pipeline(counted, stdoutSink(rt));
        else await writeAtomically(counted, args.output);
      } finally {
        progress.done();
      }
      const summary = {
        not_modified: false,
        file: toStdout ? null : args.output,
        format: args.format,
        resource: args.format === "csv" ? resource : null,
        bytes,
        etag: download.etag,
        filename: download.filename,
        request_id: download.requestId,
      };
      if (!toStdout) rt.out.success(`Wrote ${humanBytes(bytes)} to ${args.output}${download.etag ? ` (ETag ${download.etag})` : ""}`);
      if (!toStdout) rt.out.result(summary, () => {});
    },
  });
}

/** Streams into `path.partial`, then renames: the final name only ever holds a complete file. */
async function writeAtomically(source: Readable, path: string): Promise<void> {
  const partial = `${path}.partial`;
  try {
    await pipeline(source, createWriteStream(partial, { mode: 0o644 }));
    renameSync(partial, path);
  } catch (error) {
    rmSync(partial, { force: true });
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "EACCES") {
      throw new UsageError(`Cannot write ${path}: ${(error as NodeJS.ErrnoException).code}`);
    }
    throw error;
  }
}

/** stdout as a pipeline destination that is not closed at the end (other output may follow). */
function stdoutSink(rt: Runtime): Writable {
  const stdout = rt.io.stdout;
  return new Writable({
    write(chunk, _encoding, callback) {
      if (stdout.write(chunk)) callback();
      else stdout.once("drain", () => callback());
    },
  });
}
