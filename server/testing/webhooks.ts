import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/**
 * A receiver-side check written from docs/webhooks.md, independent of the server's signer: true when
 * `header` is v1= and the lower-case hex HMAC-SHA256 of `timestamp.body` under the secret's UTF-8 bytes.
 */
export function signatureMatches(header: string | string[] | undefined, timestamp: string | string[] | undefined, body: string, secret: string): boolean {
  if (typeof header !== "string" || typeof timestamp !== "string" || !/^v1=[0-9a-f]{64}$/.test(header) || !/^\d+$/.test(timestamp)) return false;
  const mac = createHmac("sha256", new TextEncoder().encode(secret));
  mac.update(new TextEncoder().encode(`${timestamp}.${body}`));
  return timingSafeEqual(mac.digest(), Buffer.from(header.slice(3), "hex"));
}

/**
 * The Standard Webhooks check, also written from the docs alone: some `v1,` entry of the space-separated
 * `header` is the base64 HMAC-SHA256 of `id.timestamp.body` under the secret's UTF-8 bytes.
 */
export function standardSignatureMatches(header: string | undefined, id: string | undefined, timestamp: string | undefined, body: string, secret: string): boolean {
  if (header === undefined || id === undefined || timestamp === undefined || !/^\d+$/.test(timestamp)) return false;
  const expected = Buffer.from(`v1,${createHmac("sha256", new TextEncoder().encode(secret)).update(new TextEncoder().encode(`${id}.${timestamp}.${body}`)).digest("base64")}`);
  return header.split(" ").some((entry) => entry.length === expected.length && timingSafeEqual(Buffer.from(entry), expected));
}

export function ir21Headers(headers: IncomingHttpHeaders) {
  return {
    eventId: headers["x-ir21-event-id"] as string | undefined,
    timestamp: headers["x-ir21-timestamp"] as string | undefined,
    signature: headers["x-ir21-signature"] as string | undefined,
    previous: headers["x-ir21-signature-previous"] as string | undefined,
  };
}
