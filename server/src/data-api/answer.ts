import type { z } from "zod";
import type { Access, AccessResolver } from "../access/access.ts";
import type { Config } from "../config.ts";
import type { DatasetMeta } from "../contract/envelope.ts";
import type { CursorSeal } from "../cursors.ts";
import { AppError } from "../errors.ts";
import { fromIssues } from "../http/errors.ts";
import type { Logger } from "../log.ts";
import type { Metering } from "../metering/metering.ts";
import { Utf8Builder } from "../utf8-builder.ts";
import { endpointName, type DataRoute, type JsonOutput, type Projection } from "./route.ts";
import type { DatasetVersions, PinnedVersion } from "./versions.ts";
import type { MeteringMetrics } from "../observability/metrics.ts";

/**
 * What the data API needs to answer a domain's routes, built once by the wiring (app/deps.ts): the
 * domain's own dependencies for its handlers, the versions answers are pinned to, who is calling and
 * what it costs, the page cursors' seal.
 */
export interface DataApi<E> {
  env: E;
  versions: DatasetVersions;
  access: AccessResolver;
  metering: Metering;
  cursors: CursorSeal;
  config: Pick<Config, "secureCookies" | "trustProxy">;
  log: Logger;
  /** Admitted queries and refusals counted (METRICS_PORT); absent or a no-op when off. */
  metrics?: MeteringMetrics;
}

/** h3's content type for a JSON answer (its jsonHeaders), so the serialised answers and the generic ones answer alike. */
export const JSON_CONTENT_TYPE = "application/json;charset=UTF-8";

/** Step 1's schema check: the parsed value, or a 400 naming what does not conform. */
export function validate(schema: z.ZodType | undefined, value: unknown): unknown {
  if (!schema) return {};
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const { code, message } = fromIssues(parsed.error.issues as never);
  throw new AppError(code, message);
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
export function refuseCaller(route: DataRoute, access: Access, invalid: unknown): void {
  if (route.access === "credentials" && access.kind === "anonymous") {
    throw new AppError(
      "UNAUTHORIZED",
      `${endpointName(route)} needs an API key (X-API-Key header) or a signed-in session; anonymous callers get the public projection of meta, countries, operators, networks and lookup only`,
    );
  }
  if (invalid !== null) throw invalid;
}

/**
 * Step 5's pin: the current dataset version, 503 NO_DATASET before the first import. The cached
 * version comes back as it is, without a promise (see {@link serialisedAnswer}).
 */
export function pinnedVersion(versions: DatasetVersions): PinnedVersion | Promise<PinnedVersion> {
  const version = versions.pinned();
  return version instanceof Promise ? version.then(datasetPresent) : datasetPresent(version);
}

function datasetPresent(version: PinnedVersion): PinnedVersion {
  if (version.seq === 0) throw new AppError("NO_DATASET");
  return version;
}

/** Step 6's projection: public for anonymous callers of a route that has one, full otherwise. */
export function projectionOf(output: JsonOutput, access: Access): Projection {
  return access.kind === "anonymous" && output.public ? "public" : "full";
}

/** A serialised answer's body: text when it is small, bytes otherwise (utf8-builder.ts `toAnswer`). */
export type AnswerBody = string | Buffer<ArrayBuffer>;

/**
 * Steps 3-5 and 7 of a route that has `serialised`, for a caller metering admitted: the answer's
 * body, the envelope around the `data` the route serialises. The h3 handler (mount.ts) and node's
 * lane (lane.ts) both answer with it.
 *
 * Not async, nor are the steps under it when their data is in memory (the pinned version, the
 * route's index): a small lookup answer is then made without a promise, and the few it would
 * otherwise create and await were a tenth of its CPU (docs/performance.md "Lookup, sixth pass"). A
 * step that has to wait hands back a promise, and so does this. An error is thrown either way: the
 * callers `await` the result inside their `try`, which catches both.
 */
export function serialisedAnswer<E>(
  route: DataRoute<any, E>,
  api: Pick<DataApi<E>, "env" | "versions">,
  access: Access,
  input: unknown,
  invalid: unknown,
  requestId: string,
): AnswerBody | Promise<AnswerBody> {
  refuseCaller(route, access, invalid);
  const version = pinnedVersion(api.versions);
  return version instanceof Promise
    ? version.then((pinned) => answerAt(route, api, access, input, requestId, pinned))
    : answerAt(route, api, access, input, requestId, version);
}

function answerAt<E>(
  route: DataRoute<any, E>,
  api: Pick<DataApi<E>, "env">,
  access: Access,
  input: unknown,
  requestId: string,
  version: PinnedVersion,
): AnswerBody | Promise<AnswerBody> {
  const output = route.output as JsonOutput;
  const projection = projectionOf(output, access);
  const schema = projection === "public" ? output.public! : output.full;
  const context = { env: api.env, access, input, version };
  return envelopeBytes((out) => route.serialised!(context, projection, schema, out), requestId, version.meta);
}

/** `{"a":1}` → `,"a":1}}`, `{}` → `}}`: a version's meta serialised once, to follow the request id and close the envelope. */
const metaTails = new WeakMap<DatasetMeta, Buffer>();
function metaTailOf(meta: DatasetMeta): Buffer {
  let tail = metaTails.get(meta);
  if (tail === undefined) {
    const json = JSON.stringify(meta);
    metaTails.set(meta, (tail = Buffer.from(json === "{}" ? "}}" : `,${json.slice(1)}}`)));
  }
  return tail;
}

/**
 * The success envelope around the `data` a route serialises: what h3 would make of
 * `{code: 0, data, meta: {request_id, ...meta}}`, the meta's own members serialised once per version.
 */
function envelopeBytes(data: (out: Utf8Builder) => void | Promise<void>, requestId: string, meta: DatasetMeta): AnswerBody | Promise<AnswerBody> {
  const out = new Utf8Builder().text('{"code":0,"data":');
  const written = data(out);
  return written instanceof Promise ? written.then(() => closeEnvelope(out, requestId, meta)) : closeEnvelope(out, requestId, meta);
}

function closeEnvelope(out: Utf8Builder, requestId: string, meta: DatasetMeta): AnswerBody {
  // Quoted as it is: a request id is ours ([0-9a-z_]) or an inbound one of [A-Za-z0-9._-] or hex
  // (http/request-id.ts), nothing JSON would escape.
  return out.text(`,"meta":{"request_id":"${requestId}"`).bytes(metaTailOf(meta)).toAnswer();
}
