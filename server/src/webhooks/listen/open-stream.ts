/**
 * GET /console/listen-sessions/stream          account session (cookie); text/event-stream
 *
 * Opens a listen session (or, with `resume=lsn_…`, reattaches to one of the account's) and streams it
 * as server-sent events (docs/webhooks.md "Listen sessions: the stream"):
 *
 *   event: ready     {session, secret, resumed, ping_interval_seconds, buffer}   first; secret only when new
 *   event: delivery  {delivery_id, session_id, event_id, event_type, attempt, headers, body}
 *   event: end       {reason, message}                                            last, when the server ends it
 *   : ping                                                                        every ping interval
 *
 * `body` is the raw event body exactly as signed; `headers` the X-IR21-* and webhook-* (Standard
 * Webhooks) headers of the attempt. The forwarder reports each delivery's outcome with POST
 * …/deliveries/:deliveryId/report. The session ends when this response ends. Errors before the stream starts are the contract's JSON error bodies.
 *
 * A plain h3 route, not a REST binding: a procedure answers once, a stream goes on. Opening a session
 * is a write (it takes one of the account's slots), so the cross-site rule applies as to a POST.
 */
import { getQuery, type H3 } from "h3";
import { requireConsoleSession } from "../../auth/access.ts";
import { crossSiteViolation } from "../../auth/cross-site.ts";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { requestIdOf } from "../../http/request-id.ts";
import { createContext } from "../../trpc/context.ts";
import { webhookEnv } from "../env.ts";
import { ListenEventStream } from "./event-stream.ts";
import { listenHub } from "./hub.ts";
import { ZOpenStreamQuery } from "./open-stream.types.ts";
import { openListenSession, resumeListenSession } from "./sessions.ts";

export const LISTEN_STREAM_PATH = "/console/listen-sessions/stream";

export function mountListenStream(app: H3, deps: AppDeps): void {
  app.get(LISTEN_STREAM_PATH, async (event) => {
    const ctx = createContext(event, deps);
    const access = await requireConsoleSession(deps.access, ctx);
    const violation = crossSiteViolation({ ...ctx.request, method: "POST" }, deps.config.publicOrigins);
    if (violation) throw new AppError("CROSS_SITE_REQUEST", `Cross-site request refused (${violation})`);
    if (deps.lifecycle.shuttingDown) throw new AppError("SERVICE_UNAVAILABLE", "Shutting down; connect again");
    const parsed = ZOpenStreamQuery.safeParse(getQuery(event));
    if (!parsed.success) {
      throw new AppError("INVALID_REQUEST", parsed.error.issues.map((issue) => `${issue.path.join(".") || "query"}: ${issue.message}`).join("; "));
    }
    const query = parsed.data;
    const env = webhookEnv(deps);
    const hub = listenHub(deps);
    const opened = query.resume
      ? await resumeListenSession(env, hub.settings, { userId: access.userId, id: query.resume, holder: hub.holder })
      : await openListenSession(env, hub.settings, {
          userId: access.userId,
          filters: { events: query.events, countries: query.countries, operators: query.operators },
          forwardTo: query.forward_to ?? null,
          holder: hub.holder,
        });
    const stream = new ListenEventStream({ "x-request-id": requestIdOf(event) });
    hub.attach(opened.row, opened.secret, stream, { secret: query.resume ? null : opened.secret, resumed: Boolean(query.resume) });
    return stream.response;
  });
}
