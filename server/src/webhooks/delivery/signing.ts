import { createHmac, randomBytes } from "node:crypto";

/**
 * The v1 signature scheme (docs/webhooks.md "Headers and signing"): HMAC-SHA256 keyed by the UTF-8
 * bytes of the whole secret string (prefix included, as Stripe does), over `timestamp + "." + rawBody`,
 * sent as `v1=` and 64 lower-case hex digits.
 *
 * Every delivery also carries the Standard Webhooks headers (docs/webhooks.md "Standard Webhooks"),
 * keyed by the same bytes: the specification lets a service reuse its secrets, and one key per secret
 * means a receiver passes the secret exactly as ir21 shows it, as a raw key, to the standard
 * libraries. (Their default reading of `whsec_…` is base64, which ir21's base64url secrets are not.)
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

/** The Standard Webhooks headers, spelt as the specification spells them. */
export const STANDARD_HEADERS = {
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
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
 * One Standard Webhooks signature: `v1,` and the base64 of HMAC-SHA256 over `id.timestamp.rawBody`,
 * keyed by the UTF-8 bytes of the whole secret, as {@link sign} is.
 * @example
 * signStandard("whsec_…", "evt_1", 1700000000, '{"id":"evt_1"}') // "v1,K5oZ…="
 */
export function signStandard(secret: string, eventId: string, timestampSeconds: number, rawBody: string): string {
  const base64 = createHmac("sha256", Buffer.from(secret, "utf8")).update(`${eventId}.${timestampSeconds}.${rawBody}`, "utf8").digest("base64");
  return `${SIGNATURE_SCHEME},${base64}`;
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
  // The same attempt for Standard Webhooks verifiers: the same id and timestamp, and during a grace
  // period both signatures in the one header, space-separated, the current one first.
  const standard = [input.secret, ...(input.previousSecret === null ? [] : [input.previousSecret])];
  headers[STANDARD_HEADERS.id] = input.eventId;
  headers[STANDARD_HEADERS.timestamp] = String(input.timestampSeconds);
  headers[STANDARD_HEADERS.signature] = standard.map((secret) => signStandard(secret, input.eventId, input.timestampSeconds, input.rawBody)).join(" ");
  return headers;
}
