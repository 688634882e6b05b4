import type { H3Event } from "h3";

/**
 * File answers of the data API (CSV exports, the snapshot): a route's handler returns a
 * {@link FileAnswer} and the framework makes the HTTP of it (data-api/mount.ts): a conditional request
 * on the file's ETag (304), gzip when the client accepts it, a download name, streamed with flat memory.
 * File answers are returned bare, without the envelope (contract "File exports").
 */
export interface FileAnswer {
  readonly kind: "file";
  /** The strong ETag, fully determined by the dataset version (and resource). */
  etag: string;
  contentType: string;
  filename: string;
  /** The file's text in chunks; asked only when the client does not have this ETag. */
  chunks(): Promise<AsyncGenerator<string>>;
}

/**
 * @example
 * return fileAnswer({ etag: etagOf(version), contentType: "text/csv", filename: "x.csv", chunks: async () => csvRows() });
 */
export const fileAnswer = (file: Omit<FileAnswer, "kind">): FileAnswer => ({ kind: "file", ...file });

export const isFileAnswer = (answer: unknown): answer is FileAnswer => (answer as FileAnswer | null)?.kind === "file";

/** The strong ETag of a file that is fully determined by the dataset version (and resource). */
export const etagOf = (tag: string) => `"${tag}"`;

/** True when If-None-Match names this ETag (weak comparison, as RFC 9110 asks for If-None-Match). */
function notModified(event: H3Event, etag: string): boolean {
  const header = event.req.headers.get("if-none-match");
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === etag);
}

function acceptsGzip(event: H3Event): boolean {
  const header = event.req.headers.get("accept-encoding") ?? "";
  return header.split(",").some((part) => {
    const [coding, ...params] = part.trim().split(";");
    if (coding?.trim().toLowerCase() !== "gzip") return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** A web stream over a chunk generator that reads on demand (backpressure), closing the generator on cancel: a large file never sits in memory. */
function streamOf(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { value, done } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(encoder.encode(value));
      },
      async cancel() {
        await chunks.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
}

/** The HTTP answer of a {@link FileAnswer}: 304 when the client has it, else the file, gzip when accepted. */
export async function fileResponse(event: H3Event, file: FileAnswer, requestId: string): Promise<Response> {
  // Revalidate every time: the ETag makes that a cheap 304 until the next version.
  const common = { etag: file.etag, "cache-control": "private, no-cache", vary: "Accept-Encoding, X-API-Key, Cookie", "x-request-id": requestId };
  if (notModified(event, file.etag)) return new Response(null, { status: 304, headers: common });
  const body = streamOf(await file.chunks());
  const headers = new Headers({ "content-type": file.contentType, "content-disposition": `attachment; filename="${file.filename}"`, ...common });
  if (acceptsGzip(event)) {
    headers.set("content-encoding", "gzip");
    return new Response(body.pipeThrough(new CompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>), { status: 200, headers });
  }
  return new Response(body, { status: 200, headers });
}
