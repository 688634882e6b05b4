import { createHmac, randomBytes } from "node:crypto";

/**
 * The v1 signature scheme (docs/webhooks.md "Signing"): HMAC-SHA256 keyed by the UTF-8 bytes of the
 * whole secret string (prefix included, as Stripe does), over `timestamp + "." + rawBody`, sent as
 * `v1=` and 64 lower-case hex digits.
 */
export const SIGNATURE_SCHEME = "v1";

/** What a secret looks like: `whsec_` and the base64url of 32 random bytes (43 characters). */
export const SECRET_PREFIX = "whsec_";
export const SECRET_PATTERN = /^whsec_[A-Za-z0-9_-]{43}$/;

/** The delivery headers, in their canonical spelling. */
export const HEADERS = {
  eventId: "X-IR21-Event-Id",
  timestamp: "X-IR21-Timestamp",
  signature: "X-IR21-Signature",
  previousSignature: "X-IR21-Signature-Previous",
} as const;

/** A new signing secret, shown to the user once (at creation or rotation). */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64url");
}

/**
 * The signature header value for one attempt.
 * @example
 * sign("whsec_…", 1700000000, '{"id":"evt_1"}') // "v1=40fc…"
 */
export function sign(secret: string, timestampSeconds: number, rawBody: string): string {
  const hex = createHmac("sha256", Buffer.from(secret, "utf8")).update(`${timestampSeconds}.${rawBody}`, "utf8").digest("hex");
  return `${SIGNATURE_SCHEME}=${hex}`;
}

/**
 * Every header of one attempt: signed afresh with the secrets valid at `timestampSeconds`, so a retry
 * after a rotation carries the new secret's signature.
 */
export function deliveryHeaders(input: {
  eventId: string;
  timestampSeconds: number;
  rawBody: string;
  secret: string;
  previousSecret: string | null;
}): Record<string, string> {
  const headers: Record<string, string> = {
    [HEADERS.eventId]: input.eventId,
    [HEADERS.timestamp]: String(input.timestampSeconds),
    [HEADERS.signature]: sign(input.secret, input.timestampSeconds, input.rawBody),
  };
  if (input.previousSecret !== null) headers[HEADERS.previousSignature] = sign(input.previousSecret, input.timestampSeconds, input.rawBody);
  return headers;
}
