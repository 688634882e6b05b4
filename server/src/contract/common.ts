import { z } from "zod";

/** Every time on the wire: ISO 8601 UTC with milliseconds and `Z` (DESIGN.md "Conventions"). */
export const IsoTime = z.iso.datetime({ offset: false, precision: 3 }).meta({ example: "2026-09-08T12:00:00.000Z" });

/** A calendar date, `YYYY-MM-DD`. */
export const IsoDate = z.iso.date().meta({ example: "2026-09-08" });

/** An application id with its type prefix, e.g. `usr_01jd...`. */
export const idOf = (prefix: string) =>
  z
    .string()
    .max(64)
    .regex(new RegExp(`^${prefix}_[0-9a-z]{10,40}$`), `must be an id starting with ${prefix}_`)
    .meta({ example: `${prefix}_01jd0c5r4xk3q2m8v6t9b7n1pz` });

/** Opaque pagination cursor (base64url of the sort key); clients pass back what they were given. */
export const Cursor = z.string().max(512).regex(/^[A-Za-z0-9_-]+$/, "must be a cursor returned by a previous page");

/** Page size for list endpoints; query strings arrive as text, hence the coercion. */
export const PageLimit = z.coerce.number().int().min(1).max(100);

export const toIso = (ms: number | Date): string => new Date(ms).toISOString();
export const toIsoOrNull = (ms: number | Date | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();
