import { createHash, createHmac, randomUUID } from "node:crypto";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import type { AliyunSmsSettings } from "../settings.ts";
import { providerFetch, SmsProviderError, type SmsMessage, type SmsSender } from "./sender.ts";

const EMPTY_SHA256 = createHash("sha256").update("").digest("hex");

/** RFC 3986 encoding as Aliyun's signers use it: encodeURIComponent plus ! ' ( ) *. */
export function aliyunPercentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function aliyunCanonicalQuery(params: Record<string, string>): string {
  return Object.keys(params)
    .sort()
    .map((k) => `${aliyunPercentEncode(k)}=${aliyunPercentEncode(params[k]!)}`)
    .join("&");
}

/**
 * The ACS3-HMAC-SHA256 (V3) Authorization header for a request with an empty body, per Aliyun's
 * "V3 request structure and signature" (golden vectors in auth/sms/sms.test.ts).
 * `headers` are the request's signed headers (host, x-acs-*), any case.
 */
export function aliyunV3Authorization(input: {
  accessKeyId: string;
  accessKeySecret: string;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  contentSha256: string;
}): string {
  const signed = Object.entries(input.headers)
    .map(([k, v]) => [k.toLowerCase(), v.trim()] as const)
    .filter(([k]) => k === "host" || k === "content-type" || k.startsWith("x-acs-"))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const canonicalHeaders = signed.map(([k, v]) => `${k}:${v}\n`).join("");
  const signedHeaders = signed.map(([k]) => k).join(";");
  const canonicalRequest = [input.method, input.path, aliyunCanonicalQuery(input.query), canonicalHeaders, signedHeaders, input.contentSha256].join("\n");
  const stringToSign = `ACS3-HMAC-SHA256\n${createHash("sha256").update(canonicalRequest).digest("hex")}`;
  const signature = createHmac("sha256", input.accessKeySecret).update(stringToSign).digest("hex");
  return `ACS3-HMAC-SHA256 Credential=${input.accessKeyId},SignedHeaders=${signedHeaders},Signature=${signature}`;
}

/** Aliyun's per-number flow control ("触发分钟级/天级流控"). */
const THROTTLE_CODES = new Set(["isv.BUSINESS_LIMIT_CONTROL", "Throttling.User", "Throttling"]);

/** Aliyun SMS SendSms (dysmsapi 2017-05-25), signed with ACS3-HMAC-SHA256. */
export class AliyunSms implements SmsSender {
  readonly name = "aliyun" as const;
  constructor(
    private readonly settings: AliyunSmsSettings,
    private readonly deps: { clock: Clock; log: Logger; timeoutMs: number; nonce?: () => string },
  ) {}

  async send(message: SmsMessage): Promise<void> {
    const url = new URL(this.settings.endpoint);
    const query = {
      PhoneNumbers: message.phone.replace(/^\+86/, ""),
      SignName: this.settings.signName,
      TemplateCode: this.settings.templateCode,
      TemplateParam: JSON.stringify({ code: message.code }),
    };
    const headers: Record<string, string> = {
      host: url.host,
      "x-acs-action": "SendSms",
      "x-acs-version": "2017-05-25",
      "x-acs-date": this.deps.clock.now().toISOString().replace(/\.\d{3}Z$/, "Z"),
      "x-acs-signature-nonce": (this.deps.nonce ?? randomUUID)(),
      "x-acs-content-sha256": EMPTY_SHA256,
    };
    const authorization = aliyunV3Authorization({
      accessKeyId: this.settings.accessKeyId,
      accessKeySecret: this.settings.accessKeySecret,
      method: "POST",
      path: "/",
      query,
      headers,
      contentSha256: EMPTY_SHA256,
    });
    // fetch sets Host from the URL itself (the same value we signed).
    const { host: _host, ...sent } = headers;
    const { status, body } = await providerFetch(
      `${url.origin}/?${aliyunCanonicalQuery(query)}`,
      { method: "POST", headers: { ...sent, authorization, accept: "application/json" } },
      this.deps.timeoutMs,
    );
    const result = (body ?? {}) as { Code?: string; Message?: string; RequestId?: string };
    if (status === 200 && result.Code === "OK") return;
    const code = result.Code ?? `http_${status}`;
    this.deps.log.warn({ provider: "aliyun", status, provider_code: code, provider_message: result.Message, provider_request_id: result.RequestId }, "SMS provider refused the message");
    throw new SmsProviderError(THROTTLE_CODES.has(code) ? "throttled" : "unavailable", code, `Aliyun SMS: ${code}`);
  }
}
