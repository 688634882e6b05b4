import type { IncomingMessage, ServerResponse } from "node:http";
import { getQuery, type H3Event } from "h3";
import { apiKeyOf } from "../access/credentials.ts";
import { clientIpOf } from "../http/client-ip.ts";
import { endOfTurn } from "../http/end-of-turn.ts";
import { errorAnswer, logIfUnexpected, toContractError } from "../http/errors.ts";
import { meter, type MeteredCall } from "./metered.ts";
import { inboundRequestId } from "../http/request-id.ts";
import { newId } from "../ids.ts";
import { requestFacts } from "../observability/requests.ts";
import { VERSION_LABEL } from "../version.ts";
import { costOf, JSON_CONTENT_TYPE, queryInputOf, serialisedAnswer, type DataApi } from "./answer.ts";
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
  const logRequests = api.log.isLevelEnabled("info");

  async function answer(req: IncomingMessage, res: ServerResponse, query: string, apiKey: string | null): Promise<void> {
    const started = logRequests ? performance.now() : 0;
    const requestId = inboundRequestId((name) => req.headers[name] as string | undefined) ?? newId("req");
    // Observed (metrics, traces): the route and the request id, for the wrapper (observability/requests.ts).
    const facts = requestFacts(req);
    if (facts) {
      facts.route = path;
      facts.requestId = requestId;
    }
    let rateLimit: Record<string, string> = {};
    const call: MeteredCall = {
      // A request with a session cookie and no API key is not taken (below).
      credentials: { apiKey, sessionToken: null },
      ip: clientIpOf(req.headers["x-forwarded-for"] as string | undefined, req.socket.remoteAddress, api.config),
      stage: (headers) => (rateLimit = headers),
      stageForError: (headers) => (rateLimit = headers),
    };
    let status = 200;
    let head: string[];
    let body: Buffer | string;
    try {
      // Step 1 before metering, as the app does it: a bad input is still an attempt. A plain query is
      // read by hand (the route's `plainQuery`), anything else by the schema over h3's own parser.
      const plain = route.plainQuery?.(query);
      const { input, invalid } = plain !== undefined ? { input: plain, invalid: null } : queryInputOf(route, getQuery({ url: { search: `?${query}` } } as H3Event));
      body = await meter(call, api, endpoint, (access) => serialisedAnswer(route, api, access, input, invalid, requestId), { cost: costOf(route, input, invalid) });
      head = ["x-request-id", requestId, "x-ir21-version", VERSION_LABEL, "cache-control", "no-store", "content-type", JSON_CONTENT_TYPE];
    } catch (error) {
      const contract = toContractError(error);
      logIfUnexpected(api.log, error, contract, { request_id: requestId });
      const refusal = errorAnswer(contract, requestId);
      status = refusal.status;
      body = refusal.body;
      head = Object.entries(refusal.headers).flat();
    }
    for (const name in rateLimit) head.push(lowerCaseName(name), rateLimit[name]!);
    head.push("content-length", String(Buffer.byteLength(body)));
    // Released with the app's answers of this turn (http/end-of-turn.ts).
    await endOfTurn();
    // node's reason phrase, as the app's answers get it (http/status-line.ts).
    res.writeHead(status, head);
    res.end(body);
    if (logRequests) api.log.info({ request_id: requestId, method: "GET", path, status, ms: Math.round((performance.now() - started) * 10) / 10 }, "request");
  }

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
    answer(req, res, query, apiKey).catch((err: unknown) => {
      // Only writing the answer can get here (every step's error is an error answer above).
      api.log.error({ err }, "answering on node failed");
      res.destroy();
    });
    return true;
  };
}
