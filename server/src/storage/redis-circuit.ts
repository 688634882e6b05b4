import type { Clock } from "../clock.ts";

/**
 * - `closed`: commands go to Redis;
 * - `open`: Redis failed; every command is turned away at once until `openMs` has passed;
 * - `probing`: one command (the probe) may go to Redis; its outcome closes or reopens the circuit,
 *   and the others are turned away meanwhile.
 */
export type CircuitState = "closed" | "open" | "probing";

/** How a command was let through: as ordinary traffic, or as the one probe of a probing circuit. */
export type Admission = "closed" | "probe";

export interface CircuitCounters {
  /** Commands let through to Redis (probes included). */
  admitted: number;
  /** Commands turned away without trying Redis. */
  refused: number;
  /** Commands let through that failed for want of Redis (timeouts, lost connections, cluster down). */
  failed: number;
  /** Times the circuit opened (a failed probe reopening it included). */
  opened: number;
}

export interface RedisCircuitOptions {
  /** The server's clock: how long the circuit stays open is measured on it (tests move a ManualClock). */
  clock: Clock;
  /** How long commands are turned away after a failure before one probes Redis again. */
  openMs: number;
  /** Consecutive failed commands that open a closed circuit (a lost connection opens it at once). */
  failureThreshold?: number;
}

type Listener = (state: CircuitState, cause: unknown) => void;

/**
 * One circuit breaker in front of all of a process's Redis commands (storage/redis-connection.ts lets
 * every command of the shared client through `admit`), so that once Redis has failed, no caller waits
 * on it: each takes its path without Redis at once (docs/operations.md "Redis unavailable").
 *
 * Not a library's (cockatiel, opossum), because this one has to
 * - answer synchronously, at ioredis's single command entry (`sendCommand`), where a command must be
 *   either written or rejected in the same call (a pipeline's write waits for all its commands);
 * - read the server's injected Clock, so tests decide when the circuit probes instead of sleeping;
 * - turn the other commands away while a probe is out (cockatiel's half-open state makes them wait for
 *   the probe's outcome, which is the wait this circuit exists to remove);
 * - cost no timer and next to nothing per command while closed (opossum arms a timeout per call and
 *   rolls its statistics on an interval).
 *
 * Two signals move it besides command outcomes: the connection closing opens it at once (commands would
 * fail anyway; no need to count them failing), and the connection becoming ready again lets the next
 * command probe at once rather than at the end of `openMs`.
 */
export class RedisCircuit {
  readonly counters: CircuitCounters = { admitted: 0, refused: 0, failed: 0, opened: 0 };
  #state: CircuitState = "closed";
  #consecutiveFailures = 0;
  /** Clock time the circuit last opened. */
  #openedAt = 0;
  #probeOut = false;
  readonly #listeners: Listener[] = [];
  readonly #clock: Clock;
  readonly #openMs: number;
  readonly #failureThreshold: number;

  constructor(options: RedisCircuitOptions) {
    this.#clock = options.clock;
    this.#openMs = options.openMs;
    this.#failureThreshold = options.failureThreshold ?? 3;
  }

  get state(): CircuitState {
    return this.#state;
  }

  /** True while a command would be turned away now (read-only: nothing is counted or moved). */
  get refusing(): boolean {
    if (this.#state === "closed") return false;
    if (this.#state === "probing") return this.#probeOut;
    return !this.#due();
  }

  /** Called on every change of state, with what caused it (the failure that opened it, or null). */
  onChange(listener: Listener): void {
    this.#listeners.push(listener);
  }

  /**
   * Whether one command may go to Redis now, and as what; null: turn it away (counted).
   * @example
   * const admission = circuit.admit();
   * if (!admission) return fallback();
   * redis.incr(key).then(() => circuit.succeeded(admission), (error) => circuit.failed(admission, error));
   */
  admit(): Admission | null {
    if (this.#state === "closed") {
      this.counters.admitted++;
      return "closed";
    }
    if (this.#state === "open" && this.#due()) this.#move("probing", null);
    if (this.#state === "probing" && !this.#probeOut) {
      this.#probeOut = true;
      this.counters.admitted++;
      return "probe";
    }
    this.counters.refused++;
    return null;
  }

  /** A command let through got its answer (any answer from Redis, errors included, means it is there). */
  succeeded(admission: Admission): void {
    if (admission === "probe") {
      this.#probeOut = false;
      if (this.#state === "probing") this.#move("closed", null);
    } else if (this.#state === "closed") {
      this.#consecutiveFailures = 0;
    }
  }

  /** A command let through failed because Redis was not there (timeout, lost connection, cluster down). */
  failed(admission: Admission, cause: unknown): void {
    this.counters.failed++;
    if (admission === "probe") {
      this.#probeOut = false;
      if (this.#state === "probing") this.#open(cause);
    } else if (this.#state === "closed" && ++this.#consecutiveFailures >= this.#failureThreshold) {
      this.#open(cause);
    }
  }

  /** The connection to Redis is gone: open now (or restart the wait when already open). */
  connectionLost(cause: unknown): void {
    if (this.#state === "open") this.#openedAt = this.#clock.now().getTime();
    else this.#open(cause);
  }

  /** The connection is ready again: the next command probes at once. */
  connectionReady(): void {
    if (this.#state === "open") this.#move("probing", null);
  }

  #due(): boolean {
    return this.#clock.now().getTime() - this.#openedAt >= this.#openMs;
  }

  #open(cause: unknown): void {
    this.#openedAt = this.#clock.now().getTime();
    this.#consecutiveFailures = 0;
    this.counters.opened++;
    this.#move("open", cause);
  }

  #move(state: CircuitState, cause: unknown): void {
    if (state === "probing") this.#probeOut = false;
    const previous = this.#state;
    this.#state = state;
    if (previous !== state) for (const listener of this.#listeners) listener(state, cause);
  }
}
