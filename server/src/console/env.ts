import { wholeNumberSettings, type Config } from "../config.ts";
import type { Clock } from "../clock.ts";
import type { CredentialRevocations } from "../access/credential-cache.ts";
import type { Db } from "../db/db.ts";
import type { Logger } from "../log.ts";
import type { MeteringSettings } from "../metering/plans.ts";
import type { UsageLedger } from "../metering/usage-ledger.ts";

/** The console's own settings (README "Configuration"). */
export interface ConsoleSettings {
  /** Active (unrevoked) API keys an account may hold (API_KEYS_PER_ACCOUNT). */
  maxActiveKeys: number;
}

export function consoleSettings(config: Pick<Config, "env">): ConsoleSettings {
  return { maxActiveKeys: wholeNumberSettings(config, { API_KEYS_PER_ACCOUNT: 20 }).API_KEYS_PER_ACCOUNT };
}

/**
 * What the console's procedures are given, built once by the wiring (app/deps.ts): the account's keys
 * and sessions live in the database, revocations reach every instance's credential cache, and usage
 * and plans come from metering.
 */
export interface ConsoleEnv {
  db: Db;
  clock: Clock;
  log: Logger;
  settings: ConsoleSettings;
  revocations: CredentialRevocations;
  plans: Pick<MeteringSettings, "plans">;
  ledger: Pick<UsageLedger, "flush">;
}
