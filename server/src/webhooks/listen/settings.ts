import { z } from "zod";
import { ConfigError, type Config } from "../../config.ts";

/**
 * The bounds of listen sessions (docs/webhooks.md "Listen sessions: bounds"). The three numbers an
 * operator may want to move are environment variables; the rest are fixed here.
 */
export interface ListenSettings {
  /** Open sessions per account (WEBHOOK_LISTEN_SESSIONS_PER_ACCOUNT, default 5). */
  sessionsPerAccount: number;
  /**
   * Deliveries a session may have on its stream without a report yet (WEBHOOK_LISTEN_BUFFER, default 32);
   * past it, that session's new deliveries are recorded as failed instead of being held in memory.
   */
  buffer: number;
  /** Keep-alive comment every this many ms of real time (WEBHOOK_LISTEN_PING_SECONDS, default 15). */
  pingMs: number;
  /** The holder renews a session's lease at every ping; a session whose holder vanished ends after this. */
  leaseMs: number;
  /** A delivery on the stream with no report after this is failed (`no_report`). */
  reportTimeoutMs: number;
  /** A stream whose client has read nothing for this long (real time) is closed (`idle`). */
  idleMs: number;
  /** A closed session can be resumed (same id and secret) within this time. */
  resumeWindowMs: number;
  /** Ended sessions, their deliveries and attempts are deleted this long after they ended. */
  retentionMs: number;
}

const whole = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export function listenSettings(config: Pick<Config, "env">): ListenSettings {
  const problems: string[] = [];
  const read = (name: string, fallback: number, min: number, max: number): number => {
    const raw = config.env[name];
    if (raw === undefined || raw === "") return fallback;
    const parsed = whole(min, max).safeParse(raw);
    if (parsed.success) return parsed.data;
    problems.push(`${name}: must be a whole number from ${min} to ${max}`);
    return fallback;
  };
  const pingSeconds = read("WEBHOOK_LISTEN_PING_SECONDS", 15, 1, 300);
  const settings: ListenSettings = {
    sessionsPerAccount: read("WEBHOOK_LISTEN_SESSIONS_PER_ACCOUNT", 5, 1, 100),
    buffer: read("WEBHOOK_LISTEN_BUFFER", 32, 1, 1000),
    pingMs: pingSeconds * 1000,
    // Three missed renewals, and at least 90 s, before a vanished holder's session counts as ended.
    leaseMs: Math.max(90_000, 3 * pingSeconds * 1000),
    // The CLI gives the local receiver 15 s (like a subscription's attempt) and reports at once.
    reportTimeoutMs: 60_000,
    idleMs: Math.max(60_000, 2 * pingSeconds * 1000),
    resumeWindowMs: 3_600_000,
    retentionMs: 30 * 24 * 3_600_000,
  };
  if (problems.length) throw new ConfigError(problems);
  return settings;
}
