import type { EventPayload } from "../wire.ts";
import { WebhookVerificationError } from "./errors.ts";

/** The delivery headers, in their canonical spelling (header names are case-insensitive). */
export const WEBHOOK_HEADERS = {
  eventId: "X-IR21-Event-Id",
  timestamp: "X-IR21-Timestamp",
  signature: "X-IR21-Signature",
  previousSignature: "X-IR21-Signature-Previous",
} as const;

/** The recommended window between the sender's timestamp and the receiver's clock, both ways. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Every signing secret starts so; the key is the whole string, prefix included. */
const SECRET_PREFIX = "whsec_";
const SIGNATURE_PATTERN = /^v1=[0-9a-f]{64}$/;
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
}

/**
 * Verifies a signed webhook delivery and returns its event; throws {@link WebhookVerificationError}
 * naming the failed check otherwise. Runs on Web Crypto, so it works in Node 20+, Deno, Bun, Cloudflare
 * Workers and browsers.
 *
 * Checks, in order: the three required headers are present (`MISSING_HEADER`); every signature header
 * is `v1=` and 64 lower-case hex digits (`MALFORMED_SIGNATURE`); the timestamp is a digit string
 * (`INVALID_TIMESTAMP`) within `toleranceSeconds` of `now` (`TIMESTAMP_OUT_OF_TOLERANCE`); some
 * signature is the HMAC-SHA256 of `timestamp + "." + rawBody` under some secret, compared in constant
 * time (`SIGNATURE_MISMATCH`); the body is a JSON object with a string `id` (`MALFORMED_BODY`) equal to
 * X-IR21-Event-Id (`EVENT_ID_MISMATCH`).
 * @example
 * const event = await verifyWebhook({
 *   rawBody,                          // the exact bytes received
 *   headers: request.headers,
 *   secrets: [process.env.IR21_WEBHOOK_SECRET!, process.env.IR21_WEBHOOK_PREVIOUS_SECRET].filter(Boolean),
 * });
 * console.log(event.id, event.type, event.dataset_version);
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<EventPayload> {
  const secrets = checkSecrets(input.secrets);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== "number" || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError("verifyWebhook: toleranceSeconds must be a finite number of seconds, 0 or more");
  }
  const body = bodyBytes(input.rawBody);

  const read = headerReader(input.headers);
  const eventId = read(WEBHOOK_HEADERS.eventId);
  const timestamp = read(WEBHOOK_HEADERS.timestamp);
  const signature = read(WEBHOOK_HEADERS.signature);
  const previousSignature = read(WEBHOOK_HEADERS.previousSignature);
  if (eventId === undefined || timestamp === undefined || signature === undefined) {
    const missing: string[] = [];
    if (eventId === undefined) missing.push(WEBHOOK_HEADERS.eventId);
    if (timestamp === undefined) missing.push(WEBHOOK_HEADERS.timestamp);
    if (signature === undefined) missing.push(WEBHOOK_HEADERS.signature);
    throw new WebhookVerificationError("MISSING_HEADER", `Missing header${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}`);
  }

  const signatures = previousSignature === undefined ? [signature] : [signature, previousSignature];
  for (const [index, value] of signatures.entries()) {
    if (!SIGNATURE_PATTERN.test(value)) {
      const header = index === 0 ? WEBHOOK_HEADERS.signature : WEBHOOK_HEADERS.previousSignature;
      throw new WebhookVerificationError("MALFORMED_SIGNATURE", `${header} must be "v1=" followed by 64 lower-case hexadecimal digits`);
    }
  }

  if (!TIMESTAMP_PATTERN.test(timestamp)) {
    throw new WebhookVerificationError("INVALID_TIMESTAMP", `${WEBHOOK_HEADERS.timestamp} must be Unix seconds as a digit string`);
  }
  const nowSeconds = Math.floor(currentTime(input.now).getTime() / 1000);
  const skew = nowSeconds - Number(timestamp);
  if (Math.abs(skew) > tolerance) {
    throw new WebhookVerificationError(
      "TIMESTAMP_OUT_OF_TOLERANCE",
      `${WEBHOOK_HEADERS.timestamp} is ${Math.abs(skew)} s ${skew > 0 ? "in the past" : "in the future"}; at most ${tolerance} s is accepted (check the receiver's clock)`,
    );
  }

  const message = concat(utf8.encode(`${timestamp}.`), body);
  const expected = signatures.map((value) => hexToBytes(value.slice(3)));
  let matched = false;
  for (const secret of secrets) {
    const mac = await hmacSha256(secret, message);
    // No early exit: the work done does not depend on which pair matched.
    for (const candidate of expected) matched = constantTimeEqual(mac, candidate) || matched;
  }
  if (!matched) {
    throw new WebhookVerificationError("SIGNATURE_MISMATCH", "No signature matches any of the given secrets (wrong secret, or the body or timestamp was altered)");
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
    throw new WebhookVerificationError("EVENT_ID_MISMATCH", `${WEBHOOK_HEADERS.eventId} does not equal the body's id`);
  }
  return event;
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
