import { getQuery, type H3 } from "h3";
import { credentialsOf } from "../access/credentials.ts";
import { crossSiteViolation } from "../access/cross-site.ts";
import { requireConsoleSession } from "../access/resolver.ts";
import { OpenListenStreamQuery } from "../contract/listen.ts";
import { AppError } from "../errors.ts";
import { requestIdOf } from "../http/request-id.ts";
import { LISTEN_STREAM_PATH, openListenStream } from "../webhooks/listen/open-stream.ts";
import type { AppDeps } from "./deps.ts";

/**
 * GET /console/listen-sessions/stream (webhooks/listen/open-stream.ts) on the app, after the checks a
 * console write gets: an account session (an API key is 403), the cross-site rule as for a POST
 * (opening a session takes one of the account's slots), not while shutting down, a valid query.
 */
export function mountListenStream(app: H3, deps: Pick<AppDeps, "access" | "config" | "lifecycle" | "webhooks" | "listenHub">): void {
  app.get(LISTEN_STREAM_PATH, async (event) => {
    const access = await requireConsoleSession(deps.access, credentialsOf(event, deps.config));
    const headers = event.req.headers;
    const violation = crossSiteViolation({ method: "POST", origin: headers.get("origin"), secFetchSite: headers.get("sec-fetch-site") }, deps.config.publicOrigins);
    if (violation) throw new AppError("CROSS_SITE_REQUEST", `Cross-site request refused (${violation})`);
    if (deps.lifecycle.shuttingDown) throw new AppError("SERVICE_UNAVAILABLE", "Shutting down; connect again");
    const parsed = OpenListenStreamQuery.safeParse(getQuery(event));
    if (!parsed.success) {
      throw new AppError("INVALID_REQUEST", parsed.error.issues.map((issue) => `${issue.path.join(".") || "query"}: ${issue.message}`).join("; "));
    }
    return openListenStream(deps.webhooks, deps.listenHub, { userId: access.userId, query: parsed.data, requestId: requestIdOf(event) });
  });
}
