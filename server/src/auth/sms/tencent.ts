import { createHash, createHmac } from "node:crypto";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import type { TencentSmsSettings } from "../settings.ts";
import { providerFetch, SmsProviderError, type SmsMessage, type SmsSender } from "./sender.ts";

const sha256hex = (data: string) => createHash("sha256").update(data, "utf8").digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data, "utf8").digest();

/**
 * The TC3-HMAC-SHA256 Authorization header (Tencent Cloud API 3.0 signature v3) for a POST to `/`
 * signing content-type and host, per Tencent's published algorithm (golden vectors in sms.test.ts).
 */
export function tencentTc3Authorization(input: {
  secretId: string;
  secretKey: string;
  service: string;
  host: string;
  contentType: string;
  body: string;
  timestamp: number;
}): string {
  const canonicalRequest = `POST\n/\n\ncontent-type:${input.contentType}\nhost:${input.host}\n\ncontent-type;host\n${sha256hex(input.body)}`;
  const date = new Date(input.timestamp * 1000).toISOString().slice(0, 10);
  const scope = `${date}/${input.service}/tc3_request`;
  const stringToSign = `TC3-HMAC-SHA256\n${input.timestamp}\n${scope}\n${sha256hex(canonicalRequest)}`;
  const kDate = hmac(`TC3${input.secretKey}`, date);
  const kService = hmac(kDate, input.service);
  const kSigning = hmac(kService, "tc3_request");
  const signature = createHmac("sha256", kSigning).update(stringToSign, "utf8").digest("hex");
  return `TC3-HMAC-SHA256 Credential=${input.secretId}/${scope}, SignedHeaders=content-type;host, Signature=${signature}`;
}

const CONTENT_TYPE = "application/json; charset=utf-8";

/** Tencent Cloud SMS SendSms (API 2021-01-11), signed with TC3-HMAC-SHA256. */
export class TencentSms implements SmsSender {
  readonly name = "tencent" as const;
  constructor(
    private readonly settings: TencentSmsSettings,
    private readonly deps: { clock: Clock; log: Logger; timeoutMs: number },
  ) {}

  async send(message: SmsMessage): Promise<void> {
    const url = new URL(this.settings.endpoint);
    const body = JSON.stringify({
      PhoneNumberSet: [message.phone],
      SmsSdkAppId: this.settings.sdkAppId,
      SignName: this.settings.signName,
      TemplateId: this.settings.templateId,
      TemplateParamSet: [message.code, String(message.ttlMinutes)],
    });
    const timestamp = Math.floor(this.deps.clock.now().getTime() / 1000);
    const authorization = tencentTc3Authorization({
      secretId: this.settings.secretId,
      secretKey: this.settings.secretKey,
      service: "sms",
      host: url.host,
      contentType: CONTENT_TYPE,
      body,
      timestamp,
    });
    const { status, body: answer } = await providerFetch(
      `${url.origin}/`,
      {
        method: "POST",
        headers: {
          authorization,
          "content-type": CONTENT_TYPE,
          "x-tc-action": "SendSms",
          "x-tc-version": "2021-01-11",
          "x-tc-region": this.settings.region,
          "x-tc-timestamp": String(timestamp),
        },
        body,
      },
      this.deps.timeoutMs,
    );
    const response = (answer as { Response?: { Error?: { Code?: string; Message?: string }; SendStatusSet?: Array<{ Code?: string; Message?: string }>; RequestId?: string } } | null)?.Response;
    const sent = response?.SendStatusSet?.[0];
    if (status === 200 && !response?.Error && sent?.Code === "Ok") return;
    // A request-level failure is Response.Error; a per-number failure comes back as a status entry.
    const code = response?.Error?.Code ?? sent?.Code ?? `http_${status}`;
    const text = response?.Error?.Message ?? sent?.Message;
    this.deps.log.warn({ provider: "tencent", status, provider_code: code, provider_message: text, provider_request_id: response?.RequestId }, "SMS provider refused the message");
    throw new SmsProviderError(code.startsWith("LimitExceeded") ? "throttled" : "unavailable", code, `Tencent SMS: ${code}`);
  }
}
