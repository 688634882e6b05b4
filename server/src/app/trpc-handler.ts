import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { H3Event } from "h3";
import type { AppDeps } from "./deps.ts";
import type { AppRouter } from "./router.ts";
import { createContext, type CallerChecks } from "../trpc/context.ts";
import { logIfUnexpected, toContractError } from "../http/errors.ts";
import { requestIdOf } from "../http/request-id.ts";
import { VERSION_LABEL } from "../version.ts";

/**
 * The most calls one /trpc request may batch; a larger batch is refused whole with 400 before any call
 * runs (docs/architecture.md "The HTTP edge"). Every call in a batch passes its procedure's own
 * middleware, rate limits included, exactly as if it came alone. The SDK sends one call per request;
 * a batching client sets its link's `maxItems` to this or less.
 */
export const MAX_BATCH_CALLS = 20;

/**
 * Serves the app router at /trpc with tRPC's fetch adapter: in h3 v2 the event's request already is a
 * web Request. Headers set on the event (cookies) are merged into tRPC's response by h3.
 */
export function trpcHandler(appRouter: AppRouter, deps: Pick<AppDeps, "config" | "log"> & { checks: CallerChecks }) {
  return async (event: H3Event) => {
    const response = await fetchRequestHandler({
      endpoint: "/trpc",
      req: event.req,
      router: appRouter,
      maxBatchSize: MAX_BATCH_CALLS,
      createContext: () => createContext(event, deps.checks, deps.config),
      responseMeta({ errors }) {
        // h3 sends an error status from tRPC with these alone (it merges the event's headers into successes only).
        const headers = new Headers({ "cache-control": "no-store", "x-request-id": requestIdOf(event), "x-ir21-version": VERSION_LABEL });
        // Only the error path carries extra headers (Retry-After); take the first error's.
        for (const [name, value] of Object.entries(errors[0] ? toContractError(errors[0]).headers : {})) headers.set(name, value);
        return { headers };
      },
      onError({ error, path }) {
        logIfUnexpected(deps.log, error, toContractError(error), { path, request_id: requestIdOf(event) }, "unexpected error in procedure");
      },
    });
    // An error tRPC finds before any procedure runs (a batch mixing queries and mutations, a body it
    // cannot read) is its JSON error body without a Content-Type, which fetch's Response makes text/plain.
    if (response.status >= 400 && !response.headers.get("content-type")?.startsWith("application/json")) response.headers.set("content-type", "application/json");
    return response;
  };
}
