import { getQuery, getRouterParams, HTTPResponse, type H3, type H3Event } from "h3";
import { listingOf } from "../cursors.ts";
import { AppError } from "../errors.ts";
import { readJsonBody } from "../http/body.ts";
import { requestIdOf } from "../http/request-id.ts";
import { costOf, JSON_CONTENT_TYPE, pinnedVersion, projectionOf, refuseCaller, serialisedAnswer, validate, type DataApi } from "./answer.ts";
import { fileResponse, isFileAnswer } from "./files.ts";
import { meteredQuery } from "./metered.ts";
import { endpointName, type DataRoute, type JsonOutput } from "./route.ts";
import { readPosition } from "./versions.ts";

export interface MountOptions {
  /**
   * Serve routes that have `serialised` through it (default true). False serves every route the
   * generic way: the reference in the equivalence tests.
   */
  direct?: boolean;
}

/** The query and path parameters of a request, validated. */
function readQueryAndParams(route: DataRoute, event: H3Event): { query: object; params: object } {
  return { query: validate(route.input.query, getQuery(event)) as object, params: validate(route.input.params, getRouterParams(event, { decode: true })) as object };
}

/** The input of a route with a body: query, body and path parameters, validated. */
async function readInputWithBody(route: DataRoute, event: H3Event): Promise<unknown> {
  const { query, params } = readQueryAndParams(route, event);
  const raw = await readJsonBody(event);
  if (raw === undefined) throw new AppError("INVALID_REQUEST", "A JSON body is required");
  return { ...query, ...(validate(route.input.body, raw) as object), ...params };
}

/** The input of a route without a body, read without a promise (the hot GET routes). */
function readInputWithoutBody(route: DataRoute, event: H3Event): unknown {
  const { query, params } = readQueryAndParams(route, event);
  return { ...query, ...params };
}

/**
 * A JSON body h3 sends as it is, with the headers staged on the event. h3 answers an HTTPResponse
 * with its own headers merged with the event's into a new Headers object, and a bare Uint8Array with
 * a new one for its length (srvx sets the length from the buffer anyway); this one has none. The
 * direct-answer tests compare its headers and bytes with the generic pipeline's.
 */
class StagedHeadersBody extends HTTPResponse {
  override get headers(): Headers {
    return undefined as unknown as Headers;
  }
}

function handlerFor<E>(route: DataRoute<any, E>, api: DataApi<E>, options: MountOptions = {}) {
  const endpoint = endpointName(route);
  const direct = options.direct !== false && route.serialised !== undefined;
  return async (event: H3Event) => {
    // Input first, for the cost of a batch; a bad input is still an attempt (rate limit) and is
    // thrown inside the metered part, so it settles as a business failure.
    let input: unknown;
    let invalid: unknown = null;
    try {
      input = route.input.body ? await readInputWithBody(route, event) : readInputWithoutBody(route, event);
    } catch (error) {
      invalid = error;
    }
    const cost = costOf(route, input, invalid);
    const result = await meteredQuery(
      event,
      api,
      endpoint,
      async (access) => {
        if (direct) return new StagedHeadersBody(await serialisedAnswer(route, api, access, input, invalid, requestIdOf(event)));
        refuseCaller(route, access, invalid);
        // Cursors are sealed for their listing and filters (cursors.ts): the handler sees only the
        // position inside, and hands out positions that are sealed here. The listing is made from the
        // filters before the cursor is opened, and only when a cursor is there to open or seal.
        const filters = input as Record<string, unknown>;
        const listing = () => listingOf(endpoint, filters);
        const cursor = (input as { cursor?: unknown }).cursor;
        if (typeof cursor === "string") input = { ...(input as object), cursor: api.cursors.open(listing(), cursor) };
        const version = await pinnedVersion(api.versions);
        let reported = version.meta;
        const pageAt = async (cursor: string | undefined) => {
          const position = readPosition(version.seq, cursor);
          if (position.seq !== version.seq) {
            const meta = await api.versions.metaOf(position.seq);
            if (!meta) throw new AppError("INVALID_REQUEST", "cursor: not a cursor returned by a previous page");
            reported = meta;
          }
          return position;
        };
        const answer = await route.handle({ env: api.env, access, input, version, pageAt });
        if (isFileAnswer(answer)) return fileResponse(event, answer, requestIdOf(event));
        const output = route.output as JsonOutput;
        const projection = projectionOf(output, access);
        const next = (answer as { next_cursor?: unknown } | null)?.next_cursor;
        if (typeof next === "string") (answer as { next_cursor: string }).next_cursor = api.cursors.seal(listing(), next);
        const schema = projection === "public" ? output.public! : output.full;
        // The meta of the version actually read (a later page of a listing may read an older one).
        const data = route.narrow ? route.narrow(input, projection, schema.parse(answer)) : schema.parse(answer);
        return { code: 0 as const, data, meta: { request_id: requestIdOf(event), ...reported } };
      },
      { cost },
    );
    if (result instanceof Response) {
      // A file response is returned as is: give it the RateLimit headers meteredQuery set on the event.
      for (const [name, value] of event.res.headers) if (name.toLowerCase().startsWith("ratelimit")) result.headers.set(name, value);
      return result;
    }
    event.res.headers.set("cache-control", "no-store");
    if (result instanceof StagedHeadersBody) event.res.headers.set("content-type", JSON_CONTENT_TYPE);
    return result;
  };
}

/**
 * Adds a domain's /v1 routes to the app; a known path with another method answers 405 with Allow.
 * @example
 * mountDataRoutes(app, DATA_ROUTES, catalogApi);
 */
export function mountDataRoutes<E>(app: H3, routes: readonly DataRoute<any, E>[], api: DataApi<E>, options: MountOptions = {}): void {
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) {
    app.on(route.method, route.path, handlerFor(route, api, options));
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  }
  for (const [path, methods] of methodsByPath) {
    app.all(path, () => {
      throw new AppError("METHOD_NOT_ALLOWED", `Use ${methods.join(" or ")} on this path`, { headers: { Allow: methods.join(", ") } });
    });
  }
}
