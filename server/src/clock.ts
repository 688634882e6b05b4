/**
 * The one source of "now" for everything time-dependent (expiry, retries, grace periods, quota periods),
 * so tests move time with a {@link ManualClock} instead of sleeping.
 */
export interface Clock {
  now(): Date;
  /** `now().getTime()` without the Date: what a request's metering reads, several times per request. */
  nowMs(): number;
}

export const systemClock: Clock = { now: () => new Date(), nowMs: Date.now };

/**
 * A clock that only moves when told to.
 * @example
 * const clock = new ManualClock("2026-11-23T00:00:00Z");
 * clock.advance(300_000); // five minutes later
 */
export class ManualClock implements Clock {
  #ms: number;
  constructor(start: Date | string | number = "2026-11-23T04:00:00.000Z") {
    this.#ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  nowMs(): number {
    return this.#ms;
  }
  set(at: Date | string | number): void {
    this.#ms = new Date(at).getTime();
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
}
