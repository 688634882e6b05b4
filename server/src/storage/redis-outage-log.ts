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
 * No timer: a summary is written by the first error or failed probe after `summaryMs`, and a
 * reconnecting client reports one at least every second. Errors while the circuit is closed (a
 * connection that drops and comes back, a Cluster node failing over) are logged at most once per
 * `summaryMs` too, with how many there were.
 */
export class RedisOutageLog {
  #outage: { since: number; lastLineAt: number; errors: number; refusedAtLine: number; errorsAtLine: number } | null = null;
  #lastError: unknown = null;
  #quiet = { lastLineAt: Number.NEGATIVE_INFINITY, errors: 0, pending: false };
  #stopped = false;

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly circuit: RedisCircuit,
    private readonly summaryMs = 30_000,
  ) {
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
    const now = this.#now();
    if (this.#outage) {
      this.#outage.errors++;
      this.#summarise(now);
      return;
    }
    this.#quiet.errors++;
    if (this.#quiet.pending || now - this.#quiet.lastLineAt < this.summaryMs) return;
    // Decided a moment later: an error is often the first sign of the connection closing, which (in
    // the same turn of the event loop) opens the circuit, and then the outage line says it all.
    this.#quiet.pending = true;
    setImmediate(() => {
      this.#quiet.pending = false;
      if (this.#stopped || this.#outage) return;
      this.log.warn({ connection, reason: brief(error), errors: this.#quiet.errors }, "Redis connection error; the client reconnects by itself");
      this.#quiet = { lastLineAt: this.#now(), errors: 0, pending: false };
    });
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
    const reason = cause ?? this.#lastError;
    this.log.error(
      { reason: reason === null ? undefined : brief(reason) },
      "Redis unavailable: serving without it until it is back (rate limits counted per instance, credentials read from the database)",
    );
  }

  #summarise(now: number): void {
    const outage = this.#outage!;
    if (now - outage.lastLineAt < this.summaryMs) return;
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
