import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { AppError } from "./errors.ts";

/**
 * Page cursors are authenticated (docs/api.md "Pagination"): a cursor is the listing's own position
 * (base64url, e.g. the last row's sort key) followed by an HMAC-SHA256 (truncated to 128 bits) over
 * the listing it belongs to — the endpoint, the caller's scope and every filter — and that position,
 * keyed by a key derived from SESSION_SECRET. So a cursor works only for the listing and filters that
 * produced it: a forged or edited cursor, or one taken from another listing, another filter or
 * another account, is 400 INVALID_REQUEST before anything is read. The position stays opaque, not
 * secret. Every instance of a deployment shares SESSION_SECRET, so any of them continues a listing;
 * rotating it ends outstanding cursors (clients start the listing again).
 */
export interface CursorSeal {
  /** The cursor to hand out for `position` (base64url) of `listing`. */
  seal(listing: string, position: string): string;
  /** The position a cursor carries, if it was sealed for this listing; 400 INVALID_REQUEST otherwise. */
  open(listing: string, cursor: string): string;
}

/** base64url characters of a 16-byte MAC. */
const MAC_CHARS = 22;

/**
 * The seal of a deployment's SESSION_SECRET; the wiring makes one (app/deps.ts `cursors`).
 * @example
 * const next_cursor = cursors.seal(`deliveries:${userId}:${id}`, position);
 */
export function createCursorSeal(secret: string): CursorSeal {
  const key = Buffer.from(hkdfSync("sha256", secret, "", "ir21 page cursors v1", 32));
  // The listing is length-prefixed, so no listing/position pair can be read as another.
  const mac = (listing: string, position: string) =>
    createHmac("sha256", key).update(`${Buffer.byteLength(listing)}:${listing}`).update(position).digest().subarray(0, 16).toString("base64url");
  return {
    seal: (listing, position) => `${position}${mac(listing, position)}`,
    open(listing, cursor) {
      const position = cursor.slice(0, -MAC_CHARS);
      const given = Buffer.from(cursor.slice(-MAC_CHARS));
      const expected = Buffer.from(mac(listing, position));
      if (cursor.length <= MAC_CHARS || given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new AppError("INVALID_REQUEST", "cursor: not a cursor returned by a previous page of this listing with these filters");
      }
      return position;
    },
  };
}

/** A listing's name from its endpoint and filters, independent of their order; `cursor` and `limit` are not filters. */
export function listingOf(endpoint: string, filters: Record<string, unknown>): string {
  const entries = Object.entries(filters)
    .filter(([name, value]) => name !== "cursor" && name !== "limit" && value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${endpoint}?${JSON.stringify(entries)}`;
}
