import type { z } from "zod";
import type { Access } from "../access/access.ts";
import type { Utf8Builder } from "../utf8-builder.ts";
import type { FileAnswer } from "./files.ts";
import type { PinnedVersion } from "./versions.ts";

/**
 * A /v1 data route, defined once (docs/api.md): path, access, input schemas, output schemas per
 * projection, quota cost and handler. The framework (mount.ts) runs the same steps for every route,
 * in this order:
 *
 * 1. validate the input (query, path, body) with zod (a batch's cost depends on it);
 * 2. through the metered path (metered.ts): resolve the caller (API key, session, or anonymous; a
 *    presented but invalid credential is 401) and admit the request (every attempt counts against the
 *    rate limit; 429), then settle its status after the steps below (only 2xx is charged);
 * 3. throw the input's validation error, if any (400, settled as a business failure);
 * 4. refuse anonymous callers on credentials-only routes (401);
 * 5. pin the current dataset version (503 NO_DATASET before the first import) and run the handler;
 * 6. parse the answer with the output schema of the caller's projection (public for anonymous, full
 *    otherwise): unknown fields are stripped, so a field is private until a public schema lists it;
 *    then the route's `narrow`, if any, cuts it to the fields the caller asked for (the lookups' `fields=`);
 * 7. wrap it in the envelope with the pinned version's meta (a file answer goes out bare).
 *
 * A route may also answer with serialised text (`serialised`, e.g. GET /v1/lookup and its batch, whose
 * answers are spliced from fragments built once per dataset version): steps 1-5 and 7 run exactly as
 * above and the route writes the `data` text, already through step 6's schema, so neither the answer
 * object nor h3's generic serialisation is made per request. `handle` stays the reference the
 * serialised answers are tested against (lookup-direct.test.ts). Steps 3-5 and 7 of such a route are
 * `serialisedAnswer` (answer.ts), which GET /v1/lookup's lane on node's request (lane.ts) runs too.
 *
 * `E` is what the handlers are given of the domain that defines the routes (the catalogue's database
 * and lookup indexes); the wiring hands it over when it mounts the routes.
 */
export type RouteAccess = "public" | "credentials";

/** Who gets which fields of an answer: `full` for API keys and sessions, `public` for anonymous callers. */
export type Projection = "full" | "public";

export interface RouteContext<I, E> {
  /** The defining domain's dependencies. */
  env: E;
  access: Access;
  input: I;
  /** The dataset version this request reads (its seq pins every query). */
  version: PinnedVersion;
  /**
   * The version and position a list request reads: the current version, or the one its cursor was
   * pinned to (so all pages of a listing come from one version); the envelope's meta follows it.
   */
  pageAt(cursor: string | undefined): Promise<{ seq: number; after: string | null }>;
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

export interface DataRoute<I = any, E = any> {
  method: "GET" | "POST";
  /** h3 path, `:name` for path parameters. */
  path: `/v1/${string}`;
  summary: string;
  description: string;
  access: RouteAccess;
  input: { query?: z.ZodType; params?: z.ZodType; body?: z.ZodType };
  output: JsonOutput | FileOutput;
  /** Quota units a success costs (default 1). */
  cost?: (input: I) => number;
  /**
   * Step 1 by hand for the plain queries nearly every caller sends, on node's lane (lane.ts): the raw
   * query (after `?`) read into exactly the input `input.query` gives for it, or undefined for
   * anything else (an unknown or repeated name, a `+`, an encoding it does not read, any value the
   * schema would refuse): the schema then reads the query and words its errors. A hand reading of a
   * few names costs a tenth of the schema's (docs/performance.md "Lookup, sixth pass"); the route's
   * test holds it to the schema's answers.
   */
  plainQuery?(raw: string): I | undefined;
  /**
   * Step 6's narrowing, after the schema: the answer's data cut to what the caller asked for (the
   * lookups' `fields=`, docs/api.md "Lookup fields"), or a 400 for what the projection cannot give.
   * Absent: the schema's answer is the answer. A route with `serialised` narrows there too.
   */
  narrow?(input: I, projection: Projection, data: unknown): unknown;
  /** The answer's data (through step 6's schema), or a {@link FileAnswer} for a file route. */
  handle(ctx: RouteContext<I, E>): Promise<unknown>;
  /**
   * Appends the answer's `data` to `out` as JSON, byte for byte `JSON.stringify(schema.parse(await
   * handle(ctx)))` for the caller's projection and its output `schema`: the framework serves it as is.
   * Synchronous when it has what it needs in memory (no promise on the hot path), else a promise.
   */
  serialised?(ctx: SerialisedContext<I, E>, projection: Projection, schema: z.ZodType, out: Utf8Builder): void | Promise<void>;
}

/** What `serialised` gets: no cursor (its answer is not a page). */
export type SerialisedContext<I, E> = Omit<RouteContext<I, E>, "pageAt">;

type RouteOf<E, Q extends z.ZodType, P extends z.ZodType, B extends z.ZodType> = Omit<DataRoute<z.infer<Q> & z.infer<P> & z.infer<B>, E>, "input"> & {
  input: { query?: Q; params?: P; body?: B };
};

/**
 * Defines the routes of a domain whose handlers get `E`; each handler's input type comes from the
 * route's schemas.
 * @example
 * export const defineCatalogRoute = routeDefiner<CatalogRouteEnv>();
 * export const metaRoute = defineCatalogRoute({ method: "GET", path: "/v1/meta", ... });
 */
export function routeDefiner<E>() {
  return <Q extends z.ZodType = z.ZodObject<{}>, P extends z.ZodType = z.ZodObject<{}>, B extends z.ZodType = z.ZodObject<{}>>(
    route: RouteOf<E, Q, P, B>,
  ): DataRoute<z.infer<Q> & z.infer<P> & z.infer<B>, E> => route as DataRoute<z.infer<Q> & z.infer<P> & z.infer<B>, E>;
}

export const endpointName = (route: Pick<DataRoute, "method" | "path">) => `${route.method} ${route.path}`;

export type { FileAnswer };
