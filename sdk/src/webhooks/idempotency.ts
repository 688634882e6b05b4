/**
 * Receiver rule 5: deduplicate on the event id. A delivery can arrive more than once (a retry after a
 * lost response, a manual retry, which keeps the event id), so a receiver records each id it processed
 * and skips repeats.
 */

/**
 * Where processed event ids are kept. Implement it over your database (an insert into a table with a
 * unique key, ideally in the same transaction as the processing) or Redis (`SET key 1 NX EX ttl`) so
 * every receiver instance shares it; {@link MemoryIdempotencyStore} suits a single process.
 */
export interface IdempotencyStore {
  /** Records `key` for `ttlSeconds` unless it is recorded already; true when this call recorded it. Must be atomic. */
  claim(key: string, ttlSeconds: number): boolean | Promise<boolean>;
  /** Forgets `key`, so that the sender's next retry of a failed event is processed again. */
  release(key: string): void | Promise<void>;
}

export interface MemoryIdempotencyStoreOptions {
  /** Most ids kept; the oldest are dropped beyond it. Default 100 000. */
  maxEntries?: number;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
}

/**
 * An in-process {@link IdempotencyStore} with expiry. Ids are lost on restart and not shared between
 * instances: use a database or Redis store when either matters.
 * @example
 * const dedupe = createEventDeduplicator({ store: new MemoryIdempotencyStore({ maxEntries: 10_000 }) });
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #expiries = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 100_000;
    if (!Number.isSafeInteger(this.#maxEntries) || this.#maxEntries < 1) throw new TypeError("MemoryIdempotencyStore: maxEntries must be a positive integer");
    this.#now = options.now ?? Date.now;
  }

  /** How many ids are held (expired ones may linger until the next claim). */
  get size(): number {
    return this.#expiries.size;
  }

  claim(key: string, ttlSeconds: number): boolean {
    const now = this.#now();
    this.#sweep(now);
    const expiresAt = this.#expiries.get(key);
    if (expiresAt !== undefined && expiresAt > now) return false;
    // Re-inserting moves the key to the end, keeping the map in claim order for the sweep and eviction.
    this.#expiries.delete(key);
    this.#expiries.set(key, now + ttlSeconds * 1000);
    while (this.#expiries.size > this.#maxEntries) this.#expiries.delete(this.#expiries.keys().next().value!);
    return true;
  }

  release(key: string): void {
    this.#expiries.delete(key);
  }

  /** Drops expired ids from the oldest end; cheap because claims arrive in time order. */
  #sweep(now: number): void {
    for (const [key, expiresAt] of this.#expiries) {
      if (expiresAt > now) break;
      this.#expiries.delete(key);
    }
  }
}

/** What happened to one delivery handed to {@link EventDeduplicator.run}. */
export type DeduplicatedOutcome<T> = { duplicate: false; result: T } | { duplicate: true };

export interface EventDeduplicator {
  /**
   * Runs `handler` unless this event id was already processed (or is being processed right now).
   * When the handler throws, the id is released and the error rethrown, so answer non-2xx and the
   * sender's retry is processed.
   */
  run<T>(event: { readonly id: string }, handler: () => T | Promise<T>): Promise<DeduplicatedOutcome<T>>;
}

export interface EventDeduplicatorOptions {
  /** Default: a {@link MemoryIdempotencyStore}. */
  store?: IdempotencyStore;
  /**
   * How long an id is remembered. Default 7 days: longer than the sender's automatic retries (about 3
   * days); manual retries from the console after that are processed again.
   */
  ttlSeconds?: number;
  /** Prepended to the event id in the store, e.g. to share one Redis between applications. */
  keyPrefix?: string;
}

/** Seven days. */
export const DEFAULT_DEDUPLICATION_TTL_SECONDS = 7 * 24 * 60 * 60;

/**
 * Processes each event id once: claims the id in a store before running the handler.
 * @example
 * const dedupe = createEventDeduplicator();
 * const event = await verifyNodeRequest(req, { secrets });
 * const outcome = await dedupe.run(event, () => queue.add(event));
 * res.writeHead(outcome.duplicate ? 200 : 202).end();
 */
export function createEventDeduplicator(options: EventDeduplicatorOptions = {}): EventDeduplicator {
  const store = options.store ?? new MemoryIdempotencyStore();
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_DEDUPLICATION_TTL_SECONDS;
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) throw new TypeError("createEventDeduplicator: ttlSeconds must be a positive number");
  const prefix = options.keyPrefix ?? "";
  return {
    async run(event, handler) {
      if (typeof event?.id !== "string" || event.id === "") throw new TypeError("EventDeduplicator.run: the event has no id");
      const key = prefix + event.id;
      if (!(await store.claim(key, ttlSeconds))) return { duplicate: true };
      try {
        return { duplicate: false, result: await handler() };
      } catch (error) {
        await store.release(key);
        throw error;
      }
    },
  };
}
