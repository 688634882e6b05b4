import type { IncomingMessage, ServerResponse } from "node:http";
import { getQuery, type H3Event } from "h3";
import { apiKeyOf } from "../access/credentials.ts";
import { clientIpOf } from "../http/client-ip.ts";
import { atEndOfTurn } from "../http/end-of-turn.ts";
import { errorAnswer, logIfUnexpected, toContractError } from "../http/errors.ts";
import { meter, type MeteredCall } from "./metered.ts";
import { inboundRequestId } from "../http/request-id.ts";
import { newId } from "../ids.ts";
import { requestFacts } from "../observability/requests.ts";
import { VERSION_LABEL } from "../version.ts";
import { costOf, JSON_CONTENT_TYPE, queryInputOf, serialisedAnswer, type AnswerBody, type DataApi } from "./answer.ts";
import { endpointName, type DataRoute } from "./route.ts";

/** Header names as the app writes them (lower case), each lowered once rather than per answer. */
const lowerCaseNames = new Map<string, string>();
function lowerCaseName(name: string): string {
  let lower = lowerCaseNames.get(name);
  if (lower === undefined) lowerCaseNames.set(name, (lower = name.toLowerCase()));
  return lower;
}

/** Serves a request and says true, or leaves it untouched and says false (the app then serves it). */
export type NodeLane = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Characters the URL parser leaves as they are in a query: for a query of only these, the raw
 * request target's query is what h3 would read from `event.url.search`. Anything else (spaces,
 * quotes, bytes above ASCII) goes the app's way rather than risk reading a query differently.
 */
const PLAIN_QUERY = /^[\w.~%+=&()*!,;:@/$?-]*$/;

/**
 * A GET data route that has `serialised` (GET /v1/lookup), served straight on node's request, ahead
 * of srvx and h3. Per request, srvx's web Request, h3's event, their header objects, the router and
 * the response conversion cost about an eighth of a lookup's CPU (docs/performance.md "Lookup, fifth
 * pass: the lookup's own lane"); this lane runs the same steps of mount.ts on the request as node gives it:
 * the same input schema (h3's own query parser; a plain query read by the route's `plainQuery`, held
 * to the schema's answers), `meter` (credential, rate limit, quota, settle),
 * `serialisedAnswer` (caller check, version pin, projection, envelope), the contract's error answer,
 * the request id, the version header, the answer released at the end of the turn and the access log.
 *
 * It takes only what it answers exactly as the app does: a GET to the route's path itself with a
 * plain query, no body, and an API key or no credential. Everything else (HEAD, a body, a session
 * cookie, an unusual query) it leaves to the app, before doing anything. The test `lane.test.ts`
 * sends the same requests both ways over HTTP and compares every status, header and byte.
 * @example
 * const lane = serveOnNode(lookupRoute, catalogApi);
 * createServer((req, res) => lane(req, res) || app(req, res));
 */
export function serveOnNode<E>(route: DataRoute<any, E>, api: DataApi<E>): NodeLane {
  if (route.method !== "GET" || !route.serialised || route.input.body || route.input.params || route.path.includes(":")) {
    throw new Error(`${endpointName(route)}: only a GET route with serialised answers and no path parameters can be served on node`);
  }
  const path = route.path;
  const endpoint = endpointName(route);

  const lane: Lane<E> = { route, api, path, endpoint, logRequests: api.log.isLevelEnabled("info") };
  return (req, res) => {
    const url = req.url!;
    if (req.method !== "GET" || !url.startsWith(path)) return false;
    const query = url.length === path.length ? "" : url[path.length] === "?" ? url.slice(path.length + 1) : null;
    if (query === null || !PLAIN_QUERY.test(query)) return false;
    const headers = req.headers;
    // A body is the app's to limit and drain (http/connections.ts).
    if (headers["content-length"] !== undefined || headers["transfer-encoding"] !== undefined) return false;
    const apiKey = apiKeyOf(headers);
    // A session is the app's: the cookie is read with h3's parser.
    if (apiKey === null && headers.cookie !== undefined) return false;
    try {
      new LaneAnswer(lane, req, res, apiKey).answer(query);
    } catch (err) {
      // Only making the answer's head can get here (every step's error is an error answer): the
      // connection ends, never the process.
      failedToAnswer(lane, res, err);
    }
    return true;
  };
}

/** An answer that could not be made or written: logged, and its connection ended (not the process). */
function failedToAnswer(lane: Lane<unknown>, res: ServerResponse, err: unknown): void {
  lane.api.log.error({ err }, "answering on node failed");
  res.destroy();
}

/** What every answer of one lane shares. */
interface Lane<E> {
  route: DataRoute<any, E>;
  api: DataApi<E>;
  path: string;
  endpoint: string;
  logRequests: boolean;
}

/**
 * One request's answer on the lane, and what metering needs of it ({@link MeteredCall}). Not async: a
 * query answered at once (every step in memory) is written at the end of the turn without a promise;
 * one that waits is written when it is done. Its steps are methods rather than closures made per
 * request (docs/performance.md "Lookup, seventh pass").
 */
class LaneAnswer<E> implements MeteredCall {
  readonly credentials: MeteredCall["credentials"];
  readonly #requestId: string;
  readonly #started: number;
  /** The RateLimit fields metering staged, for the answer whatever it is. */
  #rateLimit: Record<string, string> | null = null;
  #status = 200;
  #head: string[] = [];
  #body: AnswerBody = "";

  constructor(
    private readonly lane: Lane<E>,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    apiKey: string | null,
  ) {
    this.#started = lane.logRequests ? performance.now() : 0;
    this.#requestId = inboundRequestId((name) => req.headers[name] as string | undefined) ?? newId("req");
    // A request with a session cookie and no API key is not taken (serveOnNode).
    this.credentials = { apiKey, sessionToken: null, connection: req.socket };
    // Observed (metrics, traces): the route and the request id, for the wrapper (observability/requests.ts).
    const facts = requestFacts(req);
    if (facts) {
      facts.route = lane.path;
      facts.requestId = this.#requestId;
    }
  }

  /** Read by metering for an anonymous caller only (MeteredCall.ip). */
  get ip(): string | null {
    return clientIpOf(this.req.headers["x-forwarded-for"] as string | undefined, this.req.socket.remoteAddress, this.lane.api.config);
  }

  stage(headers: Record<string, string>): void {
    this.#rateLimit = headers;
  }

  stageForError(headers: Record<string, string>): void {
    this.#rateLimit = headers;
  }

  answer(query: string): void {
    const { route, api, endpoint } = this.lane;
    const requestId = this.#requestId;
    let body: AnswerBody | Promise<AnswerBody>;
    try {
      // Step 1 before metering, as the app does it: a bad input is still an attempt. A plain query is
      // read by hand (the route's `plainQuery`), anything else by the schema over h3's own parser.
      const plain = route.plainQuery?.(query);
      const { input, invalid } = plain !== undefined ? { input: plain, invalid: null } : queryInputOf(route, getQuery({ url: { search: `?${query}` } } as H3Event));
      body = meter(this, api, endpoint, (access) => serialisedAnswer(route, api, access, input, invalid, requestId), { cost: costOf(route, input, invalid) });
    } catch (error) {
      this.fail(error);
      return;
    }
    if (body instanceof Promise) {
      body
        .then(
          (made) => this.succeed(made),
          (error: unknown) => this.fail(error),
        )
        .catch((err: unknown) => failedToAnswer(this.lane, this.res, err));
    } else this.succeed(body);
  }

  succeed(body: AnswerBody): void {
    this.send(200, ["x-request-id", this.#requestId, "x-ir21-version", VERSION_LABEL, "cache-control", "no-store", "content-type", JSON_CONTENT_TYPE], body);
  }

  fail(error: unknown): void {
    const contract = toContractError(error);
    logIfUnexpected(this.lane.api.log, error, contract, { request_id: this.#requestId });
    const refusal = errorAnswer(contract, this.#requestId);
    this.send(refusal.status, Object.entries(refusal.headers).flat(), refusal.body);
  }

  /**
   * A string body (a small answer, an error) leaves in one chunk with its head: node joins the two
   * strings. Bytes go as a chunk of their own (docs/performance.md "Lookup, eighth pass").
   */
  send(status: number, head: string[], body: AnswerBody): void {
    const rateLimit = this.#rateLimit;
    if (rateLimit !== null) for (const name in rateLimit) head.push(lowerCaseName(name), rateLimit[name]!);
    head.push("content-length", String(Buffer.byteLength(body)));
    this.#status = status;
    this.#head = head;
    this.#body = body;
    // Released with the app's answers of this turn (http/end-of-turn.ts).
    atEndOfTurn(this);
  }

  /** Writes the answer (the end of the turn). */
  release(): void {
    const { res } = this;
    try {
      // node's reason phrase, as the app's answers get it (http/status-line.ts).
      res.writeHead(this.#status, this.#head);
      res.end(this.#body);
    } catch (err) {
      failedToAnswer(this.lane, res, err);
      return;
    }
    if (this.lane.logRequests) {
      const ms = Math.round((performance.now() - this.#started) * 10) / 10;
      this.lane.api.log.info({ request_id: this.#requestId, method: "GET", path: this.lane.path, status: this.#status, ms }, "request");
    }
  }
}
