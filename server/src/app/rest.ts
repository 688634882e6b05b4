import { getQuery, getRouterParams, type H3, type H3Event } from "h3";
import type { AppDeps } from "./deps.ts";
import { AppError } from "../errors.ts";
import type { AppRouter } from "./router.ts";
import { createContext, type CallerChecks } from "../trpc/context.ts";
import { createCallerFactory } from "../trpc/init.ts";
import { readJsonBody } from "../http/body.ts";
import { envelope } from "../http/envelope.ts";
import { REST_BINDINGS, type InputSource, type RestBinding } from "./rest-bindings.ts";

type Callable = (input: unknown) => Promise<unknown>;

async function readInput(event: H3Event, sources: readonly InputSource[]): Promise<Record<string, unknown>> {
  const input: Record<string, unknown> = {};
  for (const source of sources) {
    if (source === "query") Object.assign(input, getQuery(event));
    if (source === "params") Object.assign(input, getRouterParams(event, { decode: true }));
    if (source === "body") {
      const body = await readJsonBody(event);
      if (body === undefined) continue;
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        throw new AppError("INVALID_REQUEST", "The request body must be a JSON object");
      }
      Object.assign(input, body);
    }
  }
  return input;
}

function defaultSources(binding: RestBinding): readonly InputSource[] {
  return binding.input ?? (binding.method === "GET" ? ["query", "params"] : ["body", "params"]);
}

/**
 * Serves each {@link REST_BINDINGS} row: build the tRPC context from the request, call the procedure
 * through createCaller (so its middleware, validation and output schema all apply), and wrap the result
 * in the envelope. Errors propagate to the app's onError, the one place that renders error bodies.
 */
export function mountRestBindings(app: H3, appRouter: AppRouter, deps: Pick<AppDeps, "config" | "datasetMeta"> & { checks: CallerChecks }, bindings: readonly RestBinding[] = REST_BINDINGS): void {
  const createCaller = createCallerFactory(appRouter);
  const procedures = appRouter._def.procedures as Record<string, unknown>;
  const methodsByPath = new Map<string, string[]>();
  for (const binding of bindings) {
    if (!Object.hasOwn(procedures, binding.procedure)) {
      throw new Error(`REST binding ${binding.method} ${binding.path} names an unknown procedure "${binding.procedure}"`);
    }
    const sources = defaultSources(binding);
    const segments = binding.procedure.split(".");
    app.on(binding.method, binding.path, async (event) => {
      const input = await readInput(event, sources);
      const caller = createCaller(createContext(event, deps.checks, deps.config)) as unknown as Record<string, unknown>;
      const call = segments.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as Callable;
      const data = await call(input);
      // Console and auth answers are per-account: no shared cache may keep them.
      event.res.headers.set("cache-control", "no-store");
      return envelope(event, deps.datasetMeta, data);
    });
    methodsByPath.set(binding.path, [...(methodsByPath.get(binding.path) ?? []), binding.method]);
  }
  // A known path with another method: 405 with Allow, rather than a misleading 404.
  for (const [path, methods] of methodsByPath) {
    app.all(path, () => {
      throw new AppError("METHOD_NOT_ALLOWED", `Use ${methods.join(" or ")} on this path`, { headers: { Allow: methods.join(", ") } });
    });
  }
}
