import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import type { AuthSettings } from "../settings.ts";
import { AliyunSms } from "./aliyun.ts";
import { DevSms } from "./dev.ts";
import { TencentSms } from "./tencent.ts";
import type { SmsSender } from "./sender.ts";

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
