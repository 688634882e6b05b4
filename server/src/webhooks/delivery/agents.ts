import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";

/**
 * Keep-alive connection pools, one per destination origin (docs/webhooks.md "Connections"): a worker
 * sending many deliveries to one receiver reuses its connections instead of paying a TCP (and TLS)
 * handshake per delivery. Node's own Agent does the pooling; this bounds it:
 *
 * - at most `maxSocketsPerOrigin` sockets per origin (the worker's lanes, so a worker never queues a
 *   delivery behind another inside the pool) and the same number kept idle;
 * - an idle socket closes after `idleMs` (or sooner when the receiver announces a shorter
 *   `Keep-Alive: timeout`), below the 5 s most servers keep an idle connection, so that a reused socket
 *   is rarely one the receiver is closing at that instant (sender.ts sends again once on a fresh
 *   connection when that happens anyway);
 * - at most `maxOrigins` pools: the least recently used one is dropped (its idle sockets are unref'd
 *   and close on their idle timeout; sockets in use finish their request).
 *
 * A pooled socket was connected to an address vetted by the URL policy when it was opened
 * (sender.ts pins the lookup), so reusing it never reaches an address the policy refuses; the pool
 * is keyed by host name and port, never shared between host names. Proxy variables play no part:
 * these agents are never the global one.
 */
export class DestinationAgents {
  readonly #pools = new Map<string, HttpAgent>();
  readonly #maxSocketsPerOrigin: number;
  readonly #maxOrigins: number;
  readonly #idleMs: number;

  constructor(options: { maxSocketsPerOrigin: number; maxOrigins?: number; idleMs?: number }) {
    this.#maxSocketsPerOrigin = options.maxSocketsPerOrigin;
    this.#maxOrigins = options.maxOrigins ?? 256;
    this.#idleMs = options.idleMs ?? 4_000;
  }

  /** The pool for `url`'s origin (created on first use, marked most recently used). */
  for(url: URL): HttpAgent {
    const origin = `${url.protocol}//${url.host}`;
    let agent = this.#pools.get(origin);
    if (agent) {
      this.#pools.delete(origin);
      this.#pools.set(origin, agent);
      return agent;
    }
    const options = { keepAlive: true, maxSockets: this.#maxSocketsPerOrigin, maxFreeSockets: this.#maxSocketsPerOrigin, timeout: this.#idleMs, scheduling: "lifo" as const };
    agent = url.protocol === "https:" ? new HttpsAgent(options) : new HttpAgent(options);
    this.#pools.set(origin, agent);
    if (this.#pools.size > this.#maxOrigins) this.#pools.delete(this.#pools.keys().next().value!);
    return agent;
  }

  /** Open pools (for tests). */
  get size(): number {
    return this.#pools.size;
  }

  /** Closes every pooled socket (the worker stopped; nothing is in flight). */
  destroy(): void {
    for (const agent of this.#pools.values()) agent.destroy();
    this.#pools.clear();
  }
}
