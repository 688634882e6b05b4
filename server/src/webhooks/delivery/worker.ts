import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { claimDueReporting, heartbeat, HEARTBEAT_EVERY_MS, loadClaimed, retireWorker, WORKER_ALIVE_MS, type Claim, type ClaimedDelivery, type ClaimInput, type DeliveryTarget } from "./queue.ts";
import { DestinationAgents } from "./agents.ts";
import { OutcomeRecorder, type FollowOnClaim } from "./recorder.ts";
import { nextRetryDelayMs } from "./schedule.ts";
import { DEFAULT_SEND_LIMITS, sendWebhook, type SendLimits, type SendResult } from "./sender.ts";
import { deliveryHeaders } from "./signing.ts";
import type { WebhookEnv } from "../env.ts";
import type { SpanHandle } from "../../observability/tracing.ts";

/** What a claim read for a delivery (its row, its subscription, the secrets opened for the claim). */
type LoadedForDelivery = { row: ClaimedDelivery | undefined; target: DeliveryTarget | undefined; secrets?: Map<string, { secret: string; previousSecret: string | null }> };

/** Under a backlog, how long (real time) free lanes wait for others to free up before claiming together. */
const GATHER_MS = 5;

/** Deliveries in flight per subscription unless WEBHOOK_ENDPOINT_CONCURRENCY says otherwise. */
export const DEFAULT_ENDPOINT_CONCURRENCY = 2;

export interface DeliveryWorkerOptions {
  /** Names this worker in leases and logs; unique per worker. */
  owner?: string;
  /** How long a claim is exclusive; must exceed one attempt's total timeout (checked). Default 60 s. */
  leaseMs?: number;
  /** At most this many deliveries claimed per query (fewer when fewer lanes are free). */
  batchSize?: number;
  /** Deliveries sent at once by this worker (lanes). */
  concurrency?: number;
  /**
   * Deliveries in flight per subscription, across all workers (docs/webhooks.md "Fairness"), so one
   * slow receiver holds at most this many lanes. Default {@link DEFAULT_ENDPOINT_CONCURRENCY}.
   */
  endpointConcurrency?: number;
  /** Real-time pause between polls when the queue is empty (an in-process enqueue wakes it early). */
  pollIntervalMs?: number;
  /**
   * How long after its last heartbeat (by the injected clock) this worker still counts as alive, so
   * that its leases hold their subscriptions' slots (docs/webhooks.md "Crash recovery"). Default
   * {@link WORKER_ALIVE_MS}; a started worker beats every {@link HEARTBEAT_EVERY_MS} of real time.
   */
  aliveMs?: number;
  limits?: Partial<SendLimits>;
  /** Jitter source, 0 <= x < 1 (tests pin it). */
  random?: () => number;
  /** Extra CA certificates to trust (tests with a local HTTPS receiver). */
  ca?: string;
}

/**
 * Claims due deliveries and sends them (docs/webhooks.md "Delivery"). Lanes are refilled one by one:
 * whenever a delivery finishes, the worker claims again for the free lanes, so a slow attempt never
 * holds back the deliveries claimed with it, and a subscription at its in-flight cap is skipped by the
 * claim (queue.ts) while the others keep flowing. Every scheduling decision reads the injected clock, so
 * tests advance a ManualClock and call {@link runOnce} or {@link drain}; the background loop
 * ({@link start}) only decides when to look again, in real time.
 */
export class DeliveryWorker {
  readonly owner: string;
  readonly #env: WebhookEnv;
  readonly #options: Required<Omit<DeliveryWorkerOptions, "ca" | "limits" | "owner">> & Pick<DeliveryWorkerOptions, "ca" | "limits">;
  #loop: Promise<void> | null = null;
  readonly #inFlight = new Set<Promise<void>>();
  /** The last claim got every delivery it asked for: more are probably due. */
  #claimedFull = false;
  /** The last claim came back short but left due deliveries behind (their subscriptions at the cap). */
  #leftBehind = false;
  /** Lanes promised to claims under way (not yet started deliveries). */
  #reserved = 0;
  /** Deliveries started since this worker was made (drain counts its own from it). */
  #started = 0;
  /** Recording transactions claim for the lanes they free (background loop and drain). */
  #followOnActive = false;
  /** This worker's deliveries in flight per subscription. */
  readonly #perSubscription = new Map<string, number>();
  #stopping = false;
  #wake: (() => void) | null = null;
  #heartbeat: NodeJS.Timeout | null = null;
  /**
   * Until when (injected clock, ms) this worker's last committed heartbeat keeps it alive: its claims'
   * own heartbeats, or its timer's. -Infinity when unknown (not beaten yet, or retired).
   */
  #aliveUntil = Number.NEGATIVE_INFINITY;
  #lastBeat: Promise<unknown> = Promise.resolve();
  /** Results go to the database in group commits (recorder.ts). */
  readonly #recorder: OutcomeRecorder;
  /** Keep-alive connections per destination, as many per origin as this worker has lanes (agents.ts). */
  readonly #agents: DestinationAgents;
  /**
   * Set by an enqueue signal or a delivery finishing: a claim that started before it may have missed
   * rows (or a free lane), so the loop looks again instead of waiting for the next poll.
   */
  #signalled = false;
  readonly #onQueued = () => {
    this.#signalled = true;
    this.#wake?.();
  };

  constructor(env: WebhookEnv, options: DeliveryWorkerOptions = {}) {
    this.#env = env;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    const concurrency = options.concurrency ?? 8;
    const endpointConcurrency = options.endpointConcurrency ?? DEFAULT_ENDPOINT_CONCURRENCY;
    if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new Error(`concurrency must be a positive integer, not ${concurrency}`);
    if (!(Number.isInteger(endpointConcurrency) && endpointConcurrency >= 1)) throw new Error(`endpointConcurrency must be a positive integer, not ${endpointConcurrency}`);
    // A delivery is claimed only when a lane is free and starts at once, so the lease must outlast one
    // attempt at its worst (the total timeout) plus the database writes around it; otherwise another
    // worker would take it over while it is still on the wire.
    const attemptMs = options.limits?.totalTimeoutMs ?? DEFAULT_SEND_LIMITS.totalTimeoutMs;
    const leaseMs = options.leaseMs ?? Math.max(60_000, attemptMs + 15_000);
    if (leaseMs <= attemptMs) throw new Error(`leaseMs (${leaseMs}) must exceed the attempt's total timeout (${attemptMs} ms)`);
    this.#options = {
      leaseMs,
      batchSize: options.batchSize ?? 20,
      concurrency,
      endpointConcurrency,
      pollIntervalMs: options.pollIntervalMs ?? 1_000,
      aliveMs: options.aliveMs ?? WORKER_ALIVE_MS,
      random: options.random ?? Math.random,
      ca: options.ca,
      limits: options.limits,
    };
    this.#recorder = new OutcomeRecorder(env.db);
    this.#agents = new DestinationAgents({ maxSocketsPerOrigin: concurrency });
  }

  /** Deliveries this worker has on the wire (or about to record). */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Claims up to `limit` due deliveries, respecting the per-subscription cap. Tests override it to hold a round. */
  protected async claim(limit: number): Promise<Claim[]> {
    const input = this.#claimInput(limit);
    const { claims, leftBehind } = await claimDueReporting(this.#env.db, input);
    this.#beaten(input);
    this.#leftBehind = leftBehind;
    return claims;
  }

  #claimInput(limit: number): ClaimInput {
    const now = this.#env.clock.now().getTime();
    return {
      owner: this.owner,
      now,
      leaseMs: this.#options.leaseMs,
      limit,
      maxInFlightPerSubscription: this.#options.endpointConcurrency,
      aliveMs: this.#options.aliveMs,
      beat: this.#beatWithClaim(now),
    };
  }

  /**
   * Whether a claim at `now` must write this worker's heartbeat (docs/webhooks.md "Crash recovery"):
   * only when its last committed beat leaves less than `aliveMs - 2 × HEARTBEAT_EVERY_MS` (6 s of the
   * default 10 s; at least half of `aliveMs` when that is short) beyond now. A running worker's timer beats every 2 s, so under load the claims skip
   * the write (one round trip each on MariaDB) while its leases still count as alive for at least that
   * long after every claim, as they did for the full 10 s before; a worker that stops beating (killed,
   * or its timer's writes failing) is found out after at most `aliveMs`, as before.
   */
  #beatWithClaim(now: number): boolean {
    const aliveMs = this.#options.aliveMs;
    return this.#aliveUntil - now < Math.max(aliveMs / 2, aliveMs - 2 * HEARTBEAT_EVERY_MS);
  }

  /** A claim committed: if it beat, this worker is alive until now + aliveMs. */
  #beaten(input: ClaimInput): void {
    if (input.beat !== false) this.#aliveUntil = Math.max(this.#aliveUntil, input.now + (input.aliveMs ?? WORKER_ALIVE_MS));
  }

  /**
   * The claim that rides in a recording transaction (queue.ts recordAndClaim): when more may be due, a
   * batch of results also claims for the lanes it frees, so a busy worker commits once per round
   * instead of twice (a claim, then the results). Its lanes are reserved until the claim's deliveries
   * start, so no other claim of this worker counts them as free meanwhile.
   */
  readonly #followOn: FollowOnClaim = {
    plan: (freed) => {
      if (this.#stopping || !this.#moreMayBeDue()) return null;
      const limit = Math.min(this.#options.batchSize, this.#options.concurrency - this.#inFlight.size - this.#reserved + freed);
      if (limit <= 0) return null;
      // A claim costs about the same for one delivery as for many: as in #gatherLanes, wait for a
      // quarter of the lanes while others are still in flight (a later batch claims for them all),
      // but never longer than GATHER_MS: then the loop claims for whatever is free.
      if (limit < this.#gatherWanted() && this.#inFlight.size - freed > 0) {
        this.#lookSoon();
        return null;
      }
      this.#reserved += limit;
      return this.#claimInput(limit);
    },
    claimed: (input, { claims, leftBehind, loaded }) => {
      this.#beaten(input);
      this.#reserved -= input.limit;
      this.#claimedFull = claims.length === input.limit;
      this.#leftBehind = leftBehind;
      this.#startClaimed(claims, loaded);
    },
    abandoned: (input) => {
      this.#reserved -= input.limit;
      // Nothing was claimed for the lanes this batch freed: let the loop look.
      this.#onQueued();
    },
  };

  /**
   * Claims for the free lanes (at most batchSize) and starts those deliveries; returns them running.
   * After a claim that got all it asked for (a backlog), it first lets lanes free up together for a
   * moment (see {@link #gatherLanes}), so that one claim fills several lanes.
   */
  async #fill(): Promise<Promise<void>[]> {
    if (this.#claimedFull) await this.#gatherLanes();
    const free = this.#options.concurrency - this.#inFlight.size - this.#reserved;
    if (free <= 0) return [];
    const wanted = Math.min(this.#options.batchSize, free);
    let claims: Claim[];
    this.#reserved += wanted;
    try {
      claims = await this.claim(wanted);
    } finally {
      this.#reserved -= wanted;
    }
    this.#claimedFull = claims.length === wanted;
    // One read for the whole claim: the deliveries with their payloads, each subscription once; a
    // failed read leaves the claims to their leases (sent again when those expire).
    let loaded: Awaited<ReturnType<typeof loadClaimed>>;
    try {
      loaded = await loadClaimed(this.#env.db, claims);
    } catch (error) {
      this.#env.log.error({ err: error, claimed: claims.length }, "webhook deliveries claimed but not read; their leases will expire");
      return [];
    }
    return this.#startClaimed(claims, loaded);
  }

  /** Starts the claimed deliveries, each in a lane, with what was read for them. */
  #startClaimed(claims: readonly Claim[], loaded: Awaited<ReturnType<typeof loadClaimed>>): Promise<void>[] {
    this.#started += claims.length;
    // Secrets are opened once per subscription and claim, when the first of its deliveries starts.
    const secrets = new Map<string, { secret: string; previousSecret: string | null }>();
    return claims.map((claim) => {
      const sub = claim.subscriptionId;
      this.#perSubscription.set(sub, (this.#perSubscription.get(sub) ?? 0) + 1);
      const running: Promise<void> = this.deliver(claim, { row: loaded.deliveries.get(claim.deliveryId), target: loaded.targets.get(sub), secrets }).finally(() => {
        this.#inFlight.delete(running);
        const n = this.#perSubscription.get(sub)!;
        if (n > 1) this.#perSubscription.set(sub, n - 1);
        else this.#perSubscription.delete(sub);
        // Claim again only if more can be due now: lanes were the limit (a lane is free), or this
        // subscription was at its cap (it has a slot again). Otherwise nothing new is due before an
        // enqueue signal or the next poll, and an empty claim would only cost a write. When recording
        // transactions claim (#followOn), this delivery's own recording already did.
        if (!this.#followOnActive && (this.#claimedFull || this.#leftBehind || n >= this.#options.endpointConcurrency)) this.#onQueued();
      });
      this.#inFlight.add(running);
      return running;
    });
  }

  /**
   * A claim is a write (on SQLite it queues behind every other write of the process), costing about
   * as much as recording an attempt; claiming for each lane as it frees up costs much of the throughput under a
   * backlog. So wait until a quarter of the lanes are free, but never more than {@link GATHER_MS} of
   * real time: lanes held by a slow receiver delay the others' next claim by that much at most.
   */
  async #gatherLanes(): Promise<void> {
    const wanted = this.#gatherWanted();
    if (this.#options.concurrency - this.#inFlight.size >= wanted || this.#inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, GATHER_MS)));
    let expired = false;
    void timeUp.then(() => (expired = true));
    try {
      while (!expired && !this.#stopping && this.#inFlight.size > 0 && this.#options.concurrency - this.#inFlight.size < wanted) {
        await Promise.race([timeUp, ...this.#inFlight]);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Free lanes worth one claim under a backlog: a quarter of them. */
  #gatherWanted(): number {
    return Math.max(1, Math.floor(this.#options.concurrency / 4));
  }

  #lookSoonTimer: NodeJS.Timeout | null = null;
  /** Signals the loop to claim in {@link GATHER_MS} of real time, unless already due to. */
  #lookSoon(): void {
    if (this.#lookSoonTimer) return;
    this.#lookSoonTimer = setTimeout(() => {
      this.#lookSoonTimer = null;
      this.#onQueued();
    }, GATHER_MS);
  }

  #moreMayBeDue(): boolean {
    return this.#claimedFull || this.#leftBehind || [...this.#perSubscription.values()].some((n) => n >= this.#options.endpointConcurrency);
  }

  /** Until every delivery in flight has finished, including those its recordings claimed meanwhile. */
  async #settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  /** Claims once for the free lanes and waits for those deliveries; returns how many were claimed. */
  async runOnce(): Promise<number> {
    const started = await this.#fill();
    await Promise.all(started);
    return started.length;
  }

  /**
   * Delivers until nothing is due (at the clock's current time) and nothing is in flight, refilling
   * lanes as they free up; returns how many deliveries were claimed.
   */
  async drain(maxClaims = 100_000): Promise<number> {
    const startedBefore = this.#started;
    const total = () => this.#started - startedBefore;
    // As in the background loop, recording transactions claim for the lanes they free (unless the loop runs).
    const ownsFollowOn = !this.#followOnActive;
    if (ownsFollowOn) this.#setFollowOn(true);
    try {
      while (total() < maxClaims) {
        await this.#fill();
        if (this.#inFlight.size === 0) break;
        // More may be due (lanes were full, or a subscription is at its cap): claim again as soon as one
        // ends. Otherwise nothing more is due at this clock: let everything finish, then look once more.
        if (this.#moreMayBeDue()) await Promise.race(this.#inFlight);
        else await this.#settled();
      }
      await this.#settled();
    } finally {
      if (ownsFollowOn) this.#setFollowOn(false);
    }
    return total();
  }

  #setFollowOn(active: boolean): void {
    this.#followOnActive = active;
    this.#recorder.claimWith(active ? this.#followOn : null);
    if (!active && this.#lookSoonTimer) {
      clearTimeout(this.#lookSoonTimer);
      this.#lookSoonTimer = null;
    }
  }

  /**
   * Sends one claimed delivery and records the attempt under the claim's fence. `loaded` is what the
   * claim read for it (its row, its subscription); without it, it is read here.
   */
  async deliver(claim: Claim, loaded?: LoadedForDelivery): Promise<void> {
    const tracing = this.#env.telemetry.tracing;
    if (!tracing) return this.#deliver(claim, loaded, null);
    return tracing.inSpan("webhook.deliver", { "ir21.delivery.id": claim.deliveryId, "ir21.subscription.id": claim.subscriptionId }, (span) => this.#deliver(claim, loaded, span), "client");
  }

  async #deliver(claim: Claim, loaded: LoadedForDelivery | undefined, span: SpanHandle | null): Promise<void> {
    const { db, clock, log, box, policy } = this.#env;
    const { metrics } = this.#env.telemetry;
    try {
      if (!loaded) {
        const read = await loadClaimed(db, [claim]);
        loaded = { row: read.deliveries.get(claim.deliveryId), target: read.targets.get(claim.subscriptionId) };
      }
      const { row, target } = loaded;
      if (!row) return;
      const startedAt = clock.now().getTime();
      if (!target || !target.enabled || !target.secret_sealed) {
        const written = await this.#recorder.record({ kind: "cancel", claim, now: startedAt, reason: "cancelled: the subscription is disabled or deleted" });
        metrics.delivery(written ? "cancelled" : "dropped", 0);
        span?.setAttribute("ir21.delivery.outcome", written ? "cancelled" : "dropped");
        if (!written) log.warn({ delivery_id: claim.deliveryId, owner: this.owner }, "webhook delivery cancellation dropped: the lease expired or the delivery changed meanwhile");
        return;
      }
      let result: SendResult;
      try {
        // Sign afresh with the secrets valid now: the previous one only strictly before its expiry.
        // Opened once per subscription and claim (the expiry is checked per delivery).
        const previousValid = target.previous_secret_sealed !== null && target.previous_secret_expires_at !== null && startedAt < target.previous_secret_expires_at;
        let opened = loaded.secrets?.get(target.id);
        if (!opened || (previousValid && opened.previousSecret === null)) {
          opened = { secret: box.open(target.secret_sealed, target.id), previousSecret: previousValid ? box.open(target.previous_secret_sealed!, target.id) : null };
          loaded.secrets?.set(target.id, opened);
        }
        const headers = deliveryHeaders({
          eventId: row.event_id,
          timestampSeconds: Math.floor(startedAt / 1000),
          rawBody: row.payload,
          secret: opened.secret,
          previousSecret: previousValid ? opened.previousSecret : null,
        });
        result = await sendWebhook({ url: target.url, headers, body: row.payload }, { policy, limits: this.#options.limits, ca: this.#options.ca, agents: this.#agents });
      } catch (error) {
        // Never a poison pill: whatever failed (e.g. a secret sealed under a key no longer configured)
        // is recorded as a failed attempt and follows the schedule like any other failure.
        log.error({ err: error, delivery_id: claim.deliveryId }, "webhook attempt could not be made");
        result = {
          status: null,
          errorCode: "internal",
          error: "internal: the attempt could not be prepared; see the server log",
          responseExcerpt: null,
          responseHeaders: null,
          responseTruncated: false,
          retryAfter: null,
          durationMs: 0,
        };
      }
      const now = clock.now().getTime();
      const attemptsMade = row.attempts + 1;
      const ok = result.status !== null && result.status >= 200 && result.status < 300;
      const delay = ok ? null : nextRetryDelayMs({ attemptsMade, maxAttempts: row.max_attempts, status: result.status, retryAfter: result.retryAfter, nowMs: now, random: this.#options.random });
      // Settles once the batch carrying this result committed (recorder.ts).
      const written = await this.#recorder.record({
        kind: "attempt",
        claim,
        now,
        attemptNo: attemptsMade,
        attempt: {
          kind: row.manual_retry === 1 ? "manual" : "scheduled",
          attemptedAt: startedAt,
          durationMs: result.durationMs,
          responseStatus: result.status,
          error: result.error,
          responseExcerpt: result.responseExcerpt,
          responseHeaders: result.responseHeaders,
          responseTruncated: result.responseTruncated,
        },
        outcome: ok ? { status: "delivered", nextAttemptAt: null } : delay === null ? { status: "failed", nextAttemptAt: null } : { status: "pending", nextAttemptAt: now + delay },
      });
      const outcome = !written ? "dropped" : ok ? "delivered" : delay === null ? "failed" : "retrying";
      metrics.delivery(outcome, result.durationMs / 1000);
      span?.setAttribute("ir21.delivery.outcome", outcome);
      span?.setAttribute("ir21.delivery.attempt", attemptsMade);
      span?.setAttribute("ir21.event.id", row.event_id);
      if (result.status !== null) span?.setAttribute("http.response.status_code", result.status);
      if (!ok) span?.fail(new Error(result.error ?? `answered ${result.status}`));
      if (!written) log.warn({ delivery_id: claim.deliveryId, owner: this.owner }, "webhook delivery result dropped: the lease expired or the delivery changed meanwhile");
      else if (!ok) log.info({ delivery_id: claim.deliveryId, attempt: attemptsMade, status: result.status, error: result.errorCode }, "webhook attempt failed");
    } catch (error) {
      // The lease expires and another round retries; nothing is lost.
      metrics.delivery("dropped", 0);
      span?.fail(error);
      log.error({ err: error, delivery_id: claim.deliveryId }, "webhook delivery crashed");
    }
  }

  /** Starts the background loop: claims whenever a lane is free and something may be due. */
  start(): void {
    if (this.#loop) return;
    this.#stopping = false;
    this.#setFollowOn(true);
    this.#env.queued.on("queued", this.#onQueued);
    // Between claims the worker still says it is alive, so the deliveries it has on the wire keep
    // holding their subscriptions' slots however long they take.
    const beat = () => {
      const now = this.#env.clock.now().getTime();
      this.#lastBeat = heartbeat(this.#env.db, { owner: this.owner, now, aliveMs: this.#options.aliveMs }).then(
        () => {
          // Written (committed): the claims after it may skip their own beat (#beatWithClaim).
          if (!this.#stopping) this.#aliveUntil = Math.max(this.#aliveUntil, now + this.#options.aliveMs);
        },
        (error: unknown) => this.#env.log.warn({ err: error, owner: this.owner }, "webhook worker heartbeat failed"),
      );
    };
    void beat();
    this.#heartbeat = setInterval(beat, HEARTBEAT_EVERY_MS);
    this.#loop = (async () => {
      while (!this.#stopping) {
        const free = this.#options.concurrency - this.#inFlight.size;
        let claimed = 0;
        this.#signalled = false;
        try {
          claimed = (await this.#fill()).length;
        } catch (error) {
          this.#env.log.error({ err: error }, "webhook worker round failed");
        }
        // The claim got all it asked for: more is probably due. The recordings of these deliveries
        // claim for the lanes they free (#followOn), so the loop itself waits for a signal; it goes
        // round at once only while lanes are still free.
        if (free > 0 && claimed > 0 && this.#claimedFull && this.#options.concurrency - this.#inFlight.size - this.#reserved > 0) continue;
        if (this.#stopping || this.#signalled) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.#options.pollIntervalMs);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = null;
      }
      await this.#settled();
    })();
  }

  /** Stops claiming; in-flight deliveries finish and record their attempts. Clears every timer it set. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#env.queued.off("queued", this.#onQueued);
    this.#wake?.();
    await this.#loop;
    this.#loop = null;
    this.#setFollowOn(false);
    // Nothing is in flight any more: close the kept-alive connections.
    this.#agents.destroy();
    if (this.#heartbeat) {
      clearInterval(this.#heartbeat);
      this.#heartbeat = null;
      await this.#lastBeat;
      // Its deliveries have finished and recorded: it holds nothing, and says so.
      this.#aliveUntil = Number.NEGATIVE_INFINITY;
      await retireWorker(this.#env.db, this.owner).catch((error: unknown) => this.#env.log.warn({ err: error, owner: this.owner }, "webhook worker could not retire"));
    }
  }
}
