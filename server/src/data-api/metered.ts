import type { H3Event } from "h3";
import type { Access, AccessResolver, Credentials } from "../access/access.ts";
import { dataCredentialsOf } from "../access/credentials.ts";
import type { Config } from "../config.ts";
import { clientIp } from "../http/client-ip.ts";
import { toContractError } from "../http/errors.ts";
import type { Admission, Metering, MeteredRequest } from "../metering/metering.ts";
import type { MeteringMetrics } from "../observability/metrics.ts";

/**
 * What metering needs of a request and its answer, whichever server layer carries it: h3's event
 * (`meteredQuery`) or node's request on the lookup's own lane (lane.ts).
 */
export interface MeteredCall {
  /** What the request presents (access/credentials.ts): an API key wins over the session cookie. */
  credentials: Credentials;
  /**
   * The client's address (client-ip.ts), read only for an anonymous caller (a key or a session is
   * rate-limited by itself): a getter where finding it costs something.
   */
  readonly ip: string | null;
  /** Puts the RateLimit fields on the answer a successful query gets. */
  stage(headers: Record<string, string>): void;
  /** Puts them on the error answer, when the query or its settlement fails after admission. */
  stageForError(headers: Record<string, string>): void;
}

/**
 * Runs one /v1 data query under the caller's access, rate limit and quota: resolves the API key or
 * session (401 for bad credentials), admits the request (429 RATE_LIMITED / QUOTA_EXCEEDED), stages
 * the RateLimit headers (for the success and for an error answer alike), runs the query, and settles
 * its status (2xx charged, anything else a business failure). An export or snapshot is one query
 * (`cost` 1).
 *
 * Not async: when every step answers at once (a cached API key, a fresh account, a rate limit counted
 * in memory, a query made in memory, the settlement) the result comes back as it is and an error is
 * thrown; a step that has to wait makes the rest a promise. Each `await` is a promise and a
 * microtask, and they were a tenth of a small lookup's CPU (docs/performance.md "Lookup, sixth pass"
 * and "seventh pass"). Callers `await` the result inside their `try`, which catches both.
 */
export function meter<T>(
  call: MeteredCall,
  deps: { access: AccessResolver; metering: Metering; metrics?: MeteringMetrics },
  endpoint: string,
  run: (access: Access) => T | Promise<T>,
  options: { cost?: number } = {},
): T | Promise<T> {
  return new MeteredRun(call, deps, endpoint, run, options.cost).start();
}

/** One metered query's steps, as methods rather than closures made per request. */
class MeteredRun<T> {
  #request: MeteredRequest | null = null;
  #headers: Record<string, string> = {};

  constructor(
    private readonly call: MeteredCall,
    private readonly deps: { access: AccessResolver; metering: Metering; metrics?: MeteringMetrics },
    private readonly endpoint: string,
    private readonly run: (access: Access) => T | Promise<T>,
    private readonly cost: number | undefined,
  ) {}

  start(): T | Promise<T> {
    let access: Access | Promise<Access>;
    try {
      access = this.deps.access.resolve(this.call.credentials);
    } catch (error) {
      return this.refused(error);
    }
    return access instanceof Promise ? access.then((resolved) => this.admit(resolved), (error: unknown) => this.refused(error)) : this.admit(access);
  }

  /** Refused before it ran: bad credentials, the rate limit, the quota (docs/operations.md "Metrics and traces"). */
  refused(error: unknown): never {
    this.deps.metrics?.meteringRefusal(this.endpoint, toContractError(error).code);
    throw error;
  }

  admit(access: Access): T | Promise<T> {
    const request: MeteredRequest = { access, ip: access.kind === "anonymous" ? this.call.ip : null, endpoint: this.endpoint, cost: this.cost };
    this.#request = request;
    let admission: Admission | Promise<Admission>;
    try {
      admission = this.deps.metering.admit(request);
    } catch (error) {
      return this.refused(error);
    }
    return admission instanceof Promise
      ? admission.then((admitted) => this.runAdmitted(admitted.headers), (error: unknown) => this.refused(error))
      : this.runAdmitted(admission.headers);
  }

  runAdmitted(headers: Record<string, string>): T | Promise<T> {
    // On the answer whatever it turns out to be: a query that fails after admission still counted.
    // A success carries them from here; an error answer only when the query fails, so error answers'
    // headers are not staged on every request.
    this.#headers = headers;
    this.call.stage(headers);
    let result: T | Promise<T>;
    try {
      result = this.run(this.#request!.access);
    } catch (error) {
      return this.failed(error);
    }
    return result instanceof Promise ? result.then((value) => this.settle(value), (error: unknown) => this.failed(error)) : this.settle(result);
  }

  failed(error: unknown): never | Promise<never> {
    this.call.stageForError(this.#headers);
    this.deps.metrics?.meteredQuery(this.endpoint, "failed");
    const settled = this.deps.metering.settle(this.#request!, toContractError(error).status);
    if (settled instanceof Promise) {
      return settled.then(() => {
        throw error;
      });
    }
    throw error;
  }

  settle(result: T): T | Promise<T> {
    const status = result instanceof Response ? result.status : 200;
    this.deps.metrics?.meteredQuery(this.endpoint, status < 300 ? "charged" : "failed");
    let settled: void | Promise<void>;
    try {
      settled = this.deps.metering.settle(this.#request!, status);
    } catch (error) {
      this.call.stageForError(this.#headers);
      throw error;
    }
    if (settled instanceof Promise) {
      return settled.then(
        () => result,
        (error: unknown) => {
          this.call.stageForError(this.#headers);
          throw error;
        },
      );
    }
    return result;
  }
}

/**
 * {@link meter} for a request h3 carries: the headers go on the event (a success) and on its
 * `errHeaders` (what errorResponse puts on an error answer).
 * @example
 * app.get("/v1/lookup", (event) => meteredQuery(event, deps, "GET /v1/lookup", (access) => lookup(access, event)));
 */
export function meteredQuery<T>(
  event: H3Event,
  deps: { access: AccessResolver; metering: Metering; metrics?: MeteringMetrics; config: Pick<Config, "secureCookies" | "trustProxy"> },
  endpoint: string,
  run: (access: Access) => T | Promise<T>,
  options: { cost?: number } = {},
): T | Promise<T> {
  const call: MeteredCall = {
    credentials: dataCredentialsOf(event, deps.config),
    get ip() {
      return clientIp(event, deps.config);
    },
    stage: (headers) => {
      for (const name in headers) event.res.headers.set(name, headers[name]!);
    },
    stageForError: (headers) => {
      for (const name in headers) event.res.errHeaders.set(name, headers[name]!);
    },
  };
  return meter(call, deps, endpoint, run, options);
}
