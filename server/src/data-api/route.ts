import { getQuery, getRouterParams, HTTPResponse, type H3, type H3Event } from "h3";
import type { z } from "zod";
import type { AppDeps } from "../app/deps.ts";
import { cursorSealOf, listingOf } from "../cursors.ts";
import { AppError } from "../errors.ts";
import { readJsonBody } from "../http/body.ts";
import { fromIssues } from "../http/errors.ts";
import { meteredQuery } from "./metered.ts";
import { requestIdOf } from "../http/request-id.ts";
import type { Access } from "../access/access.ts";
import { createContext } from "../trpc/context.ts";
import { toIso, toIsoOrNull } from "../contract/common.ts";
import type { DatasetMeta } from "../contract/envelope.ts";
import type { PinnedVersion } from "../catalog/model/dataset-meta.ts";
import { readSeq } from "../catalog/model/queries.ts";
import { fromVersionRow } from "../catalog/model/versions.ts";
import { LookupIndexes, type LookupIndex } from "../catalog/lookup/lookup-index.ts";
import { nextTurn, type Pause } from "../catalog/lookup/number-geo.ts";
import type { Projection } from "../catalog/lookup/lookup-answers.ts";
import { findNumber } from "../catalog/lookup/lookup.ts";
import { Utf8Builder } from "../utf8-builder.ts";

/**
 * The /v1 data routes (docs/api.md). Each route is one definition: path, access, input schemas,
 * output schemas per projection, quota cost and handler. `mountDataRoutes` turns the definitions into
 * h3 handlers that do the same for every route, in this order:
 *
 * 1. validate the input (query, path, body) with zod (a batch's cost depends on it);
 * 2. through `meteredQuery` (http/metered.ts): resolve the caller (API key, session, or anonymous; a
 *    presented but invalid credential is 401) and admit the request (every attempt counts against the
 *    rate limit; 429), then settle its status after the steps below (only 2xx is charged);
 * 3. throw the input's validation error, if any (400, settled as a business failure);
 * 4. refuse anonymous callers on credentials-only routes (401);
 * 5. pin the current dataset version (503 NO_DATASET before the first import) and run the handler;
 * 6. parse the answer with the output schema of the caller's projection (public for anonymous, full
 *    otherwise): unknown fields are stripped, so a field is private until a public schema lists it;
 * 7. wrap it in the envelope with the pinned version's meta.
 *
 * A route may also answer with serialised text (`serialised`, e.g. GET /v1/lookup and its batch, whose answers are
 * spliced from fragments built once per dataset version): its direct handler runs steps 1-5 and 7
 * exactly as above and takes the `data` text, already through step 6's schema, from the route, so
 * neither the answer object nor h3's generic serialisation is made per request. `handle` stays the
 * reference the direct answers are tested against (lookup-direct.test.ts). Steps 3-5 and 7 of such a
 * route are `serialisedAnswer`, which GET /v1/lookup's lane on node's request (on-node.ts) runs too.
 *
 * The OpenAPI document is generated from the same definitions (openapi.ts).
 */

export type RouteAccess = "public" | "credentials";

export interface RouteContext<I> {
  event: H3Event;
  deps: AppDeps;
  access: Access;
  input: I;
  /** The dataset version this request reads (its seq pins every query). */
  version: PinnedVersion;
  /**
   * The version and position a list request reads: the current version, or the one its cursor was
   * pinned to (so all pages of a listing come from one version); the envelope's meta follows it.
   */
  pageAt(cursor: string | undefined): Promise<{ seq: number; after: string | null }>;
  /** The longest-prefix index of the pinned version. */
  lookupIndex(): Promise<LookupIndex>;
}

export interface JsonOutput {
  /** What an API key or session gets. */
  full: z.ZodType;
  /** What anonymous callers get; absent on credentials-only routes. */
  public?: z.ZodType;
}

export interface FileOutput {
  /** `example`: what the file looks like (the OpenAPI document carries it). */
  file: { contentTypes: string[]; description: string; example: unknown };
}

export interface DataRoute<I = any> {
  method: "GET" | "POST";
  /** h3 path, `:name` for path parameters. */
  path: `/v1/${string}`;
  summary: string;
  description: string;
  access: RouteAccess;
  /** Not metered and no dataset needed (the OpenAPI document). */
  unmetered?: boolean;
  input: { query?: z.ZodType; params?: z.ZodType; body?: z.ZodType };
  output: JsonOutput | FileOutput;
  /** Quota units a success costs (default 1). */
  cost?: (input: I) => number;
  handle(ctx: RouteContext<I>): Promise<unknown>;
  /**
   * Appends the answer's `data` to `out` as JSON, byte for byte `JSON.stringify(schema.parse(await
   * handle(ctx)))` for the caller's projection and its output `schema`: the direct handler serves it as is.
   */
  serialised?(ctx: SerialisedContext<I>, projection: Projection, schema: z.ZodType, out: Utf8Builder): Promise<void>;
}

/**
 * What `serialised` gets: no h3 event (such a route is also served on node's request, on-node.ts) and
 * no cursor (its answer is not a page).
 */
export type SerialisedContext<I> = Omit<RouteContext<I>, "event" | "pageAt">;

export interface MountOptions {
  /**
   * Serve routes that have `serialised` through it (default true). False serves every route the
   * generic way: the reference in the equivalence tests.
   */
  direct?: boolean;
}

/** Defines a route; the handler's input type comes from the schemas. */
export function defineRoute<Q extends z.ZodType = z.ZodObject<{}>, P extends z.ZodType = z.ZodObject<{}>, B extends z.ZodType = z.ZodObject<{}>>(
  route: Omit<DataRoute<z.infer<Q> & z.infer<P> & z.infer<B>>, "input"> & { input: { query?: Q; params?: P; body?: B } },
): DataRoute<z.infer<Q> & z.infer<P> & z.infer<B>> {
  return route as DataRoute;
}

const lookupIndexes = new WeakMap<AppDeps, LookupIndexes>();

function indexesOf(deps: AppDeps): LookupIndexes {
  let indexes = lookupIndexes.get(deps);
  if (!indexes) {
    indexes = new LookupIndexes(deps.db, { log: deps.log });
    lookupIndexes.set(deps, indexes);
  }
  return indexes;
}

/** The pinned version's lookup index (with the geo data of the files in use when it was built). */
const lookupIndexOf = (deps: AppDeps, seq: number): Promise<LookupIndex> => indexesOf(deps).at(seq);

/** The calling codes whose geocoding files are large (+86: 8 MB in two languages): loaded by the warm-up. */
const WARMED_CALLING_CODES = ["86"];

/**
 * Loads what the first lookup would otherwise load: the current version's index, the geocoding and
 * time-zone files of the calling codes whose files are large, and one answer in each projection. In
 * slices, with `pause` between them (the next event-loop turn by default), so that requests arriving
 * meanwhile are answered (docs/performance.md "Warm-up").
 */
export async function warmLookups(deps: AppDeps, pause: Pause = nextTurn): Promise<void> {
  const version = await deps.datasetMeta.pinned();
  if (version.seq === 0) return;
  const index = await indexesOf(deps).at(version.seq, pause);
  await index.geo.warm(WARMED_CALLING_CODES, pause);
  // One answer in each projection: compiles the output schemas (zod builds its parsers on first use)
  // and runs libphonenumber-js once on the numbers' metadata.
  for (const number of ["+8613912345678", "+861012345678"]) {
    for (const projection of ["full", "public"] as const) index.answers.json(findNumber(index, number), projection);
    await pause();
  }
}

function validate(schema: z.ZodType | undefined, value: unknown): unknown {
  if (!schema) return {};
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const { code, message } = fromIssues(parsed.error.issues as never);
  throw new AppError(code, message);
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
 * Step 1 for a route without a body or path parameters, from its parsed query (h3's `getQuery`): the
 * input, or the validation error to throw in step 3.
 */
export function queryInputOf(route: DataRoute, query: object): { input: unknown; invalid: unknown } {
  try {
    return { input: { ...(validate(route.input.query, query) as object) }, invalid: null };
  } catch (error) {
    return { input: undefined, invalid: error };
  }
}

/** Quota units a request costs when it succeeds: the route's cost of a valid input, else 1. */
export function costOf(route: DataRoute, input: unknown, invalid: unknown): number {
  return invalid === null && route.cost ? route.cost(input) : 1;
}

/**
 * Steps 4 and 3, in that order (who may ask comes before what was asked: an anonymous caller learns
 * nothing about a credentials-only route's parameters).
 */
function refuseCaller(route: DataRoute, access: Access, invalid: unknown): void {
  if (route.access === "credentials" && access.kind === "anonymous") {
    throw new AppError(
      "UNAUTHORIZED",
      `${endpointName(route)} needs an API key (X-API-Key header) or a signed-in session; anonymous callers get the public projection of meta, countries, operators, networks and lookup only`,
    );
  }
  if (invalid !== null) throw invalid;
}

/** Step 5's pin: the current dataset version, 503 NO_DATASET before the first import. */
async function pinnedVersion(deps: AppDeps): Promise<PinnedVersion> {
  const version = await deps.datasetMeta.pinned();
  if (version.seq === 0) throw new AppError("NO_DATASET");
  return version;
}

/** Step 6's projection: public for anonymous callers of a route that has one, full otherwise. */
function projectionOf(output: JsonOutput, access: Access): Projection {
  return access.kind === "anonymous" && output.public ? "public" : "full";
}

/**
 * Steps 3-5 and 7 of a route that has `serialised`, for a caller metering admitted: the answer's
 * bytes, the envelope around the `data` the route serialises. The h3 handler and node's lane
 * (on-node.ts) both answer with it.
 */
export async function serialisedAnswer(route: DataRoute, deps: AppDeps, access: Access, input: unknown, invalid: unknown, requestId: string): Promise<Buffer<ArrayBuffer>> {
  refuseCaller(route, access, invalid);
  const version = await pinnedVersion(deps);
  const output = route.output as JsonOutput;
  const projection = projectionOf(output, access);
  const schema = projection === "public" ? output.public! : output.full;
  const context = { deps, access, input, version, lookupIndex: () => lookupIndexOf(deps, version.seq) };
  return envelopeBytes((out) => route.serialised!(context, projection, schema, out), requestId, version.meta);
}

async function metaOfSeq(deps: AppDeps, seq: number): Promise<DatasetMeta> {
  const row = await deps.db.selectFrom("dataset_versions").selectAll().where("seq", "=", seq).executeTakeFirst();
  if (!row) throw new AppError("INVALID_REQUEST", "cursor: not a cursor returned by a previous page");
  const v = fromVersionRow(row);
  return { dataset_version: v.version, source_mode: v.sourceMode, source_published_at: toIsoOrNull(v.sourcePublishedAt), ingested_at: toIso(v.ingestedAt) };
}

export const endpointName = (route: Pick<DataRoute, "method" | "path">) => `${route.method} ${route.path}`;

/** `{"a":1}` → `,"a":1}`, `{}` → `}`: a version's meta serialised once, to follow the request id. */
const metaTails = new WeakMap<DatasetMeta, string>();
function metaTailOf(meta: DatasetMeta): string {
  let tail = metaTails.get(meta);
  if (tail === undefined) {
    const json = JSON.stringify(meta);
    metaTails.set(meta, (tail = json === "{}" ? "}" : `,${json.slice(1)}`));
  }
  return tail;
}

/**
 * The success envelope around the `data` a route serialises: what h3 would make of
 * `{code: 0, data, meta: {request_id, ...meta}}`, the meta's own members serialised once per version.
 */
async function envelopeBytes(data: (out: Utf8Builder) => Promise<void>, requestId: string, meta: DatasetMeta): Promise<Buffer<ArrayBuffer>> {
  const out = new Utf8Builder().text('{"code":0,"data":');
  await data(out);
  return out.text(`,"meta":{"request_id":${JSON.stringify(requestId)}${metaTailOf(meta)}}`).toBuffer();
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

/** h3's content type for a JSON answer (its jsonHeaders), so both ways answer alike. */
export const JSON_CONTENT_TYPE = "application/json;charset=UTF-8";

function handlerFor(route: DataRoute, deps: AppDeps, options: MountOptions = {}) {
  const endpoint = endpointName(route);
  const direct = options.direct !== false && route.serialised !== undefined;
  return async (event: H3Event) => {
    if (route.unmetered) {
      const context = createContext(event, deps);
      const access = await deps.access.resolve({ sessionToken: context.sessionToken, apiKey: context.apiKey });
      const version = await deps.datasetMeta.pinned();
      return route.handle({ event, deps, access, input: {}, version, pageAt: async () => ({ seq: version.seq, after: null }), lookupIndex: () => lookupIndexOf(deps, version.seq) });
    }
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
      deps,
      endpoint,
      async (access) => {
        if (direct) return new StagedHeadersBody(await serialisedAnswer(route, deps, access, input, invalid, requestIdOf(event)));
        refuseCaller(route, access, invalid);
        // Cursors are sealed for their listing and filters (cursors.ts): the handler sees only the
        // position inside, and hands out positions that are sealed here. The listing is made from the
        // filters before the cursor is opened, and only when a cursor is there to open or seal.
        const filters = input as Record<string, unknown>;
        const listing = () => listingOf(endpoint, filters);
        const cursor = (input as { cursor?: unknown }).cursor;
        if (typeof cursor === "string") input = { ...(input as object), cursor: cursorSealOf(deps.secrets).open(listing(), cursor) };
        const version = await pinnedVersion(deps);
        let reported = version.meta;
        const pageAt = async (cursor: string | undefined) => {
          const position = readSeq(version.seq, cursor);
          if (position.seq !== version.seq) reported = await metaOfSeq(deps, position.seq);
          return position;
        };
        const context = { event, deps, access, input, version, pageAt, lookupIndex: () => lookupIndexOf(deps, version.seq) };
        const output = route.output as JsonOutput;
        const projection = projectionOf(output, access);
        const answer = await route.handle(context);
        if (answer instanceof Response) return answer;
        const next = (answer as { next_cursor?: unknown } | null)?.next_cursor;
        if (typeof next === "string") (answer as { next_cursor: string }).next_cursor = cursorSealOf(deps.secrets).seal(listing(), next);
        const schema = projection === "public" ? output.public! : output.full;
        // The meta of the version actually read (a later page of a listing may read an older one).
        return { code: 0 as const, data: schema.parse(answer), meta: { request_id: requestIdOf(event), ...reported } };
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
 * Adds the /v1 routes to the app; a known path with another method answers 405 with Allow.
 * @example
 * mountDataRoutes(app, deps, DATA_ROUTES);
 */
export function mountDataRoutes(app: H3, deps: AppDeps, routes: readonly DataRoute[], options: MountOptions = {}): void {
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) {
    app.on(route.method, route.path, handlerFor(route, deps, options));
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  }
  for (const [path, methods] of methodsByPath) {
    app.all(path, () => {
      throw new AppError("METHOD_NOT_ALLOWED", `Use ${methods.join(" or ")} on this path`, { headers: { Allow: methods.join(", ") } });
    });
  }
}
