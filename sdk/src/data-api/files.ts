import type { CallOptions } from "./http.ts";

/**
 * CSV exports and the snapshot are files: streamed, without the envelope, cached by ETag (the dataset
 * version). A download hands over the body as a web stream so a large export never sits in memory.
 */

export interface DownloadOptions extends CallOptions {
  /** The ETag of the copy you hold: an unchanged file answers 304 (not charged) with no body. */
  ifNoneMatch?: string;
  /**
   * Called as the body is read: the bytes so far (after decompression) and the file's size when the
   * server said it (`Content-Length` of an uncompressed answer), else null.
   */
  onProgress?: (progress: { bytes: number; total: number | null }) => void;
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
    const total = sizeOf(response.headers);
    let bytes = 0;
    body = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          controller.enqueue(chunk);
          onProgress({ bytes, total });
        },
      }),
    );
  }
  return { notModified: false, body, etag, filename: filenameOf(response.headers.get("content-disposition")), contentType: response.headers.get("content-type"), requestId };
}

/** The body's size, known only when it arrives as sent: a compressed answer's length is not the file's. */
function sizeOf(headers: Headers): number | null {
  const encoding = headers.get("content-encoding");
  if (encoding !== null && encoding !== "identity") return null;
  const length = headers.get("content-length");
  return length !== null && /^\d+$/.test(length) ? Number(length) : null;
}

function filenameOf(disposition: string | null): string | null {
  const match = disposition && /filename="([^"]+)"/.exec(disposition);
  return match ? match[1]! : null;
}
