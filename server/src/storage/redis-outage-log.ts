import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { RedisCircuit } from "./redis-circuit.ts";

/** An error's name and message: what an operator needs here (the stacks are ioredis's internals). */
const brief = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

/**
 * What the server says about Redis, through its own JSON logger: one line when Redis becomes
 * unavailable (the circuit opens), then at most one summary per `summaryMs` while it stays so, and one
 * line when it is back (the circuit closes). Every error the Redis clients report (their `error`
 * events, a Cluster's `node error`) is counted here; without a listener ioredis would print each
 * failed reconnect to stderr itself, as text with a stack, several a second.
 *
 * No timer for the summaries: one is written by the first error or failed probe after `summaryMs`,
 * and a reconnecting client reports one at least every second. What concerns one connection while
 * the circuit is closed (an error, the subscriber's connection lost, a Cluster node gone) is said
 * `settleMs` later, at most once per `summaryMs`, and only if the circuit is still closed then: when
 * all of Redis is away, the command connection fails within moments too, and the outage line says it
 * for every connection.
 */
export class RedisOutageLog {
  #outage: { since: number; lastLineAt: number; errors: number; refusedAtLine: number; errorsAtLine: number } | null = null;
  #lastError: unknown = null;
  #quiet = { lastLineAt: Number.NEGATIVE_INFINITY, count: 0, pending: false };
  #stopped = false;
  readonly #summaryMs: number;
  readonly #settleMs: number;

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly circuit: RedisCircuit,
    options: { summaryMs?: number; settleMs?: number } = {},
  ) {
    this.#summaryMs = options.summaryMs ?? 30_000;
    this.#settleMs = options.settleMs ?? 1_000;
    circuit.onChange((state, cause) => {
      if (this.#stopped) return;
      if (state === "open") this.#opened(cause);
      else if (state === "closed") this.#closed();
    });
  }

  /** An error a Redis connection reported; `connection` says which (commands, invalidations, a node's address). */
  error(connection: string, error: unknown): void {
    if (this.#stopped) return;
    this.#lastError = error;
    if (this.#outage) {
      this.#outage.errors++;
      this.#summarise(this.#now());
      return;
    }
    this.warnUnlessDown({ connection, reason: brief(error) }, "Redis connection error; the client reconnects by itself");
  }

  /** A warning about one connection, said only if the rest of Redis is still up a moment later (above). */
  warnUnlessDown(fields: Record<string, unknown>, message: string): void {
    if (this.#stopped || this.#outage) return;
    this.#quiet.count++;
    if (this.#quiet.pending || this.#now() - this.#quiet.lastLineAt < this.#summaryMs) return;
    this.#quiet.pending = true;
    setTimeout(() => {
      this.#quiet.pending = false;
      if (this.#stopped || this.#outage) return;
      this.log.warn({ ...fields, count: this.#quiet.count }, message);
      this.#quiet = { lastLineAt: this.#now(), count: 0, pending: false };
    }, this.#settleMs).unref();
  }

  /** No more lines: the store is closing its connections on purpose. */
  stop(): void {
    this.#stopped = true;
  }

  #now(): number {
    return this.clock.now().getTime();
  }

  #opened(cause: unknown): void {
    const now = this.#now();
    if (this.#outage) {
      // A probe failed: Redis is still away.
      this.#summarise(now);
      return;
    }
    this.#outage = { since: now, lastLineAt: now, errors: 0, refusedAtLine: this.circuit.counters.refused, errorsAtLine: 0 };
    this.#quiet.count = 0;
    const reason = cause ?? this.#lastError;
    this.log.error(
      { reason: reason === null ? undefined : brief(reason) },
      "Redis unavailable: serving without it until it is back (rate limits counted per instance, credentials read from the database)",
    );
  }

  #summarise(now: number): void {
    const outage = this.#outage!;
    if (now - outage.lastLineAt < this.#summaryMs) return;
    const refused = this.circuit.counters.refused;
    this.log.warn(
      {
        since: new Date(outage.since).toISOString(),
        errors: outage.errors - outage.errorsAtLine,
        commands_not_tried: refused - outage.refusedAtLine,
        last_error: this.#lastError === null ? undefined : brief(this.#lastError),
      },
      "Redis still unavailable",
    );
    outage.lastLineAt = now;
    outage.errorsAtLine = outage.errors;
    outage.refusedAtLine = refused;
  }

  #closed(): void {
    const outage = this.#outage;
    if (!outage) return;
    this.#outage = null;
    this.#lastError = null;
    this.log.warn({ since: new Date(outage.since).toISOString(), down_ms: this.#now() - outage.since, errors: outage.errors }, "Redis available again");
  }
}
