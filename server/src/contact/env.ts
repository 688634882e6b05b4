import type { Clock } from "../clock.ts";
import { wholeNumberSettings, type Config } from "../config.ts";
import type { Db } from "../db/db.ts";
import type { RateLimiter } from "../storage/rate-limiter.ts";

/** What POST /contact is given, built once by the wiring (app/deps.ts). */
export interface ContactEnv {
  db: Db;
  clock: Clock;
  limiter: RateLimiter;
  /** Inquiries per client address per hour (CONTACT_IP_HOURLY_LIMIT). */
  inquiriesPerHour: number;
}

export function contactSettings(config: Pick<Config, "env">): Pick<ContactEnv, "inquiriesPerHour"> {
  return { inquiriesPerHour: wholeNumberSettings(config, { CONTACT_IP_HOURLY_LIMIT: 10 }).CONTACT_IP_HOURLY_LIMIT };
}
