/**
 * Why a delivery was refused, in the order the checks run (docs/webhooks.md "Verifying a delivery";
 * the same codes as docs/webhook-signature-vectors.json).
 */
export const WEBHOOK_FAILURE_CODES = [
  "MISSING_HEADER",
  "MALFORMED_SIGNATURE",
  "INVALID_TIMESTAMP",
  "TIMESTAMP_OUT_OF_TOLERANCE",
  "SIGNATURE_MISMATCH",
  "MALFORMED_BODY",
  "EVENT_ID_MISMATCH",
] as const;

export type WebhookFailureCode = (typeof WEBHOOK_FAILURE_CODES)[number];

/**
 * A delivery that failed verification. `code` names the check that failed; answer such a request with
 * a 4xx and do not process it. (Programming mistakes, such as passing no secret or an already parsed
 * body, are `TypeError`s instead: they are not the sender's fault.)
 * @example
 * try {
 *   await verifyWebhook(input);
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) return new Response(error.code, { status: 400 });
 *   throw error;
 * }
 */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  readonly code: WebhookFailureCode;

  constructor(code: WebhookFailureCode, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * Whether `error` is a {@link WebhookVerificationError}, also across bundle copies of the SDK.
 * @example
 * try { await verifyWebhook(input) } catch (e) { if (isWebhookVerificationError(e)) return respond(400, e.code); throw e }
 */
export function isWebhookVerificationError(error: unknown): error is WebhookVerificationError {
  return (
    error instanceof WebhookVerificationError ||
    (error instanceof Error &&
      error.name === "WebhookVerificationError" &&
      (WEBHOOK_FAILURE_CODES as readonly string[]).includes((error as { code?: unknown }).code as string))
  );
}
