import { sql } from "kysely";
import { toIso } from "../contract/common.ts";
import { dialectOf, type Db } from "../db/db.ts";
import { writeTransaction } from "../db/transaction.ts";

/*
 * The quota period is the calendar month in Asia/Shanghai (UTC+8, no daylight saving), and usage days
 * are Shanghai dates (docs/console.md "Usage"). Instants stay UTC on the wire.
 */
const SHANGHAI_OFFSET_MS = 8 * 3_600_000;
const DAY_MS = 86_400_000;

/** The last date formatted and the instants it covers: every metered request needs "today". */
let today = { date: "", startMs: 0, endMs: 0 };

/** The Shanghai calendar date of an instant, `YYYY-MM-DD`. */
export function shanghaiDate(ms: number): string {
  if (ms >= today.startMs && ms < today.endMs) return today.date;
  const local = ms + SHANGHAI_OFFSET_MS;
  const startMs = local - (((local % DAY_MS) + DAY_MS) % DAY_MS) - SHANGHAI_OFFSET_MS;
  today = { date: new Date(local).toISOString().slice(0, 10), startMs, endMs: startMs + DAY_MS };
  return today.date;
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

/** Counts to add to one `usage_daily` row. */
export interface UsageCount {
  userId: string;
  /** Shanghai date, `YYYY-MM-DD`. */
  day: string;
  endpoint: string;
  successes: number;
  failures: number;
}

/** The Shanghai date and the stored endpoint name (bounded by the column) of a usage entry. */
export function usageRowOf(entry: { userId: string; now: number; endpoint: string }): Pick<UsageCount, "userId" | "day" | "endpoint"> {
  return { userId: entry.userId, day: shanghaiDate(entry.now), endpoint: entry.endpoint.slice(0, 100) };
}

/**
 * Adds counts to their rows in one statement (a multi-row upsert). Rows go in primary-key order, so
 * instances writing overlapping rows at once lock them in the same order (no deadlock between them).
 */
export async function addUsage(db: Db, counts: readonly UsageCount[]): Promise<void> {
  if (counts.length === 0) return;
  const values = [...counts]
    .sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : a.day < b.day ? -1 : a.day > b.day ? 1 : a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0))
    .map((c) => ({ user_id: c.userId, day: c.day, endpoint: c.endpoint, successes: c.successes, failures: c.failures }));
  // One statement: a retried attempt (writeTransaction) adds the counts once, the aborted one added none.
  await writeTransaction(db, async (trx) => {
    const insert = trx.insertInto("usage_daily").values(values);
    if (dialectOf(trx) === "mysql") {
      await insert
        .onDuplicateKeyUpdate({
          successes: sql`successes + VALUES(successes)`,
          failures: sql`failures + VALUES(failures)`,
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
  });
}

/**
 * Each account's plan and successful queries in the period, in one query (plan and total are what a
 * quota decision needs). Accounts that do not exist are absent from the map.
 */
export async function accountTotals(db: Db, userIds: readonly string[], period: Period): Promise<Map<string, { plan: string; used: number }>> {
  const totals = new Map<string, { plan: string; used: number }>();
  if (userIds.length === 0) return totals;
  const rows = await db
    .selectFrom("users")
    .select((eb) => [
      "id",
      "plan",
      eb
        .selectFrom("usage_daily")
        .select((sub) => sub.fn.sum<number>("successes").as("s"))
        .whereRef("usage_daily.user_id", "=", "users.id")
        .where("usage_daily.day", ">=", period.firstDay)
        .where("usage_daily.day", "<", period.nextFirstDay)
        .as("used"),
    ])
    .where("id", "in", userIds)
    .execute();
  for (const row of rows) totals.set(row.id, { plan: row.plan, used: Number(row.used ?? 0) });
  return totals;
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
