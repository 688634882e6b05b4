import type { H3Event } from "h3";

/**
 * HTTP details shared by the file routes (CSV exports, snapshot): conditional requests on the dataset
 * version, gzip when the client accepts it, a download name that carries the version.
 */

/** The strong ETag of a file that is fully determined by the dataset version (and resource). */
export const etagOf = (tag: string) => `"${tag}"`;

/** True when If-None-Match names this ETag (weak comparison, as RFC 9110 asks for If-None-Match). */
export function notModified(event: H3Event, etag: string): boolean {
  const header = event.req.headers.get("if-none-match");
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === etag);
}

export function acceptsGzip(event: H3Event): boolean {
  const header = event.req.headers.get("accept-encoding") ?? "";
  return header.split(",").some((part) => {
    const [coding, ...params] = part.trim().split(";");
    if (coding?.trim().toLowerCase() !== "gzip") return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

export function fileResponse(event: H3Event, body: ReadableStream<Uint8Array>, options: { contentType: string; filename: string; etag: string }): Response {
  const headers = new Headers({
    "content-type": options.contentType,
    "content-disposition": `attachment; filename="${options.filename}"`,
    etag: options.etag,
    // Revalidate every time: the ETag makes that a cheap 304 until the next version.
    "cache-control": "private, no-cache",
    vary: "Accept-Encoding, X-API-Key, Cookie",
    "x-request-id": event.context.requestId ?? "",
  });
  if (acceptsGzip(event)) {
    headers.set("content-encoding", "gzip");
    return new Response(body.pipeThrough(new CompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>), { status: 200, headers });
  }
  return new Response(body, { status: 200, headers });
}

export function notModifiedResponse(event: H3Event, etag: string): Response {
  return new Response(null, {
    status: 304,
    headers: { etag, "cache-control": "private, no-cache", vary: "Accept-Encoding, X-API-Key, Cookie", "x-request-id": event.context.requestId ?? "" },
  });
}
