import type { Config } from "../config.ts";
import type { RateLimiter } from "../storage/rate-limiter.ts";
import type { AccountsDeps } from "./accounts.ts";
import type { AuthSettings } from "./settings.ts";
import { createSmsSender } from "./sms/provider.ts";

/**
 * What the accounts domain's procedures and jobs are given, built once by the wiring (app/deps.ts):
 * the sign-in services' dependencies (settings, the SMS sender, the code pepper, revocations) and the
 * limiter that counts sign-in attempts per client address.
 */
export interface AuthEnv extends AccountsDeps {
  limiter: RateLimiter;
}

/**
 * Makes the SMS sender from the accounts settings (null when SMS is not configured: the sign-in
 * endpoints answer 503).
 * @example
 * const auth = createAuthEnv(config, authSettings(config), { db, clock, log, otpPepper, revocations: credentials, limiter });
 */
export function createAuthEnv(config: Pick<Config, "smsProvider">, settings: AuthSettings, deps: Omit<AuthEnv, "settings" | "sms">): AuthEnv {
  const sms = createSmsSender(settings, { clock: deps.clock, log: deps.log });
  if (settings.sms.provider === null && config.smsProvider !== null) {
    deps.log.warn({ provider: config.smsProvider, missing: settings.sms.missing }, "SMS provider is missing settings; sign-in answers 503 until they are set");
  }
  return { ...deps, settings, sms };
}
