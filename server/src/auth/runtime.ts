import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { AccountsDeps } from "./accounts.ts";
import type { CredentialRevocations } from "../access/credential-cache.ts";
import { authSettings, type AuthSettings } from "./settings.ts";
import { createSmsSender, type SmsSender } from "./sms/provider.ts";

/** The accounts domain's long-lived parts, built once at start (AppDeps.auth). */
export interface AuthRuntime {
  settings: AuthSettings;
  /** Null when SMS is not configured: the sign-in endpoints answer 503. */
  sms: SmsSender | null;
}

export function createAuthRuntime(config: Config, deps: { clock: Clock; log: Logger }): AuthRuntime {
  const settings = authSettings(config);
  const sms = createSmsSender(settings, deps);
  if (settings.sms.provider === null && config.smsProvider !== null) {
    deps.log.warn({ provider: config.smsProvider, missing: settings.sms.missing }, "SMS provider is missing settings; sign-in answers 503 until they are set");
  }
  return { settings, sms };
}

/** The sign-in services' view of the server's dependencies. */
export function accountsDeps(deps: { db: AccountsDeps["db"]; clock: Clock; log: Logger; auth: AuthRuntime; secrets: { otpPepper: string }; credentials: CredentialRevocations }): AccountsDeps {
  return { db: deps.db, clock: deps.clock, log: deps.log, settings: deps.auth.settings, sms: deps.auth.sms, otpPepper: deps.secrets.otpPepper, revocations: deps.credentials };
}
