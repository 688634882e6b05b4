import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import type { SmsMessage, SmsSender } from "./sender.ts";

/**
 * Development provider (SMS_PROVIDER=dev; config refuses it in production): each message becomes one
 * JSON line `{phone, code, sent_at}` in IR21_SMS_OUTBOX, where a developer, the CLI's local flow or a
 * test reads the code. The log only says, with the phone masked, that a code was written there.
 */
export class DevSms implements SmsSender {
  readonly name = "dev" as const;
  constructor(
    private readonly outboxPath: string,
    private readonly deps: { clock: Clock; log: Logger },
  ) {}

  async send(message: SmsMessage): Promise<void> {
    await mkdir(dirname(this.outboxPath), { recursive: true });
    const line = JSON.stringify({ phone: message.phone, code: message.code, sent_at: this.deps.clock.now().toISOString() });
    await appendFile(this.outboxPath, `${line}\n`, { mode: 0o600 });
    this.deps.log.info({ phone: message.phone, outbox: this.outboxPath }, "dev SMS provider: sign-in code written to the outbox");
  }
}
