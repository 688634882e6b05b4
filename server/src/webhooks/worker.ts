import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { claimDue, cancelClaimed, completeAttempt, type Claim } from "./queue.ts";
import { nextRetryDelayMs } from "./schedule.ts";
import { DEFAULT_SEND_LIMITS, sendWebhook, type SendLimits, type SendResult } from "./sender.ts";
import { deliveryHeaders } from "./signing.ts";
import type { WebhookEnv } from "./env.ts";

export interface DeliveryWorkerOptions {
  /** Names this worker in leases and logs; unique per worker. */
  owner?: string;
  /** How long a claim is exclusive; must exceed a whole batch's worst case (checked). Default 60 s. */
  leaseMs?: number;
  /** Deliveries claimed per round. */
  batchSize?: number;
  /** Deliveries sent at once. */
  concurrency?: number;
  /** Real-time pause between polls when the queue is empty (an in-process enqueue wakes it early). */
  pollIntervalMs?: number;
  limits?: Partial<SendLimits>;
  /** Jitter source, 0 <= x < 1 (tests pin it). */
  random?: () => number;
  /** Extra CA certificates to trust (tests with a local HTTPS receiver). */
  ca?: string;
}

/**
 * Claims due deliveries and sends them (docs/webhooks.md "Delivery"). Every scheduling decision reads
 * the injected clock, so tests advance a ManualClock and call {@link runOnce} or {@link drain}; the
 * background loop ({@link start}) only decides when to look again, in real time.
 */
export class DeliveryWorker {
  readonly owner: string;
  readonly #env: WebhookEnv;
  readonly #options: Required<Omit<DeliveryWorkerOptions, "ca" | "limits" | "owner">> & Pick<DeliveryWorkerOptions, "ca" | "limits">;
  #loop: Promise<void> | null = null;
  #stopping = false;
  #wake: (() => void) | null = null;
  /** Set by an enqueue signal; a round that started before the enqueue may have missed its rows. */
  #signalled = false;
  readonly #onQueued = () => {
    this.#signalled = true;
    this.#wake?.();
  };

  constructor(env: WebhookEnv, options: DeliveryWorkerOptions = {}) {
    this.#env = env;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    const batchSize = options.batchSize ?? 20;
    const concurrency = options.concurrency ?? 8;
    // A claimed delivery may wait for earlier ones in its batch: the lease must outlast the whole batch
    // at the worst case (every attempt running into the total timeout), or another worker would take
    // it over while it is still queued here.
    const worstBatchMs = Math.ceil(batchSize / concurrency) * (options.limits?.totalTimeoutMs ?? DEFAULT_SEND_LIMITS.totalTimeoutMs);
    const leaseMs = options.leaseMs ?? Math.max(60_000, worstBatchMs + 15_000);
    if (leaseMs <= worstBatchMs) throw new Error(`leaseMs (${leaseMs}) must exceed the worst-case batch time (${worstBatchMs} ms)`);
    this.#options = {
      leaseMs,
      batchSize,
      concurrency,
      pollIntervalMs: options.pollIntervalMs ?? 1_000,
      random: options.random ?? Math.random,
      ca: options.ca,
      limits: options.limits,
    };
  }

  /** Claims one batch of due deliveries and sends them; returns how many were claimed. */
  async runOnce(): Promise<number> {
    const claims = await claimDue(this.#env.db, {
      owner: this.owner,
      now: this.#env.clock.now().getTime(),
      leaseMs: this.#options.leaseMs,
      limit: this.#options.batchSize,
    });
    let next = 0;
    const lanes = Array.from({ length: Math.min(this.#options.concurrency, claims.length) }, async () => {
      while (next < claims.length) await this.deliver(claims[next++]!);
    });
    await Promise.all(lanes);
    return claims.length;
  }

  /** Runs rounds until nothing is due (at the clock's current time). */
  async drain(maxRounds = 1_000): Promise<number> {
    let total = 0;
    for (let round = 0; round < maxRounds; round++) {
      const claimed = await this.runOnce();
      total += claimed;
      if (claimed === 0) break;
    }
    return total;
  }

  /** Sends one claimed delivery and records the attempt under the claim's fence. */
  async deliver(claim: Claim): Promise<void> {
    const { db, clock, log, box, policy } = this.#env;
    try {
      const row = await db
        .selectFrom("webhook_deliveries as d")
        .innerJoin("webhook_events as e", "e.id", "d.event_id")
        .leftJoin("webhook_subscriptions as s", "s.id", "d.subscription_id")
        .select(["d.id", "d.subscription_id", "d.attempts", "d.max_attempts", "d.manual_retry", "d.event_id", "e.payload", "s.url", "s.enabled", "s.secret_sealed", "s.previous_secret_sealed", "s.previous_secret_expires_at"])
        .where("d.id", "=", claim.deliveryId)
        .executeTakeFirst();
      if (!row) return;
      const startedAt = clock.now().getTime();
      if (!row.url || !row.enabled || !row.secret_sealed) {
        await cancelClaimed(db, claim, { now: startedAt, reason: "cancelled: the subscription is disabled or deleted" });
        return;
      }
      // Sign afresh with the secrets valid now: the previous one only strictly before its expiry.
      const previousValid = row.previous_secret_sealed !== null && row.previous_secret_expires_at !== null && startedAt < Number(row.previous_secret_expires_at);
      let result: SendResult;
      try {
        const headers = deliveryHeaders({
          eventId: row.event_id,
          timestampSeconds: Math.floor(startedAt / 1000),
          rawBody: row.payload,
          secret: box.open(row.secret_sealed, row.subscription_id),
          previousSecret: previousValid ? box.open(row.previous_secret_sealed!, row.subscription_id) : null,
        });
        result = await sendWebhook({ url: row.url, headers, body: row.payload }, { policy, limits: this.#options.limits, ca: this.#options.ca });
      } catch (error) {
        // Never a poison pill: whatever failed (e.g. a secret sealed under another SESSION_SECRET)
        // is recorded as a failed attempt and follows the schedule like any other failure.
        log.error({ err: error, delivery_id: claim.deliveryId }, "webhook attempt could not be made");
        result = { status: null, errorCode: "internal", error: "internal: the attempt could not be prepared; see the server log", responseExcerpt: null, retryAfter: null, durationMs: 0 };
      }
      const now = clock.now().getTime();
      const attemptsMade = Number(row.attempts) + 1;
      const ok = result.status !== null && result.status >= 200 && result.status < 300;
      const delay = ok ? null : nextRetryDelayMs({ attemptsMade, maxAttempts: Number(row.max_attempts), status: result.status, retryAfter: result.retryAfter, nowMs: now, random: this.#options.random });
      const written = await completeAttempt(db, claim, {
        now,
        attemptNo: attemptsMade,
        attempt: {
          kind: Number(row.manual_retry) === 1 ? "manual" : "scheduled",
          attemptedAt: startedAt,
          durationMs: result.durationMs,
          responseStatus: result.status,
          error: result.error,
          responseExcerpt: result.responseExcerpt,
        },
        outcome: ok ? { status: "delivered", nextAttemptAt: null } : delay === null ? { status: "failed", nextAttemptAt: null } : { status: "pending", nextAttemptAt: now + delay },
      });
      if (!written) log.warn({ delivery_id: claim.deliveryId, owner: this.owner }, "webhook delivery result dropped: the lease expired or the delivery changed meanwhile");
      else if (!ok) log.info({ delivery_id: claim.deliveryId, attempt: attemptsMade, status: result.status, error: result.errorCode }, "webhook attempt failed");
    } catch (error) {
      // The lease expires and another round retries; nothing is lost.
      log.error({ err: error, delivery_id: claim.deliveryId }, "webhook delivery crashed");
    }
  }

  /** Starts the background loop: a round whenever something may be due. */
  start(): void {
    if (this.#loop) return;
    this.#stopping = false;
    this.#env.queued.on("queued", this.#onQueued);
    this.#loop = (async () => {
      while (!this.#stopping) {
        let claimed = 0;
        this.#signalled = false;
        try {
          claimed = await this.runOnce();
        } catch (error) {
          this.#env.log.error({ err: error }, "webhook worker round failed");
        }
        if (claimed === 0 && !this.#stopping && !this.#signalled) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, this.#options.pollIntervalMs);
            this.#wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.#wake = null;
        }
      }
    })();
  }

  /** Stops after the current round: in-flight deliveries finish and record their attempts. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#env.queued.off("queued", this.#onQueued);
    this.#wake?.();
    await this.#loop;
    this.#loop = null;
  }
}
