import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import type { AuthSettings } from "../settings.ts";
import { AliyunSms } from "./aliyun.ts";
import { DevSms } from "./dev.ts";
import { TencentSms } from "./tencent.ts";

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

/** The sender the settings name, or null when SMS is not configured (the endpoints answer 503). */
export function createSmsSender(settings: AuthSettings, deps: { clock: Clock; log: Logger }): SmsSender | null {
  const sms = settings.sms;
  switch (sms.provider) {
    case "dev":
      return new DevSms(sms.outboxPath, deps);
    case "aliyun":
      return new AliyunSms(sms.aliyun, { ...deps, timeoutMs: settings.smsTimeoutMs });
    case "tencent":
      return new TencentSms(sms.tencent, { ...deps, timeoutMs: settings.smsTimeoutMs });
    default:
      return null;
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
