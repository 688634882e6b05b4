import type { EventPayload } from "../wire.ts";
import { WebhookVerificationError } from "./errors.ts";

/** The delivery headers, in their canonical spelling (header names are case-insensitive). */
export const WEBHOOK_HEADERS = {
  eventId: "X-IR21-Event-Id",
  timestamp: "X-IR21-Timestamp",
  signature: "X-IR21-Signature",
  previousSignature: "X-IR21-Signature-Previous",
} as const;

/**
 * The Standard Webhooks headers every delivery also carries (docs/webhooks.md "Standard Webhooks"):
 * the event id, the same timestamp, and `v1,<base64>` signatures of `id.timestamp.body`, space-separated
 * (two during a rotation's grace period), keyed by the same secret as X-IR21-Signature.
 */
export const STANDARD_WEBHOOK_HEADERS = {
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
} as const;

/** Which signature headers a delivery is checked by: ir21's own (`X-IR21-*`) or Standard Webhooks' (`webhook-*`). */
export type WebhookScheme = "ir21" | "standard";

/** The recommended window between the sender's timestamp and the receiver's clock, both ways. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Every signing secret starts so; the key is the whole string, prefix included. */
const SECRET_PREFIX = "whsec_";
const SIGNATURE_PATTERN = /^v1=[0-9a-f]{64}$/;
/** A Standard Webhooks signature list entry: `<version>,<signature>`. */
const STANDARD_ENTRY_PATTERN = /^([^,]+),(.+)$/;
/** The base64 of an HMAC-SHA256 (32 bytes), padded as the specification's examples are. */
const STANDARD_V1_PATTERN = /^[A-Za-z0-9+/]{43}=$/;
// 15 digits keep every accepted value an exact JavaScript number.
const TIMESTAMP_PATTERN = /^[0-9]{1,15}$/;

/**
 * Request headers as the common runtimes hand them over: a Fetch `Headers` (Workers, Deno, Bun, h3 v2,
 * Next.js), or a plain record such as node:http's `req.headers` (names in any case; a repeated header
 * as an array, treated as the comma-joined value a `Headers` object would give).
 */
export type WebhookHeaders = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookInput {
  /**
   * The body exactly as received: bytes or their UTF-8 text. Never a re-serialised object: the
   * signature covers the bytes, and `JSON.stringify(JSON.parse(body))` rarely reproduces them.
   */
  rawBody: string | Uint8Array | ArrayBuffer;
  headers: WebhookHeaders;
  /**
   * The subscription's signing secret(s), whole (`whsec_…`). During a rotation pass both the new and
   * the old one; a delivery signed by any of them, in either signature header, is accepted.
   */
  secrets: string | readonly string[];
  /** Accepted distance between X-IR21-Timestamp and `now`, in either direction. Default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock; defaults to the current time. */
  now?: Date | (() => Date);
  /**
   * Which headers to check. `"auto"` (the default) checks the X-IR21-* headers when the three required
   * ones are present (every ir21 delivery has them), otherwise the Standard Webhooks headers (`webhook-id`,
   * `webhook-timestamp`, `webhook-signature`) when those are, e.g. behind a relay that forwards only
   * them. `"ir21"` or `"standard"` checks that scheme only. The secrets are the same for both.
   */
  scheme?: "auto" | WebhookScheme;
}

/**
 * Verifies a signed webhook delivery and returns its event; throws {@link WebhookVerificationError}
 * naming the failed check otherwise. Runs on Web Crypto, so it works in Node 20+, Deno, Bun, Cloudflare
 * Workers and browsers.
 *
 * Either scheme a delivery carries is accepted (`scheme`): ir21's X-IR21-* headers, or the Standard
 * Webhooks headers, keyed by the same secrets. Checks, in order: the scheme's three required headers
 * are present (`MISSING_HEADER`); every signature is well formed (`MALFORMED_SIGNATURE`: `v1=` and 64
 * lower-case hex digits; for Standard Webhooks, space-separated `version,signature` entries with at
 * least one `v1,` and the base64 of 32 bytes, other versions being skipped); the timestamp is a digit
 * string (`INVALID_TIMESTAMP`) within `toleranceSeconds` of `now` (`TIMESTAMP_OUT_OF_TOLERANCE`); some
 * signature is the HMAC-SHA256 of `timestamp + "." + rawBody` (Standard Webhooks: `id + "." +
 * timestamp + "." + rawBody`) keyed by the UTF-8 bytes of some secret, compared in constant time
 * (`SIGNATURE_MISMATCH`); the body is a JSON object with a string `id` (`MALFORMED_BODY`) equal to the
 * X-IR21-Event-Id or webhook-id header (`EVENT_ID_MISMATCH`).
 * @example
 * const event = await verifyWebhook({
 *   rawBody,                          // the exact bytes received
 *   headers: request.headers,
 *   secrets: [process.env.IR21_WEBHOOK_SECRET!, process.env.IR21_WEBHOOK_PREVIOUS_SECRET].filter(Boolean),
 * });
 * console.log(event.id, event.type, event.dataset_version);
 * @example
 * // Only the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature), same secret:
 * const event = await verifyWebhook({ rawBody, headers: request.headers, secrets: process.env.IR21_WEBHOOK_SECRET!, scheme: "standard" });
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<EventPayload> {
  const secrets = checkSecrets(input.secrets);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== "number" || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError("verifyWebhook: toleranceSeconds must be a finite number of seconds, 0 or more");
  }
  const body = bodyBytes(input.rawBody);

  const read = headerReader(input.headers);
  const signed = signedHeaders(read, input.scheme ?? "auto");
  const { eventId, timestamp } = signed;

  if (!TIMESTAMP_PATTERN.test(timestamp)) {
    throw new WebhookVerificationError("INVALID_TIMESTAMP", `${signed.names.timestamp} must be Unix seconds as a digit string`);
  }
  const nowSeconds = Math.floor(currentTime(input.now).getTime() / 1000);
  const skew = nowSeconds - Number(timestamp);
  if (Math.abs(skew) > tolerance) {
    throw new WebhookVerificationError(
      "TIMESTAMP_OUT_OF_TOLERANCE",
      `${signed.names.timestamp} is ${Math.abs(skew)} s ${skew > 0 ? "in the past" : "in the future"}; at most ${tolerance} s is accepted (check the receiver's clock)`,
    );
  }

  const message = concat(utf8.encode(signed.scheme === "ir21" ? `${timestamp}.` : `${eventId}.${timestamp}.`), body);
  let matched = false;
  for (const secret of secrets) {
    const mac = await hmacSha256(secret, message);
    // The form the header carries: raw bytes for ir21's hex, the base64 text for Standard Webhooks
    // (compared as text, so only the canonical encoding matches).
    const computed = signed.scheme === "ir21" ? mac : utf8.encode(base64(mac));
    // No early exit: the work done does not depend on which pair matched.
    for (const candidate of signed.signatures) matched = constantTimeEqual(computed, candidate) || matched;
  }
  if (!matched) {
    throw new WebhookVerificationError("SIGNATURE_MISMATCH", "No signature matches any of the given secrets (wrong secret, or the body, timestamp or id was altered)");
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(strictUtf8.decode(body));
  } catch {
    throw new WebhookVerificationError("MALFORMED_BODY", "The body is not UTF-8 JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || typeof (parsed as { id?: unknown }).id !== "string") {
    throw new WebhookVerificationError("MALFORMED_BODY", "The body is not an event object with a string id");
  }
  const event = parsed as EventPayload;
  if (event.id !== eventId) {
    throw new WebhookVerificationError("EVENT_ID_MISMATCH", `${signed.names.eventId} does not equal the body's id`);
  }
  return event;
}

/** The signed parts of a delivery as one scheme's headers give them, checked for form. */
interface SignedHeaders {
  scheme: WebhookScheme;
  eventId: string;
  timestamp: string;
  /** Each signature as the bytes to compare with: the HMAC for ir21, the base64 text for Standard Webhooks. */
  signatures: Uint8Array[];
  /** Header names for messages. */
  names: { eventId: string; timestamp: string };
}

const IR21_REQUIRED = [WEBHOOK_HEADERS.eventId, WEBHOOK_HEADERS.timestamp, WEBHOOK_HEADERS.signature] as const;
const STANDARD_REQUIRED = [STANDARD_WEBHOOK_HEADERS.id, STANDARD_WEBHOOK_HEADERS.timestamp, STANDARD_WEBHOOK_HEADERS.signature] as const;

/** Picks the scheme (MISSING_HEADER when none is complete) and checks its signatures' form (MALFORMED_SIGNATURE). */
function signedHeaders(read: (name: string) => string | undefined, wanted: "auto" | WebhookScheme): SignedHeaders {
  if (wanted !== "auto" && wanted !== "ir21" && wanted !== "standard") throw new TypeError('verifyWebhook: scheme must be "auto", "ir21" or "standard"');
  const missing = (names: readonly string[]) => names.filter((name) => read(name) === undefined);
  const ir21Missing = missing(IR21_REQUIRED);
  const standardMissing = missing(STANDARD_REQUIRED);
  let scheme: WebhookScheme;
  if (wanted !== "auto") scheme = wanted;
  // ir21's own headers win whenever they are complete: every ir21 delivery carries both schemes.
  else if (ir21Missing.length === 0) scheme = "ir21";
  else if (standardMissing.length === 0) scheme = "standard";
  // Neither is complete: name what is missing of the scheme the delivery seems to use.
  else scheme = standardMissing.length < ir21Missing.length ? "standard" : "ir21";
  const absent = scheme === "ir21" ? ir21Missing : standardMissing;
  if (absent.length > 0) {
    const other = wanted === "auto" && ir21Missing.length === IR21_REQUIRED.length && standardMissing.length === STANDARD_REQUIRED.length ? ` (or ${STANDARD_REQUIRED.join(", ")})` : "";
    throw new WebhookVerificationError("MISSING_HEADER", `Missing header${absent.length > 1 ? "s" : ""}: ${absent.join(", ")}${other}`);
  }
  return scheme === "ir21" ? ir21Signed(read) : standardSigned(read);
}

function ir21Signed(read: (name: string) => string | undefined): SignedHeaders {
  const signature = read(WEBHOOK_HEADERS.signature)!;
  const previousSignature = read(WEBHOOK_HEADERS.previousSignature);
  const values = previousSignature === undefined ? [signature] : [signature, previousSignature];
  for (const [index, value] of values.entries()) {
    if (!SIGNATURE_PATTERN.test(value)) {
      const header = index === 0 ? WEBHOOK_HEADERS.signature : WEBHOOK_HEADERS.previousSignature;
      throw new WebhookVerificationError("MALFORMED_SIGNATURE", `${header} must be "v1=" followed by 64 lower-case hexadecimal digits`);
    }
  }
  return {
    scheme: "ir21",
    eventId: read(WEBHOOK_HEADERS.eventId)!,
    timestamp: read(WEBHOOK_HEADERS.timestamp)!,
    signatures: values.map((value) => hexToBytes(value.slice(3))),
    names: { eventId: WEBHOOK_HEADERS.eventId, timestamp: WEBHOOK_HEADERS.timestamp },
  };
}

/**
 * The specification's signature list: space-separated `version,signature` entries. Versions other than
 * `v1` (e.g. `v1a`, asymmetric) are skipped as the specification says; ir21 signs with `v1` only.
 */
function standardSigned(read: (name: string) => string | undefined): SignedHeaders {
  const header = STANDARD_WEBHOOK_HEADERS.signature;
  const signatures: Uint8Array[] = [];
  for (const entry of read(header)!.split(" ")) {
    if (entry === "") continue;
    const parts = STANDARD_ENTRY_PATTERN.exec(entry);
    if (!parts) throw new WebhookVerificationError("MALFORMED_SIGNATURE", `${header} must be space-separated "version,signature" entries, e.g. "v1,<base64>"`);
    if (parts[1] !== "v1") continue;
    if (!STANDARD_V1_PATTERN.test(parts[2]!)) {
      throw new WebhookVerificationError("MALFORMED_SIGNATURE", `A v1 signature in ${header} must be the base64 of 32 bytes (44 characters ending in "=")`);
    }
    signatures.push(utf8.encode(parts[2]!));
  }
  if (signatures.length === 0) throw new WebhookVerificationError("MALFORMED_SIGNATURE", `${header} carries no v1 signature`);
  return {
    scheme: "standard",
    eventId: read(STANDARD_WEBHOOK_HEADERS.id)!,
    timestamp: read(STANDARD_WEBHOOK_HEADERS.timestamp)!,
    signatures,
    names: { eventId: STANDARD_WEBHOOK_HEADERS.id, timestamp: STANDARD_WEBHOOK_HEADERS.timestamp },
  };
}

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function checkSecrets(secrets: string | readonly string[]): readonly string[] {
  const list = typeof secrets === "string" ? [secrets] : secrets;
  if (!Array.isArray(list) || list.length === 0) throw new TypeError("verifyWebhook: pass at least one signing secret");
  for (const secret of list) {
    if (typeof secret !== "string" || !secret.startsWith(SECRET_PREFIX) || secret.length <= SECRET_PREFIX.length) {
      // The key is the whole secret: a stripped prefix (or an unset variable) can never verify anything.
      throw new TypeError(`verifyWebhook: every secret must be the whole signing secret, starting "${SECRET_PREFIX}"`);
    }
  }
  return list;
}

function bodyBytes(rawBody: unknown): Uint8Array {
  if (typeof rawBody === "string") return utf8.encode(rawBody);
  // Any view (Buffer, Uint8Array, DataView) or buffer, also from another realm.
  if (ArrayBuffer.isView(rawBody)) return new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  if (Object.prototype.toString.call(rawBody) === "[object ArrayBuffer]") return new Uint8Array(rawBody as ArrayBuffer);
  // A framework's parsed JSON body: re-serialising it would not reproduce the signed bytes.
  throw new TypeError(
    "verifyWebhook: rawBody must be the raw request body (string, Uint8Array/Buffer or ArrayBuffer), not a parsed object; " +
      "read the body unparsed (e.g. express.raw({ type: 'application/json' }))",
  );
}

/** Reads a header from either shape; absent is `undefined`, repeated values are comma-joined. */
function headerReader(headers: WebhookHeaders): (name: string) => string | undefined {
  if (typeof (headers as { get?: unknown }).get === "function") {
    const fetchHeaders = headers as { get(name: string): string | null };
    return (name) => fetchHeaders.get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const byLowerName = new Map<string, string>();
  for (const [name, value] of Object.entries(record)) {
    if (value === undefined) continue;
    const text = typeof value === "string" ? value : value.join(", ");
    const key = name.toLowerCase();
    const earlier = byLowerName.get(key);
    byLowerName.set(key, earlier === undefined ? text : `${earlier}, ${text}`);
  }
  return (name) => byLowerName.get(name.toLowerCase());
}

function currentTime(now: VerifyWebhookInput["now"]): Date {
  const value = typeof now === "function" ? now() : (now ?? new Date());
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new TypeError("verifyWebhook: now must be a valid Date");
  return value;
}

async function hmacSha256(secret: string, message: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new TypeError("verifyWebhook: Web Crypto (crypto.subtle) is not available in this runtime");
  const key = await subtle.importKey("raw", utf8.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await subtle.sign("HMAC", key, message));
}

/** Equal-length comparison whose time does not depend on where the bytes differ. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/** Standard base64, padded; `btoa` is in every runtime the SDK supports. */
function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Only called on strings that passed SIGNATURE_PATTERN, so every pair is valid hex. */
function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
