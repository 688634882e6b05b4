import type { Db } from "../db/db.ts";
import type { Logger } from "../log.ts";
import type { InvalidationBus } from "../storage/invalidations.ts";
import { accountTotals, addUsage, periodAt, usageRowOf, type Period, type UsageCount } from "./usage.ts";

/** Invalidation topic: an account's plan changed (id = user id). */
export const ACCOUNT_CHANGED = "account";

/** What a quota decision knows about one account, kept between requests. */
export interface AccountUsage {
  readonly userId: string;
  /** Plan id as stored on the account. */
  plan: string;
  /** The quota period `committed` and `unflushed` are for. */
  period: Period;
  /** Successful queries of the period in the database (every instance's), as last read. */
  committed: number;
  /** Successful queries of the period counted here and not yet in `committed`. */
  unflushed: number;
  /** Quota units reserved by admitted requests that have not answered yet. */
  inFlight: number;
  /** Real time of the read behind `plan` and `committed`; 0 = read again before the next decision. */
  readAt: number;
  /** Real time of the last decision that used this entry. */
  touchedAt: number;
}

/** Quota units an account has used or reserved this period, as far as this instance knows. */
export const usedUnits = (account: AccountUsage) => account.committed + account.unflushed + account.inFlight;

export interface UsageLedgerOptions {
  /** How often buffered counts are written and active accounts' totals re-read (default 1000 ms). */
  flushIntervalMs?: number;
  /** An account not re-read for this long is read again before its next decision (default 3000 ms). */
  staleAfterMs?: number;
  /** Entries unused for this long (and with nothing buffered or in flight) are dropped (default 60 s). */
  idleAfterMs?: number;
  /** Write early when this many distinct rows are buffered (default 1000). */
  maxPendingRows?: number;
  /** Real time, for freshness (not the domain clock). */
  now?: () => number;
}

const WRITE_CHUNK = 500;
const READ_CHUNK = 500;

const rowKey = (c: Pick<UsageCount, "userId" | "day" | "endpoint">) => `${c.userId}\u0000${c.day}\u0000${c.endpoint}`;
/** The first day of the quota period a Shanghai date (`YYYY-MM-DD`) belongs to. */
const periodFirstDayOf = (day: string) => `${day.slice(0, 8)}01`;

/**
 * Usage counting without a database write per request (docs/console.md "Usage and quota").
 *
 * Each request's outcome is added to an in-memory row per account, Shanghai day and endpoint; every
 * `flushIntervalMs` (and on shutdown, and before a usage report) the buffered rows are added to
 * `usage_daily` in one multi-row upsert, and the plan and monthly total of the accounts used since the
 * last write are re-read in one query, which brings in the other instances' counts.
 *
 * A quota decision uses `committed + unflushed + inFlight`: exact for this instance (requests in flight
 * hold a reservation, so concurrent requests here cannot overshoot), and behind by at most what other
 * instances served in their last unwritten interval plus the age of the last read.
 *
 * Writes and reads run one at a time (a queue), so a total is never read while a batch is half
 * accounted: `unflushed` always equals the buffered successes of the period.
 */
export class UsageLedger {
  readonly #pending = new Map<string, UsageCount>();
  readonly #accounts = new Map<string, AccountUsage>();
  readonly #loads = new Map<string, Promise<AccountUsage>>();
  #queue: Promise<unknown> = Promise.resolve();
  #flushQueued: Promise<void> | null = null;
  #lastRefreshAt = 0;
  /** Bumped by every plan-change message: a read that started before one must not mark itself fresh. */
  #epoch = 0;
  readonly #timer: NodeJS.Timeout;
  readonly #now: () => number;
  readonly #staleAfterMs: number;
  readonly #idleAfterMs: number;
  readonly #maxPendingRows: number;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    bus: InvalidationBus | null,
    options: UsageLedgerOptions = {},
  ) {
    this.#now = options.now ?? Date.now;
    this.#staleAfterMs = options.staleAfterMs ?? 3000;
    this.#idleAfterMs = options.idleAfterMs ?? 60_000;
    this.#maxPendingRows = options.maxPendingRows ?? 1000;
    this.#timer = setInterval(() => void this.flush(), options.flushIntervalMs ?? 1000);
    this.#timer.unref();
    bus?.on((message) => {
      if (message.topic === ACCOUNT_CHANGED) {
        this.#epoch++;
        const entry = this.#accounts.get(message.id);
        if (entry) entry.readAt = 0;
      }
    });
    // A missed plan change: read every account again before its next decision.
    bus?.onReset(() => {
      this.#epoch++;
      for (const entry of this.#accounts.values()) entry.readAt = 0;
    });
  }

  /**
   * The account's plan and usage for the quota period of `now` (domain time): from memory when read
   * recently (at once, without a promise: the hot path of every keyed request), else read now (once
   * for concurrent callers).
   */
  account(userId: string, now: number): AccountUsage | Promise<AccountUsage> {
    const real = this.#now();
    const entry = this.#accounts.get(userId);
    if (entry && entry.readAt !== 0 && real - entry.readAt < this.#staleAfterMs && now >= entry.period.startMs && now < entry.period.endMs) {
      entry.touchedAt = real;
      return entry;
    }
    let load = this.#loads.get(userId);
    if (!load) {
      load = this.#serial(() => this.#load(userId, periodAt(now))).finally(() => this.#loads.delete(userId));
      this.#loads.set(userId, load);
    }
    return load;
  }

  /** Holds `cost` units for an admitted request until {@link release}. */
  reserve(account: AccountUsage, cost: number): void {
    account.inFlight += cost;
  }

  /** Ends a reservation (the request answered; {@link record} counts what it cost). */
  release(userId: string, cost: number): void {
    const entry = this.#accounts.get(userId);
    if (entry) entry.inFlight = Math.max(0, entry.inFlight - cost);
  }

  /** Adds a request's outcome to the account's usage (written with the next flush). */
  record(entry: { userId: string; now: number; endpoint: string; successes: number; failures: number }): void {
    const row = usageRowOf(entry);
    const key = rowKey(row);
    const pending = this.#pending.get(key);
    if (pending) {
      pending.successes += entry.successes;
      pending.failures += entry.failures;
    } else {
      this.#pending.set(key, { ...row, successes: entry.successes, failures: entry.failures });
    }
    const account = this.#accounts.get(entry.userId);
    // The row's day is in the account's period (the same test as periodFirstDayOf(row.day) in #write, without a string per request).
    if (account && entry.successes > 0 && entry.now >= account.period.startMs && entry.now < account.period.endMs) account.unflushed += entry.successes;
    if (this.#pending.size >= this.#maxPendingRows) void this.flush();
  }

  /**
   * Writes what is buffered and re-reads the totals of the accounts used since the last time. Never
   * throws: a failed write keeps the counts buffered for the next attempt (and logs).
   */
  flush(): Promise<void> {
    this.#flushQueued ??= this.#serial(async () => {
      this.#flushQueued = null;
      await this.#sync(true);
    });
    return this.#flushQueued;
  }

  /** Stops the timer and writes what is buffered; call before the database closes. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#serial(() => this.#sync(false));
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #load(userId: string, period: Period): Promise<AccountUsage> {
    const readAt = this.#now();
    const epoch = this.#epoch;
    const found = (await accountTotals(this.db, [userId], period)).get(userId);
    let entry = this.#accounts.get(userId);
    if (!entry) {
      entry = { userId, plan: "free", period, committed: 0, unflushed: 0, inFlight: 0, readAt: 0, touchedAt: readAt };
      this.#accounts.set(userId, entry);
    }
    // An account that no longer exists is metered as free with nothing used (as before its row).
    entry.plan = found?.plan ?? "free";
    entry.period = period;
    entry.committed = found?.used ?? 0;
    entry.unflushed = this.#bufferedSuccesses().get(`${userId}\u0000${period.firstDay}`) ?? 0;
    entry.readAt = epoch === this.#epoch ? readAt : 0;
    entry.touchedAt = readAt;
    return entry;
  }

  /** Buffered successes per account and period (`userId \0 firstDay`). */
  #bufferedSuccesses(): Map<string, number> {
    const sums = new Map<string, number>();
    for (const row of this.#pending.values()) {
      if (row.successes === 0) continue;
      const key = `${row.userId}\u0000${periodFirstDayOf(row.day)}`;
      sums.set(key, (sums.get(key) ?? 0) + row.successes);
    }
    return sums;
  }

  async #sync(refresh: boolean): Promise<void> {
    const startedAt = this.#now();
    await this.#write();
    if (!refresh) return;
    const due = [...this.#accounts.values()].filter((entry) => entry.touchedAt >= this.#lastRefreshAt);
    this.#lastRefreshAt = startedAt;
    await this.#refresh(due, startedAt);
    for (const [userId, entry] of this.#accounts) {
      if (startedAt - entry.touchedAt > this.#idleAfterMs && entry.inFlight === 0 && entry.unflushed === 0) this.#accounts.delete(userId);
    }
  }

  /** Moves the buffered rows to the database, chunk by chunk; what fails goes back to the buffer. */
  async #write(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = [...this.#pending.values()];
    this.#pending.clear();
    for (let at = 0; at < batch.length; at += WRITE_CHUNK) {
      const chunk = batch.slice(at, at + WRITE_CHUNK);
      try {
        await addUsage(this.db, chunk);
      } catch (error) {
        this.log.error({ err: error, rows: batch.length - at }, "could not write usage counts; keeping them for the next attempt");
        this.#restore(batch.slice(at));
        return;
      }
      for (const row of chunk) {
        const account = this.#accounts.get(row.userId);
        if (account && row.successes > 0 && periodFirstDayOf(row.day) === account.period.firstDay) {
          account.unflushed -= row.successes;
          account.committed += row.successes;
        }
      }
    }
  }

  /** Puts unwritten rows back, adding to any counted since (their successes are still in `unflushed`). */
  #restore(rows: readonly UsageCount[]): void {
    for (const row of rows) {
      const key = rowKey(row);
      const pending = this.#pending.get(key);
      if (pending) {
        pending.successes += row.successes;
        pending.failures += row.failures;
      } else {
        this.#pending.set(key, { ...row });
      }
    }
  }

  /** Re-reads plan and total of the given accounts (one query per period and 500 accounts). */
  async #refresh(accounts: readonly AccountUsage[], readAt: number): Promise<void> {
    const byPeriod = new Map<string, AccountUsage[]>();
    for (const entry of accounts) byPeriod.set(entry.period.firstDay, [...(byPeriod.get(entry.period.firstDay) ?? []), entry]);
    for (const group of byPeriod.values()) {
      for (let at = 0; at < group.length; at += READ_CHUNK) {
        const chunk = group.slice(at, at + READ_CHUNK);
        let totals: Map<string, { plan: string; used: number }>;
        const epoch = this.#epoch;
        try {
          totals = await accountTotals(this.db, chunk.map((e) => e.userId), chunk[0]!.period);
        } catch (error) {
          this.log.error({ err: error }, "could not re-read account usage; using the last known totals");
          return;
        }
        // The read includes every written row; the buffer holds exactly what it does not.
        const buffered = this.#bufferedSuccesses();
        for (const entry of chunk) {
          const found = totals.get(entry.userId);
          entry.plan = found?.plan ?? "free";
          entry.committed = found?.used ?? 0;
          entry.unflushed = buffered.get(`${entry.userId}\u0000${entry.period.firstDay}`) ?? 0;
          if (epoch === this.#epoch) entry.readAt = readAt;
        }
      }
    }
  }
}
