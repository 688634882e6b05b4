import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { deliveryHeaders } from "../delivery/signing.ts";
import type { WebhookEnv } from "../env.ts";
import type { WebhookListenSessionTable } from "../tables.ts";
import { failUnreported, failUnsent, markSent, unreportedCounts, unsentDeliveries } from "./deliveries.ts";
import type { ListenEventStream } from "./event-stream.ts";
import { endListenSession, renewLeases, toListenSession, type EndReason } from "./sessions.ts";
import type { ListenSettings } from "./settings.ts";

/** The invalidation-bus topic that says "deliveries are waiting for listen session <id>". */
export const LISTEN_TOPIC = "webhooks.listen";

/** How often (real time) the hub looks for deliveries when nobody told it; the bus usually tells it at once. */
const POLL_MS = 1_000;
/** Deliveries looked at per round. */
const ROUND_LIMIT = 200;

interface Attached {
  sessionId: string;
  /** The session's signing secret, opened once when the stream attached; never logged. */
  secret: string;
  stream: ListenEventStream;
  /** Set once the hub ends this stream itself, so the close it causes is not taken for a client leaving. */
  ending: boolean;
}

/**
 * Tells the process holding each session's stream that deliveries are waiting, wherever it runs:
 * through the invalidation bus (this process at once, the others over Redis). Without Redis, other
 * processes on the same database find them at their next poll (about a second).
 */
export async function announceListenDeliveries(env: Pick<WebhookEnv, "invalidations">, sessionIds: readonly string[]): Promise<void> {
  for (const id of new Set(sessionIds)) await env.invalidations.publish({ topic: LISTEN_TOPIC, id });
}

/**
 * The streams this process holds, and the one loop that feeds them (docs/webhooks.md "Listen
 * sessions: how it works"). Deliveries are rows in the database, written by whichever process fanned
 * them out or triggered them; the hub of the process holding a session's stream sends them, signed
 * with the session's secret, and only while the session's buffer has room: a session with `buffer`
 * deliveries unreported, or a stream the client is not reading, gets its further deliveries failed
 * instead of queued in memory. Every round also renews the held sessions' leases (at each ping), fails
 * deliveries whose report is overdue, and lets go of sessions that ended or moved to another stream.
 * The loop runs only while the process holds a stream. One per process: the wiring makes it
 * (app/deps.ts).
 */
export class ListenHub {
  readonly holder = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  readonly settings: ListenSettings;
  readonly #env: WebhookEnv;
  readonly #lifecycle: { readonly shuttingDown: boolean };
  readonly #attached = new Map<string, Attached>();
  #timer: NodeJS.Timeout | null = null;
  #round: Promise<void> | null = null;
  #again = false;
  #lastPing = performance.now();

  /** `lifecycle` says when the server is shutting down: the hub then ends its streams (clients reconnect). */
  constructor(env: WebhookEnv, settings: ListenSettings, lifecycle: { readonly shuttingDown: boolean }) {
    this.#env = env;
    this.#lifecycle = lifecycle;
    this.settings = settings;
    env.invalidations.on((message) => {
      if (message.topic === LISTEN_TOPIC && this.#attached.has(message.id)) this.wake();
    });
  }

  /** Sessions whose stream this process holds. */
  get sessionIds(): string[] {
    return [...this.#attached.keys()];
  }

  /**
   * Starts feeding a session's stream: the ready message first (with the secret when the session is
   * new), then its deliveries. A stream this process already held for the session is replaced.
   */
  attach(session: WebhookListenSessionTable, secret: string, stream: ListenEventStream, ready: { secret: string | null; resumed: boolean }): void {
    const previous = this.#attached.get(session.id);
    if (previous) void this.#end(previous, "replaced", "Another stream resumed this session", { record: false });
    const attached: Attached = { sessionId: session.id, secret, stream, ending: false };
    this.#attached.set(session.id, attached);
    stream.send("ready", {
      session: toListenSession(session),
      secret: ready.secret,
      resumed: ready.resumed,
      ping_interval_seconds: this.settings.pingMs / 1000,
      buffer: this.settings.buffer,
    });
    stream.onClose(() => {
      if (attached.ending) return;
      attached.ending = true;
      if (this.#attached.get(session.id) === attached) this.#attached.delete(session.id);
      // The client went away: the session ends (resumable); its unsent deliveries fail.
      endListenSession(this.#env.db, { id: session.id, reason: "stream_closed", now: this.#env.clock.now().getTime(), holder: this.holder }).catch((error) =>
        this.#env.log.warn({ err: error, session_id: session.id }, "could not end a listen session whose stream closed; its lease will expire"),
      );
    });
    if (!this.#timer) {
      this.#timer = setInterval(() => this.wake(), POLL_MS);
      this.#timer.unref();
    }
    this.wake();
  }

  /** Runs a round now (or right after the running one). */
  wake(): void {
    if (this.#round) {
      this.#again = true;
      return;
    }
    this.#round = (async () => {
      do {
        this.#again = false;
        try {
          await this.#step();
        } catch (error) {
          this.#env.log.error({ err: error }, "listen hub round failed");
        }
      } while (this.#again);
    })().finally(() => {
      this.#round = null;
    });
  }

  /** Resolves when the current round (if any) is over: for tests that need the hub to have looked. */
  async settle(): Promise<void> {
    while (this.#round) await this.#round;
  }

  async #step(): Promise<void> {
    if (this.#attached.size === 0) {
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = null;
      return;
    }
    const { db, clock } = this.#env;
    const now = clock.now().getTime();
    if (this.#lifecycle.shuttingDown) {
      for (const attached of [...this.#attached.values()]) await this.#end(attached, "shutdown", "The server is shutting down; reconnect to resume this session");
      return;
    }

    // Let go of sessions that ended (by the account, or their lease ran out) or moved to another stream.
    const rows = await db.selectFrom("webhook_listen_sessions").select(["id", "status", "holder", "end_reason"]).where("id", "in", this.sessionIds).execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const attached of [...this.#attached.values()]) {
      const row = byId.get(attached.sessionId);
      if (!row || row.status !== "open") await this.#end(attached, (row?.end_reason as EndReason | null) ?? "ended", "The listen session was ended", { record: false });
      else if (row.holder !== this.holder) await this.#end(attached, "replaced", "Another stream resumed this session", { record: false });
    }

    // Keep-alive: renew the leases and ping; a client that has read nothing for idleMs is dropped.
    const real = performance.now();
    if (real - this.#lastPing >= this.settings.pingMs) {
      this.#lastPing = real;
      await renewLeases(db, { ids: this.sessionIds, holder: this.holder, until: now + this.settings.leaseMs });
      for (const attached of [...this.#attached.values()]) {
        if (attached.stream.congestedFor(real) >= this.settings.idleMs) await this.#end(attached, "idle", "The stream was not read; reconnect to resume");
        else if (!attached.stream.congested) attached.stream.comment("ping");
      }
    }

    const ids = this.sessionIds;
    await failUnreported(db, { now, timeoutMs: this.settings.reportTimeoutMs, sessionIds: ids });
    const unreported = await unreportedCounts(db, ids);
    const overflow: string[] = [];
    for (const delivery of await unsentDeliveries(db, ids, ROUND_LIMIT)) {
      const attached = this.#attached.get(delivery.session_id);
      if (!attached || attached.ending) continue;
      const waiting = unreported.get(delivery.session_id) ?? 0;
      if (waiting >= this.settings.buffer || attached.stream.congested) {
        overflow.push(delivery.id);
        continue;
      }
      if (!(await markSent(db, delivery.id, now))) continue;
      unreported.set(delivery.session_id, waiting + 1);
      attached.stream.send(
        "delivery",
        {
          delivery_id: delivery.id,
          session_id: delivery.session_id,
          event_id: delivery.event_id,
          event_type: delivery.event_type,
          attempt: Number(delivery.attempts) + 1,
          headers: deliveryHeaders({ eventId: delivery.event_id, timestampSeconds: Math.floor(now / 1000), rawBody: delivery.payload, secret: attached.secret, previousSecret: null }),
          body: delivery.payload,
        },
        delivery.id,
      );
    }
    if (overflow.length) {
      const failed = await failUnsent(db, {
        ids: overflow,
        now,
        error: `backpressure: the forwarder has ${this.settings.buffer} deliveries unreported or is not reading the stream; this one was not sent`,
      });
      this.#env.log.warn({ failed }, "listen deliveries failed: a forwarder is not keeping up");
    }
  }

  /** Ends one stream with a last `end` message; `record` also ends the session in the database. */
  async #end(attached: Attached, reason: EndReason, message: string, options: { record?: boolean } = {}): Promise<void> {
    if (attached.ending) return;
    attached.ending = true;
    if (this.#attached.get(attached.sessionId) === attached) this.#attached.delete(attached.sessionId);
    if (options.record !== false) {
      await endListenSession(this.#env.db, { id: attached.sessionId, reason, now: this.#env.clock.now().getTime(), holder: this.holder }).catch((error) =>
        this.#env.log.warn({ err: error, session_id: attached.sessionId }, "could not end a listen session; its lease will expire"),
      );
    }
    attached.stream.send("end", { reason, message });
    attached.stream.close();
  }
}
