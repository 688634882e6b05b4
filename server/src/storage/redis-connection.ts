import { Cluster, ReplyError, type ClusterOptions, type Command, type Redis, type RedisOptions } from "ioredis";
import type { RedisCircuit } from "./redis-circuit.ts";
import type { Tracing } from "../observability/tracing.ts";
import type { RedisOutageLog } from "./redis-outage-log.ts";

/** How long the server waits for Redis, and how long it stops trying after a failure (README "Configuration"). */
export interface RedisLimits {
  /** REDIS_COMMAND_TIMEOUT_MS: a command not answered within this fails (and counts against the circuit). */
  commandTimeoutMs: number;
  /** REDIS_CIRCUIT_OPEN_MS: after Redis failed, commands are not tried for this long; then one probes. */
  circuitOpenMs: number;
}

export const DEFAULT_REDIS_LIMITS: RedisLimits = { commandTimeoutMs: 500, circuitOpenMs: 1000 };

/** A command the circuit turned away: Redis failed recently and was not tried. */
export class RedisUnavailableError extends Error {
  constructor() {
    super("Redis is unavailable (it failed recently); not tried");
    this.name = "RedisUnavailableError";
  }
}

/** How long a start waits for Redis before it goes on without it (a connect timeout and a ready check). */
export const CONNECT_WAIT_MS = 5_000;

/** Reconnect after 100, 200, … ms, then every second, for as long as it takes (never give up). */
const reconnectDelay = (attempt: number) => Math.min(attempt * 100, 1000);

/**
 * Connection options under which no command waits on an absent Redis:
 * - `enableOfflineQueue: false`: a command while disconnected fails at once instead of waiting in a
 *   queue for a reconnect that may be seconds away (what made requests take seconds before);
 * - `commandTimeout`: a command sent on a connection that has stopped answering (a hung or unreachable
 *   Redis) fails after this;
 * - `maxRetriesPerRequest: 0`: commands in flight when the connection drops fail when it drops,
 *   rather than being replayed after a reconnect their callers no longer wait for;
 * - a bounded connect timeout, and reconnects that never stop (at most a second apart), so the client
 *   finds Redis again by itself.
 */
export function boundedRedisOptions(limits: RedisLimits): RedisOptions {
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    commandTimeout: limits.commandTimeoutMs,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    retryStrategy: reconnectDelay,
    // Every /v1 request runs a rate-limit script: the commands of one event-loop turn go out in one
    // write and come back in one read (50 requests in flight: ~25 µs less Redis wait per request,
    // tests/bench lookup). ioredis never pipelines (p)subscribe, which the invalidation bus's duplicate
    // connection uses. The Cluster client pipelines per node.
    enableAutoPipelining: true,
  };
}

/** The Cluster client's counterpart of {@link boundedRedisOptions} (its nodes' connections get those). */
export function boundedClusterOptions(limits: RedisLimits): ClusterOptions {
  const { enableAutoPipelining, lazyConnect, ...node } = boundedRedisOptions(limits);
  return {
    lazyConnect,
    enableAutoPipelining,
    enableOfflineQueue: false,
    // A failover moves a slot's master: ioredis follows MOVED/ASK, re-reads the slot map and retries a
    // command meanwhile, within the command's timeout (docs/operations.md "Redis Cluster").
    slotsRefreshTimeout: 1_000,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    clusterRetryStrategy: reconnectDelay,
    redisOptions: node,
  };
}

/**
 * Whether an error means Redis is not there (as opposed to Redis answering with an error, which it
 * only does when it is there): everything but a reply, and the replies of a Redis that cannot serve.
 */
export function meansUnavailable(error: unknown): boolean {
  if (error instanceof ReplyError) return /^(LOADING|CLUSTERDOWN|MASTERDOWN|TRYAGAIN|BUSY)\b/.test((error as Error).message);
  return true;
}

type SendCommand = (command: Command, ...rest: unknown[]) => unknown;

/**
 * Puts the circuit in front of every command of `client`: ioredis sends each one (direct, scripted,
 * auto-pipelined, a Cluster's) through `sendCommand`, so gating it there covers every caller, the
 * rate limiter's library included, without wrapping any of them. A command the circuit refuses fails
 * at once with {@link RedisUnavailableError} and is never written. The connection's own handshake
 * (AUTH, CLIENT SETNAME, the INFO or CLUSTER INFO ready check, sent while its status is `connect`)
 * always passes: it is how the client finds Redis again.
 */
export function gateCommands(client: Redis | Cluster, circuit: RedisCircuit, tracing: Tracing | null = null): void {
  const send = client.sendCommand.bind(client) as SendCommand;
  const gated: SendCommand = (command, ...rest) => {
    if (client.status === "connect") return send(command, ...rest);
    const admission = circuit.admit();
    if (admission === null) {
      command.reject(new RedisUnavailableError());
      return command.promise;
    }
    // One span per command sent, ended by its answer (docs/operations.md "Metrics and traces").
    const span = tracing?.leafSpan(command.name.toUpperCase(), { "db.system.name": "redis", "db.operation.name": command.name.toUpperCase() }, "client");
    command.promise.then(
      () => {
        span?.end();
        circuit.succeeded(admission);
      },
      (error: unknown) => {
        if (span) {
          span.fail(error);
          span.end();
        }
        if (meansUnavailable(error)) circuit.failed(admission, error);
        else circuit.succeeded(admission);
      },
    );
    return send(command, ...rest);
  };
  client.sendCommand = gated as typeof client.sendCommand;
}

/**
 * Wires a connection's events: its errors to the outage log (so ioredis prints nothing itself), and
 * for the command connection, its closing and becoming ready again to the circuit. On ready, a PING
 * probes at once, so the circuit closes without waiting for traffic to try.
 */
export function watchConnection(client: Redis | Cluster, role: string, outages: RedisOutageLog, circuit: RedisCircuit | null): void {
  client.on("error", (error: unknown) => outages.error(role, error));
  if (client instanceof Cluster) client.on("node error", (error: unknown, address: string) => outages.error(`${role} ${address}`, error));
  if (!circuit) return;
  client.on("close", () => circuit.connectionLost("connection closed"));
  client.on("ready", () => {
    if (circuit.state === "closed") return;
    circuit.connectionReady();
    client.ping().catch(() => undefined); // the probe; a failure reopens the circuit
  });
}

/**
 * Connects `client` and waits until it is ready, or has failed once, or `withinMs` has passed, which
 * ever comes first; never throws. Not `await client.connect()` alone: a Cluster whose first ready
 * check fails (a command timeout on a busy machine) reconnects without ever settling that promise.
 * Either way the client goes on connecting by itself.
 */
export async function connectWithin(client: Redis | Cluster, withinMs: number): Promise<void> {
  let done!: () => void;
  const settled = new Promise<void>((resolve) => (done = resolve));
  const timer = setTimeout(done, withinMs);
  timer.unref();
  client.once("ready", done);
  client.once("close", done);
  client.connect().then(done, done);
  await settled;
  clearTimeout(timer);
  client.off("ready", done);
  client.off("close", done);
}
