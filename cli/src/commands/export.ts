import { createWriteStream, renameSync, rmSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { closest, leaf, type Ir21Command } from "../command.ts";
import { UsageError } from "../errors.ts";
import { humanBytes } from "../output.ts";
import { downloadProgress } from "../progress.ts";
import { quotedEtag } from "./shared.ts";
import type { Runtime } from "../runtime.ts";
import { EXPORT_RESOURCES, type ExportResource } from "../sdk.ts";

/** What `ir21 export` downloads: the snapshot, or one resource's CSV. */
export const EXPORTS = ["snapshot", ...EXPORT_RESOURCES] as const;

export function exportCommand(rt: Runtime): Ir21Command {
  return leaf({
    category: "Data",
    summary: "Download a CSV export or the full snapshot to a file",
    details: [
      "<resource>: snapshot (the whole catalogue of the current version as one JSON document), or the CSV of",
      `one of ${EXPORT_RESOURCES.join(", ")} (RFC 4180, with each row's source licence).`,
      "The file is written under a temporary name and renamed when complete, so an interrupted download",
      "never leaves a truncated file behind. With --if-none-match and the ETag of the copy you hold, an",
      "unchanged version is not downloaded (and not charged). Progress is shown on a terminal.",
      "Needs an API key or a login; one export counts as one request against the quota.",
      "--json prints {not_modified, file, format, resource, bytes, etag, filename, request_id}.",
    ].join("\n"),
    examples: [
      "ir21 export operators -o operators.csv",
      "ir21 export snapshot -o snapshot.json",
      'ir21 export snapshot -o snapshot.json --if-none-match "$(jq -r .etag last-export.json)"',
      "ir21 export number-ranges -o - | head",
    ],
    choices: EXPORTS,
    oldSpellings: {
      // 0.1: `--format csv [--resource R]` (number-ranges when no resource was named) or `--format snapshot`.
      format: { positional: "resource", value: (format) => (format === "csv" ? { value: "number-ranges", weak: true } : { value: format }) },
      resource: { positional: "resource" },
    },
    args: {
      resource: { type: "positional", required: true, description: `What to export: ${EXPORTS.join(", ")}` },
      output: { type: "string", alias: "o", valueHint: "file", required: true, description: "Where to write; - for stdout" },
      "if-none-match": { type: "string", valueHint: "etag", description: "Skip the download when the server's version still has this ETag" },
    },
    run: async (args) => {
      const what = args.resource;
      if (!(EXPORTS as readonly string[]).includes(what)) {
        const suggestion = closest(what, [...EXPORTS]) ?? EXPORTS.find((name) => name.includes(what.toLowerCase()));
        throw new UsageError(`Nothing to export called "${what}": expected one of ${EXPORTS.join(", ")}`, suggestion ? `Did you mean ${suggestion}?` : undefined);
      }
      const format = what === "snapshot" ? "snapshot" : "csv";
      const resource = what as ExportResource;
      const toStdout = args.output === "-";
      if (toStdout && rt.globals.json) throw new UsageError("-o - writes the file to stdout, where --json would print its summary: drop one");
      const progress = rt.out.progress();
      const label = format === "csv" ? `${resource}.csv` : "snapshot";
      const options = {
        ifNoneMatch: args["if-none-match"] === undefined ? undefined : quotedEtag(args["if-none-match"], "--if-none-match"),
        onProgress: downloadProgress(progress, label),
      };
      const client = rt.data();
      const download = format === "csv" ? await client.exportCsv(resource, options) : await client.downloadSnapshot(options);

      if (download.notModified) {
        rt.out.success(`Not modified: the server's ${label} still has ETag ${download.etag}; nothing downloaded`);
        rt.out.result({ not_modified: true, etag: download.etag, format, resource: format === "csv" ? resource : null }, () => {});
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
        format,
        resource: format === "csv" ? resource : null,
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
