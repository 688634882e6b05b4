import { randomBytes } from "node:crypto";
import { Cluster, type Redis } from "ioredis";
import type { Logger } from "../log.ts";
import { connectWithin, CONNECT_WAIT_MS, RedisUnavailableError } from "./redis-connection.ts";
import type { SharedStore } from "./shared-store.ts";

/** What the bus uses of the shared store (a store without Redis needs no circuit). */
type BusStore = Pick<SharedStore, "redis" | "keyPrefix"> & Partial<Pick<SharedStore, "circuit" | "redisLog">>;

/**
 * "Something you may have cached changed": a credential was revoked, an account's plan moved. Topics
 * are owned by the caches that listen to them (auth/credential-cache.ts, console/usage-ledger.ts). The
 * listen hub (webhooks/listen/hub.ts) rides the same bus to hear "deliveries wait for session <id>":
 * a wake-up, lost without harm (it polls every second anyway).
 */
export interface Invalidation {
  topic: string;
  /** The changed thing's id (key_…, ses_…, usr_…). */
  id: string;
  /** An id the change leaves alone (revoke-others keeps the current session). */
  except?: string;
}

type Listener = (message: Invalidation) => void;

/**
 * Tells every cache in every instance that something changed, so in-process caches can serve the hot
 * path without letting a revoked credential through.
 *
 * `publish` applies a message to this process's listeners synchronously (so the change is visible here
 * before the revoking request answers) and then sends it on the Redis channel `<keyPrefix>invalidate`
 * to the other instances. Without Redis there are no other instances to tell (a deployment that runs
 * several without Redis relies on the caches' TTL alone).
 *
 * Messages sent while an instance's subscription is down are lost, so the bus reports `live: false`
 * from the moment the subscriber's connection closes until it is subscribed again, and calls the
 * `onReset` listeners on both edges: caches drop what they hold and do not cache while not live. It is
 * also not live while the store's circuit is not closed (Redis failed to answer commands): a Redis that
 * hangs can keep the subscriber's connection open while the other instances' messages cannot get
 * through to it.
 */
export class InvalidationBus {
  readonly #listeners: Listener[] = [];
  readonly #resetListeners: Array<() => void> = [];
  readonly #origin = randomBytes(8).toString("hex");
  readonly #channel: string;
  #subscriber: Redis | Cluster | null = null;
  /** Redis confirmed the subscription (always true without Redis). */
  #subscribed: boolean;
  #live: boolean;
  #closed = false;

  private constructor(
    private readonly store: BusStore,
    private readonly log: Logger,
  ) {
    this.#channel = `${store.keyPrefix}invalidate`;
    this.#subscribed = store.redis === null;
    this.#live = this.#subscribed;
    store.circuit?.onChange(() => this.#update());
  }

  /**
   * Opens the bus; with Redis, resolves once this instance is subscribed.
   * @example
   * const bus = await InvalidationBus.open(store, log);
   * bus.on((m) => { if (m.topic === "apiKey") cache.forgetKey(m.id); });
   */
  static async open(store: BusStore, log: Logger): Promise<InvalidationBus> {
    const bus = new InvalidationBus(store, log);
    if (store.redis) await bus.#subscribe(store.redis);
    return bus;
  }

  async #subscribe(redis: Redis | Cluster): Promise<void> {
    // A connection in subscriber mode can do nothing else, hence a second one. On a Redis Cluster,
    // PUBLISH reaches every node's subscribers, so the subscriber may sit on any node; when that node
    // fails the Cluster client moves the subscription to another one, and what was published in
    // between is lost: the "-node" edge resets the caches like a lost connection does.
    const subscriber: Redis | Cluster =
      redis instanceof Cluster ? redis.duplicate() : redis.duplicate({ connectionName: `${this.store.keyPrefix}invalidations` });
    if (subscriber instanceof Cluster) {
      subscriber.on("-node", () => {
        if (this.#closed) return;
        this.#sayUnlessRedisIsDown("a Redis Cluster node left; credential and usage caches dropped");
        for (const reset of this.#resetListeners) reset();
      });
    }
    this.#subscriber = subscriber;
    subscriber.on("message", (channel: string, text: string) => {
      if (channel !== this.#channel) return;
      let message: Invalidation & { origin?: string };
      try {
        message = JSON.parse(text) as Invalidation & { origin?: string };
      } catch {
        return;
      }
      if (message.origin === this.#origin) return; // applied locally when published
      this.#deliver({ topic: message.topic, id: message.id, except: message.except });
    });
    // Resubscribe explicitly on every (re)connection and only count as live once Redis confirmed it:
    // messages published between the disconnect and this point were missed, which the reset covers.
    // One attempt per connection (a Cluster emits "ready" after its connect() has resolved).
    let attempt: Promise<void> | null = null;
    const subscribe = () =>
      (attempt ??= subscriber.subscribe(this.#channel).then(
        () => {
          this.#subscribed = true;
          this.#update();
        },
        () => {
          attempt = null; // the connection dropped again; "ready" comes back with it
        },
      ));
    subscriber.on("ready", () => void subscribe());
    subscriber.on("close", () => {
      attempt = null;
      if (this.#live) this.#sayUnlessRedisIsDown("invalidation channel lost; credential and usage caches bypassed until it is back");
      this.#subscribed = false;
      this.#update();
    });
    // Reported with the store's other connections: once per outage, never by ioredis itself.
    subscriber.on("error", (error: unknown) => this.store.redisLog?.error("invalidations", error));
    // Redis unreachable at start: the bus starts not live, and "ready" subscribes when it is back.
    await connectWithin(subscriber, CONNECT_WAIT_MS);
    if (subscriber.status === "ready") await subscribe();
  }

  /**
   * Warns about this connection alone; when all of Redis is away, the store's one outage line says it
   * for every user of Redis (redis-outage-log.ts).
   */
  #sayUnlessRedisIsDown(message: string): void {
    if (this.#closed) return;
    if (this.store.redisLog) this.store.redisLog.warnUnlessDown({ connection: "invalidations" }, message);
    else this.log.warn(message);
  }

  /** Live when subscribed and the store's Redis answers; both edges reset the caches. */
  #update(): void {
    if (this.#closed) return;
    const live = this.#subscribed && (!this.store.circuit || this.store.circuit.state === "closed");
    if (live === this.#live) return;
    this.#live = live;
    for (const reset of this.#resetListeners) reset();
  }

  #deliver(message: Invalidation): void {
    for (const listener of this.#listeners) listener(message);
  }

  /** True when every invalidation reaches this instance (always, without Redis). */
  get live(): boolean {
    return this.#live;
  }

  on(listener: Listener): void {
    this.#listeners.push(listener);
  }

  /** Called when the bus stops or starts being live: drop everything cached. */
  onReset(listener: () => void): void {
    this.#resetListeners.push(listener);
  }

  /**
   * Applies the message here at once, then tells the other instances. Call it after the change is
   * committed, so a cache that reloads on the message reads the new state. A failed send is logged,
   * not thrown: the change itself has happened, and the other instances' TTL still bounds it.
   */
  async publish(message: Invalidation): Promise<void> {
    this.#deliver(message);
    const redis = this.store.redis;
    if (!redis) return;
    try {
      await redis.publish(this.#channel, JSON.stringify({ ...message, origin: this.#origin }));
    } catch (error) {
      // Not tried because Redis is known to be away: the outage is logged once, not per message.
      if (error instanceof RedisUnavailableError) return;
      this.log.warn({ err: error, topic: message.topic }, "could not publish an invalidation; other instances see it when their cache entry expires");
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const subscriber = this.#subscriber;
    if (subscriber && subscriber.status !== "end") await subscriber.quit().catch(() => subscriber.disconnect());
  }
}
