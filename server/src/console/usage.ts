import { sql } from "kysely";
import { toIso } from "../contract/common.ts";
import { dialectOf, type Db } from "../db/db.ts";

/*
 * The quota period is the calendar month in Asia/Shanghai (UTC+8, no daylight saving), and usage days
 * are Shanghai dates (docs/console.md "Usage"). Instants stay UTC on the wire.
 */
const SHANGHAI_OFFSET_MS = 8 * 3_600_000;
const DAY_MS = 86_400_000;

/** The Shanghai calendar date of an instant, `YYYY-MM-DD`. */
export function shanghaiDate(ms: number): string {
  return new Date(ms + SHANGHAI_OFFSET_MS).toISOString().slice(0, 10);
}

export interface Period {
  /** First instant of the month in Shanghai, epoch ms. */
  startMs: number;
  /** First instant of the next month (exclusive end, and when the quota resets). */
  endMs: number;
  /** Shanghai dates of the first day of the month and of the next month. */
  firstDay: string;
  nextFirstDay: string;
}

export function periodAt(ms: number): Period {
  const local = new Date(ms + SHANGHAI_OFFSET_MS);
  const year = local.getUTCFullYear();
  const month = local.getUTCMonth();
  const startMs = Date.UTC(year, month, 1) - SHANGHAI_OFFSET_MS;
  const endMs = Date.UTC(year, month + 1, 1) - SHANGHAI_OFFSET_MS;
  return { startMs, endMs, firstDay: shanghaiDate(startMs), nextFirstDay: shanghaiDate(endMs) };
}

/** Adds to the account's counters for the day and endpoint (one upsert). */
export async function recordUsage(db: Db, entry: { userId: string; now: number; endpoint: string; successes: number; failures: number }): Promise<void> {
  const values = { user_id: entry.userId, day: shanghaiDate(entry.now), endpoint: entry.endpoint.slice(0, 100), successes: entry.successes, failures: entry.failures };
  const insert = db.insertInto("usage_daily").values(values);
  if (dialectOf(db) === "mysql") {
    await insert
      .onDuplicateKeyUpdate({
        successes: sql`successes + ${entry.successes}`,
        failures: sql`failures + ${entry.failures}`,
      })
      .execute();
  } else {
    await insert
      .onConflict((oc) =>
        oc.columns(["user_id", "day", "endpoint"]).doUpdateSet({
          successes: sql`usage_daily.successes + excluded.successes`,
          failures: sql`usage_daily.failures + excluded.failures`,
        }),
      )
      .execute();
  }
}

export interface UsageReport {
  period: { start: string; end: string; resets_at: string };
  used: number;
  quota: number;
  by_endpoint: Array<{ endpoint: string; count: number }>;
  daily: Array<{ date: string; count: number }>;
  failures: number;
  resets_at: string;
}

/** GET /console/usage: the current period's counters for the account. */
export async function usageReport(db: Db, userId: string, now: number, quota: number): Promise<UsageReport> {
  const period = periodAt(now);
  const rows = await db
    .selectFrom("usage_daily")
    .select(["day", "endpoint", "successes", "failures"])
    .where("user_id", "=", userId)
    .where("day", ">=", period.firstDay)
    .where("day", "<", period.nextFirstDay)
    .execute();
  const byEndpoint = new Map<string, number>();
  const byDay = new Map<string, number>();
  let used = 0;
  let failures = 0;
  for (const row of rows) {
    const successes = Number(row.successes);
    used += successes;
    failures += Number(row.failures);
    if (successes > 0) byEndpoint.set(row.endpoint, (byEndpoint.get(row.endpoint) ?? 0) + successes);
    byDay.set(row.day, (byDay.get(row.day) ?? 0) + successes);
  }
  const today = shanghaiDate(now);
  const daily: UsageReport["daily"] = [];
  for (let ms = period.startMs; ; ms += DAY_MS) {
    const date = shanghaiDate(ms);
    if (date > today || date >= period.nextFirstDay) break;
    daily.push({ date, count: byDay.get(date) ?? 0 });
  }
  return {
    period: { start: toIso(period.startMs), end: toIso(period.endMs), resets_at: toIso(period.endMs) },
    used,
    quota,
    by_endpoint: [...byEndpoint].map(([endpoint, count]) => ({ endpoint, count })).sort((a, b) => b.count - a.count || (a.endpoint < b.endpoint ? -1 : 1)),
    daily,
    failures,
    resets_at: toIso(period.endMs),
  };
}
