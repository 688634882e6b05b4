/**
 * What every SMS provider adapter is (aliyun.ts, tencent.ts, dev.ts) and shares: the message, the
 * sender interface, the provider error and a bounded fetch. provider.ts picks one by the settings.
 */

export interface SmsMessage {
  /** E.164, e.g. +8613800138000. */
  phone: string;
  code: string;
  ttlMinutes: number;
}

/** One way of delivering a sign-in code. Adapters are small signed fetches, no vendor SDK. */
export interface SmsSender {
  readonly name: "dev" | "aliyun" | "tencent";
  /** Resolves when the provider accepted the message; throws {@link SmsProviderError} otherwise. */
  send(message: SmsMessage): Promise<void>;
}

/**
 * A provider refused or failed. `throttled` is the provider's own per-number flow control (our 429);
 * everything else (credentials, template, network, timeout, 5xx) is `unavailable` (our 503).
 * `providerCode` is the provider's error code, safe to log.
 */
export class SmsProviderError extends Error {
  constructor(
    readonly kind: "throttled" | "unavailable",
    readonly providerCode: string,
    message: string,
  ) {
    super(message);
    this.name = "SmsProviderError";
  }
}

/** POSTs with a deadline; network failures and timeouts become `unavailable`. */
export async function providerFetch(url: string, init: RequestInit, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: "error" });
  } catch (cause) {
    const timedOut = (cause as Error)?.name === "TimeoutError";
    throw new SmsProviderError("unavailable", timedOut ? "timeout" : "network", timedOut ? "SMS provider timed out" : "SMS provider unreachable");
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: response.status, body };
}
