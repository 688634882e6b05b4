import { hash } from "node:crypto";
import type { Invalidation, InvalidationBus } from "../storage/invalidations.ts";

/** Invalidation topics of resolved credentials (ids as in the database). */
const API_KEY_REVOKED = "apiKey";
const SESSION_ENDED = "session";
const OTHER_SESSIONS_ENDED = "otherSessions";

/** A resolved API key, as its verifier needs it between requests. */
export interface CachedApiKey {
  kind: "apiKey";
  id: string;
  userId: string;
  /** Domain time last written to api_keys.last_used_at by this instance (or read). */
  lastUsedAt: number | null;
}

/** A resolved session: what deciding "live, and no sliding refresh due" takes without the database. */
export interface CachedSession {
  kind: "session";
  id: string;
  userId: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  absoluteExpiresAt: number;
}

export type CachedCredential = CachedApiKey | CachedSession;

/** What revokes credentials tells the caches, after the change is committed. */
export interface CredentialRevocations {
  apiKeyRevoked(keyId: string): Promise<void>;
  sessionEnded(sessionId: string): Promise<void>;
  /** Every session of the account but `keptSessionId` ended (revoke-others). */
  otherSessionsEnded(userId: string, keptSessionId: string): Promise<void>;
}

/**
 * The cache key of a presented secret (API key or session token): its SHA-256, never the secret.
 * One-shot `hash` (a third of `createHash().update().digest()`'s cost): it runs on every request.
 */
export const credentialHash = (secret: string) => hash("sha256", secret, "hex");

/**
 * The last secret presented on each open connection, with its hash: a client sends the same API key
 * with every request of a keep-alive connection, and hashing it again was about 2 % of a small
 * lookup's instructions (docs/performance.md "Lookup, tenth pass"). The secret is held as long as the
 * connection that carries it (the entry goes with the socket), never for the cache's lifetime: the
 * credential cache stays keyed by the hash, and its checks (TTL, revocation, the bus) run on every
 * request as before. Compared in constant time: behind a proxy one connection carries many clients'
 * keys, and a comparison that stops at the first difference would tell one client about another's key.
 */
const lastOnConnection = new WeakMap<object, { secret: string; hash: string }>();

/**
 * {@link credentialHash} of a secret presented on `connection` (node's socket), remembered for that
 * connection's next request.
 * @example
 * const hash = credentialHashOn(req.socket, apiKey);
 */
export function credentialHashOn(connection: object, secret: string): string {
  const last = lastOnConnection.get(connection);
  if (last !== undefined && sameText(last.secret, secret)) return last.hash;
  const hashed = credentialHash(secret);
  lastOnConnection.set(connection, { secret, hash: hashed });
  return hashed;
}

/** Whether two strings are equal, in time that depends on their length only. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

export interface CredentialCacheOptions {
  /** How long an entry may serve without the database; 0 turns caching off. */
  ttlMs: number;
  /** Bound on entries (oldest dropped first). */
  maxEntries?: number;
  /** Real time, for the TTL (not the domain clock: expiry of sessions is checked with that). */
  now?: () => number;
}

/**
 * Resolved API keys and sessions of this process, keyed by the SHA-256 of the presented secret, so a
 * busy key or session costs no database read per request (docs/console.md "API keys", docs/auth.md
 * "Sessions"). Only positive answers are kept; unknown secrets always go to the database.
 *
 * A revocation never lets a credential through longer than this (docs/auth.md "Revocation"):
 * - in the revoking instance, at once: {@link CredentialRevocations} drops the entry before the
 *   revoking request answers;
 * - in other instances (with REDIS_URL), when the message on the invalidation bus arrives; while the
 *   bus is not live (Redis connection lost) nothing is served from the cache;
 * - in any case after `ttlMs`.
 * A read that started before an invalidation is not cached when it completes (the generation check),
 * so a late answer from before the revocation cannot re-enter the cache.
 */
export class CredentialCache implements CredentialRevocations {
  readonly #entries = new Map<string, { credential: CachedCredential; storedAt: number }>();
  readonly #reads = new Map<string, { generation: number; result: Promise<unknown> }>();
  #generation = 0;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(
    private readonly bus: InvalidationBus | null,
    options: CredentialCacheOptions,
  ) {
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
    bus?.on((message) => this.#apply(message));
    bus?.onReset(() => this.#forget(() => true));
  }

  /** The number to hand to {@link set} for a database read: take it before the read starts. */
  get generation(): number {
    return this.#generation;
  }

  get(hash: string): CachedCredential | undefined {
    const entry = this.#entries.get(hash);
    if (!entry) return undefined;
    if (this.#now() - entry.storedAt >= this.#ttlMs || (this.bus !== null && !this.bus.live)) {
      this.#entries.delete(hash);
      return undefined;
    }
    return entry.credential;
  }

  /**
   * Reads a credential from the database once for all the requests presenting it meanwhile: they share
   * the read in flight, unless an invalidation reached this process after it began (then they read
   * anew). While the bus is not live nothing is served from the cache, and without this a busy key
   * would cost a read per request. Returns the result and the generation taken when the read began,
   * for {@link set}.
   * @example
   * const { value: row, generation } = await cache.read(hash, () => findKeyRow(db, hash));
   */
  async read<T>(hash: string, load: () => Promise<T>): Promise<{ value: T; generation: number }> {
    const inFlight = this.#reads.get(hash);
    if (inFlight && inFlight.generation === this.#generation) return { value: (await inFlight.result) as T, generation: inFlight.generation };
    const entry = { generation: this.#generation, result: load() };
    this.#reads.set(hash, entry);
    try {
      return { value: (await entry.result) as T, generation: entry.generation };
    } finally {
      if (this.#reads.get(hash) === entry) this.#reads.delete(hash);
    }
  }

  /** Keeps a credential read from the database, unless anything was invalidated since the read began. */
  set(hash: string, credential: CachedCredential, generation: number): void {
    if (this.#ttlMs <= 0 || generation !== this.#generation || (this.bus !== null && !this.bus.live)) return;
    if (!this.#entries.has(hash) && this.#entries.size >= this.#maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(hash, { credential, storedAt: this.#now() });
  }

  delete(hash: string): void {
    this.#entries.delete(hash);
  }

  #apply(message: Invalidation): void {
    switch (message.topic) {
      case API_KEY_REVOKED:
        this.#forget((c) => c.kind === "apiKey" && c.id === message.id);
        break;
      case SESSION_ENDED:
        this.#forget((c) => c.kind === "session" && c.id === message.id);
        break;
      case OTHER_SESSIONS_ENDED:
        this.#forget((c) => c.kind === "session" && c.userId === message.id && c.id !== message.except);
        break;
    }
  }

  #forget(matches: (credential: CachedCredential) => boolean): void {
    this.#generation++;
    for (const [hash, entry] of this.#entries) if (matches(entry.credential)) this.#entries.delete(hash);
  }

  async apiKeyRevoked(keyId: string): Promise<void> {
    await this.#publish({ topic: API_KEY_REVOKED, id: keyId });
  }

  async sessionEnded(sessionId: string): Promise<void> {
    await this.#publish({ topic: SESSION_ENDED, id: sessionId });
  }

  async otherSessionsEnded(userId: string, keptSessionId: string): Promise<void> {
    await this.#publish({ topic: OTHER_SESSIONS_ENDED, id: userId, except: keptSessionId });
  }

  async #publish(message: Invalidation): Promise<void> {
    if (this.bus) await this.bus.publish(message);
    else this.#apply(message);
  }
}
