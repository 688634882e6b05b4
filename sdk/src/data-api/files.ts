import type { CallOptions } from "./http.ts";

/**
 * CSV exports and the snapshot are files: streamed, without the envelope, cached by ETag (the dataset
 * version). A download hands over the body as a web stream so a large export never sits in memory.
 */

export interface DownloadOptions extends CallOptions {
  /** The ETag of the copy you hold: an unchanged file answers 304 (not charged) with no body. */
  ifNoneMatch?: string;
  /** Called as the body is read, with the bytes so far (after decompression). */
  onProgress?: (progress: { bytes: number }) => void;
}

export type FileDownload =
  | {
      notModified: false;
      /** The file, decompressed. Read it once (pipe it to a file, parse it, or cancel it). */
      body: ReadableStream<Uint8Array>;
      /** `"<dataset_version>"` (snapshot) or `"<dataset_version>-<resource>"` (CSV): keep it for `ifNoneMatch`. */
      etag: string | null;
      /** The server's download name, e.g. `ir21-number-ranges-2026-11-23.000001.csv`. */
      filename: string | null;
      contentType: string | null;
      requestId: string | null;
    }
  | { notModified: true; body: null; etag: string | null; filename: null; contentType: null; requestId: string | null };

export function toDownload(response: Response, options: DownloadOptions): FileDownload {
  const etag = response.headers.get("etag");
  const requestId = response.headers.get("x-request-id");
  if (response.status === 304) {
    void response.body?.cancel();
    return { notModified: true, body: null, etag: etag ?? options.ifNoneMatch ?? null, filename: null, contentType: null, requestId };
  }
  let body = response.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  if (options.onProgress) {
    const onProgress = options.onProgress;
    let bytes = 0;
    body = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          controller.enqueue(chunk);
          onProgress({ bytes });
        },
      }),
    );
  }
  return { notModified: false, body, etag, filename: filenameOf(response.headers.get("content-disposition")), contentType: response.headers.get("content-type"), requestId };
}

function filenameOf(disposition: string | null): string | null {
  const match = disposition && /filename="([^"]+)"/.exec(disposition);
  return match ? match[1]! : null;
}
