import { z } from "zod";
import { ConfigError, type Config } from "../config.ts";

/**
 * A plan as GET /console/plan lists it (DESIGN.md "Plans"). Prices are provisional and payment is
 * disabled: no bill is ever generated. `price.amount` is in yuan per month; null means "by agreement"
 * (ask through POST /contact).
 */
export interface Plan {
  id: string;
  name: string;
  monthly_quota: number;
  rate_limit_per_minute: number;
  price: { amount: number; currency: "CNY"; interval: "month" } | null;
  provisional: true;
}

/** Defaults; each plan's quota and rate limit can be overridden (docs/console.md "Plans"). */
const DEFAULT_PLANS: readonly Plan[] = [
  { id: "free", name: "Free", monthly_quota: 10_000, rate_limit_per_minute: 60, price: { amount: 0, currency: "CNY", interval: "month" }, provisional: true },
  { id: "developer", name: "Developer", monthly_quota: 200_000, rate_limit_per_minute: 300, price: { amount: 199, currency: "CNY", interval: "month" }, provisional: true },
  { id: "business", name: "Business", monthly_quota: 2_000_000, rate_limit_per_minute: 1_200, price: { amount: 1_499, currency: "CNY", interval: "month" }, provisional: true },
  { id: "enterprise", name: "Enterprise", monthly_quota: 20_000_000, rate_limit_per_minute: 6_000, price: null, provisional: true },
];

export interface ConsoleSettings {
  plans: readonly Plan[];
  /** Data requests per minute per anonymous client address. */
  anonymousRatePerMinute: number;
  /** POST /contact per client address per hour. */
  contactPerHour: number;
  /** Active (unrevoked) API keys an account may hold. */
  maxActiveKeys: number;
  /** How often buffered usage counts are written and account totals re-read (docs/console.md "Usage and quota"). */
  usageFlushIntervalMs: number;
}

const positive = z.coerce.number().int().min(1).max(1_000_000_000);

/** Reads plan overrides (`PLAN_<ID>_MONTHLY_QUOTA`, `PLAN_<ID>_RATE_LIMIT_PER_MINUTE`) and the other console numbers. */
export function consoleSettings(config: Pick<Config, "env">): ConsoleSettings {
  const problems: string[] = [];
  const read = (name: string, fallback: number): number => {
    const raw = config.env[name];
    if (raw === undefined || raw === "") return fallback;
    const parsed = positive.safeParse(raw);
    if (!parsed.success) {
      problems.push(`${name}: must be a whole number from 1 to 1000000000`);
      return fallback;
    }
    return parsed.data;
  };
  const plans = DEFAULT_PLANS.map((plan) => {
    const key = plan.id.toUpperCase();
    return {
      ...plan,
      monthly_quota: read(`PLAN_${key}_MONTHLY_QUOTA`, plan.monthly_quota),
      rate_limit_per_minute: read(`PLAN_${key}_RATE_LIMIT_PER_MINUTE`, plan.rate_limit_per_minute),
    };
  });
  const settings: ConsoleSettings = {
    plans,
    anonymousRatePerMinute: read("ANONYMOUS_RATE_LIMIT_PER_MINUTE", 30),
    contactPerHour: read("CONTACT_IP_HOURLY_LIMIT", 10),
    maxActiveKeys: read("API_KEYS_PER_ACCOUNT", 20),
    usageFlushIntervalMs: read("USAGE_FLUSH_INTERVAL_MS", 1000),
  };
  if (problems.length) throw new ConfigError(problems);
  return settings;
}

/** The plan with this id; an account whose plan was removed from the list falls back to free. */
export function planOf(settings: Pick<ConsoleSettings, "plans">, id: string): Plan {
  return settings.plans.find((p) => p.id === id) ?? settings.plans[0]!;
}
