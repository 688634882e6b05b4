/**
 * What a receiver answered, as an attempt keeps it (docs/webhooks.md "What the receiver answered"):
 * status, duration, response headers and the first 4 KiB of the body. It is shown to the account in
 * the console, so nothing that works as a credential is kept: headers that carry one are replaced by
 * "[redacted]" and anything shaped like a signing secret (whsec_…) is masked wherever it appears (a
 * receiver that echoes its configuration must not turn the delivery log into a secret store).
 */

/** Response body bytes kept per attempt; the rest is never read (subscriptions) or never sent (listen). */
export const ANSWER_BODY_BYTES = 4_096;
/** At most this many headers, each value at most this long: an answer's record stays a few KiB. */
const MAX_HEADERS = 50;
const MAX_HEADER_VALUE = 512;

/** Header names whose values are credentials or session state. */
const CREDENTIAL_HEADER = /cookie|authorization|authenticate|token|secret|api[-_]?key|password|session/i;
const SECRET_SHAPE = /whsec_[A-Za-z0-9_-]+/g;

/** Masks every signing-secret-shaped string. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_SHAPE, "whsec_[redacted]");
}

/**
 * Response headers as kept: lower-case names, string values (repeated headers joined with ", "),
 * credentials redacted, bounded in number and length.
 */
export function keptHeaders(headers: Iterable<[string, string | string[] | undefined]>): Record<string, string> {
  const kept: Record<string, string> = {};
  let count = 0;
  for (const [rawName, rawValue] of headers) {
    if (rawValue === undefined) continue;
    const name = rawName.toLowerCase().slice(0, 100);
    if (count >= MAX_HEADERS) break;
    const value = Array.isArray(rawValue) ? rawValue.join(", ") : rawValue;
    kept[name] = CREDENTIAL_HEADER.test(name) ? "[redacted]" : redactSecrets(value).slice(0, MAX_HEADER_VALUE);
    count++;
  }
  return kept;
}

/** The start of a body as kept: at most {@link ANSWER_BODY_BYTES} bytes of UTF-8, secrets masked. */
export function keptBody(body: Buffer | string): { body: string; truncated: boolean } {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  const truncated = bytes.length > ANSWER_BODY_BYTES;
  return { body: redactSecrets(bytes.subarray(0, ANSWER_BODY_BYTES).toString("utf8")), truncated };
}
