import { wholeNumberSettings, type Config } from "../config.ts";

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

/** What metering reads from the environment (docs/console.md "Plans", "Usage and quota"). */
export interface MeteringSettings {
  plans: readonly Plan[];
  /** Data requests per minute per anonymous client address. */
  anonymousRatePerMinute: number;
  /** How often buffered usage counts are written and account totals re-read (docs/console.md "Usage and quota"). */
  usageFlushIntervalMs: number;
}

/** Reads plan overrides (`PLAN_<ID>_MONTHLY_QUOTA`, `PLAN_<ID>_RATE_LIMIT_PER_MINUTE`) and the other metering numbers. */
export function meteringSettings(config: Pick<Config, "env">): MeteringSettings {
  const defaults: Record<string, number> = { ANONYMOUS_RATE_LIMIT_PER_MINUTE: 30, USAGE_FLUSH_INTERVAL_MS: 1000 };
  for (const plan of DEFAULT_PLANS) {
    defaults[`PLAN_${plan.id.toUpperCase()}_MONTHLY_QUOTA`] = plan.monthly_quota;
    defaults[`PLAN_${plan.id.toUpperCase()}_RATE_LIMIT_PER_MINUTE`] = plan.rate_limit_per_minute;
  }
  const read = wholeNumberSettings(config, defaults);
  return {
    plans: DEFAULT_PLANS.map((plan) => ({
      ...plan,
      monthly_quota: read[`PLAN_${plan.id.toUpperCase()}_MONTHLY_QUOTA`]!,
      rate_limit_per_minute: read[`PLAN_${plan.id.toUpperCase()}_RATE_LIMIT_PER_MINUTE`]!,
    })),
    anonymousRatePerMinute: read.ANONYMOUS_RATE_LIMIT_PER_MINUTE!,
    usageFlushIntervalMs: read.USAGE_FLUSH_INTERVAL_MS!,
  };
}

/** The plan with this id; an account whose plan was removed from the list falls back to free. */
export function planOf(settings: Pick<MeteringSettings, "plans">, id: string): Plan {
  return settings.plans.find((p) => p.id === id) ?? settings.plans[0]!;
}
