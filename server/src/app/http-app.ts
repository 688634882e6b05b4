import type { IncomingMessage } from "node:http";
import { assertBodySize, H3 } from "h3";
import { requestFacts } from "../observability/requests.ts";
import { refuseCrossSiteCookieWrite } from "../access/cross-site.ts";
import { DATA_ROUTES } from "../catalog/routes/index.ts";
import { mountDataRoutes } from "../data-api/mount.ts";
import { buildOpenApiDocument, type BoundProcedure } from "../docs/openapi.ts";
import { mountApiDocs } from "../docs/routes.ts";
import { AppError } from "../errors.ts";
import { envelope } from "../http/envelope.ts";
import { errorResponse, logIfUnexpected, toContractError } from "../http/errors.ts";
import { requestIdOf } from "../http/request-id.ts";
import { COMMIT, VERSION, VERSION_LABEL } from "../version.ts";
import { mountWebConsole } from "../web/routes.ts";
import { OpenListenStreamQuery } from "../contract/listen.ts";
import { HEADERS, STANDARD_HEADERS } from "../webhooks/delivery/signing.ts";
import { LISTEN_STREAM_PATH } from "../webhooks/listen/open-stream.ts";
import { catalogApi, type AppDeps } from "./deps.ts";
import { mountListenStream } from "./listen-stream.ts";
import { mountRestBindings } from "./rest.ts";
import { REST_BINDINGS } from "./rest-bindings.ts";
import { createAppRouter, type AppRouter } from "./router.ts";
import { trpcHandler } from "./trpc-handler.ts";

/**
 * The whole HTTP surface: ops endpoints, /trpc, the frozen REST bindings, the /v1 data routes, the API
 * reference and the web console's files (`/`, `/app/*`), with one request id, one body limit and one
 * error renderer for all of them.
 * @example
 * const app = createApp(deps);
 * const response = await app.request("/healthz");
 */
export function createApp(deps: AppDeps, options: { directAnswers?: boolean } = {}): H3 {
  // The access log is the only onResponse work, and h3 adds promise hops for the hook: leave it out
  // when the level drops request lines anyway.
  const logRequests = deps.log.isLevelEnabled("info");
  const observing = deps.telemetry.metrics.enabled || deps.telemetry.tracing !== null;
  const app = new H3({
    silent: true,
    onRequest(event) {
      if (logRequests) event.context.startedAt = performance.now();
      // Observed (metrics, traces): the route matched and the request id are read from the context
      // when the answer is done (observability/requests.ts).
      const nodeRequest = observing ? (event.runtime?.node?.req as IncomingMessage | undefined) : undefined;
      if (nodeRequest) {
        const facts = requestFacts(nodeRequest);
        if (facts) facts.context = event.context;
      }
      // On every success; an error answer gets both from its renderer (errorResponse, and tRPC's
      // responseMeta for the errors it answers itself), so nothing is staged on errHeaders per request.
      event.res.headers.set("x-request-id", requestIdOf(event));
      event.res.headers.set("x-ir21-version", VERSION_LABEL);
      assertBodySize(event, deps.config.bodyLimitBytes);
      refuseCrossSiteCookieWrite(event, deps.config);
    },
    onError(error, event) {
      const contract = toContractError(error);
      logIfUnexpected(deps.log, error, contract, { request_id: requestIdOf(event) });
      return errorResponse(event, contract);
    },
    onResponse: logRequests
      ? (response, event) => {
          const ms = event.context.startedAt === undefined ? undefined : Math.round((performance.now() - event.context.startedAt) * 10) / 10;
          deps.log.info(
            { request_id: requestIdOf(event), method: event.req.method, path: event.url.pathname, status: response.status, ms },
            "request",
          );
        }
      : undefined,
  });

  app.get("/healthz", (event) => envelope(event, deps.datasetMeta, { status: "ok", version: VERSION, commit: COMMIT }));
  app.get("/readyz", async (event) => {
    if (deps.lifecycle.shuttingDown) throw new AppError("SERVICE_UNAVAILABLE", "Shutting down");
    try {
      await deps.db.selectFrom("dataset_versions").select("version").limit(1).execute();
    } catch (cause) {
      throw new AppError("SERVICE_UNAVAILABLE", "Database unavailable", { cause });
    }
    // Not Redis: every request is served without it (docs/operations.md "Redis unavailable"), and a
    // balancer that took every instance out when their shared Redis failed would make that an outage.
    const meta = await deps.datasetMeta.current();
    if (meta.dataset_version === "none") throw new AppError("SERVICE_UNAVAILABLE", "No dataset imported yet");
    return envelope(event, deps.datasetMeta, { status: "ready" });
  });

  const appRouter = createAppRouter(deps);
  const checks = { access: deps.access, publicOrigins: deps.config.publicOrigins };
  app.all("/trpc/**", trpcHandler(appRouter, { ...deps, checks }));
  mountListenStream(app, deps);
  mountRestBindings(app, appRouter, { ...deps, checks });
  // directAnswers: false serves /v1/lookup the generic way too (the reference of lookup-direct.test.ts).
  mountDataRoutes(app, DATA_ROUTES, catalogApi(deps), { direct: options.directAnswers });
  mountApiDocs(app, () => buildOpenApiDocument(apiSurface(appRouter), deps.config.publicOrigins[0]));
  mountWebConsole(app, deps);
  return app;
}

/** What the OpenAPI document describes (docs/openapi.ts): every route list of this app. */
function apiSurface(appRouter: AppRouter) {
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: BoundProcedure["def"] }>;
  return {
    dataRoutes: DATA_ROUTES,
    bindings: REST_BINDINGS.map((binding) => ({ ...binding, def: procedures[binding.procedure]!._def })),
    listenStream: { path: LISTEN_STREAM_PATH, query: OpenListenStreamQuery },
    deliveryHeaders: HEADERS,
    standardHeaders: STANDARD_HEADERS,
  };
}
