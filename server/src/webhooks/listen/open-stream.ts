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
 * A plain route, not a REST binding: a procedure answers once, a stream goes on. The wiring mounts it
 * (app/listen-stream.ts) after the checks every request of its kind gets there: an account session, the
 * cross-site rule as for a POST (opening a session is a write: it takes one of the account's slots),
 * not while shutting down. This file is what the stream itself does.
 */
import type { z } from "zod";
import type { OpenListenStreamQuery } from "../../contract/listen.ts";
import type { WebhookEnv } from "../env.ts";
import { ListenEventStream } from "./event-stream.ts";
import type { ListenHub } from "./hub.ts";
import { openListenSession, resumeListenSession } from "./sessions.ts";

export const LISTEN_STREAM_PATH = "/console/listen-sessions/stream";

/**
 * Opens (or resumes) the account's listen session and answers with its event stream, held by this
 * process's hub.
 * @example
 * return openListenStream(env, hub, { userId, query, requestId });
 */
export async function openListenStream(
  env: WebhookEnv,
  hub: ListenHub,
  request: { userId: string; query: z.output<typeof OpenListenStreamQuery>; requestId: string },
): Promise<Response> {
  const { userId, query } = request;
  const opened = query.resume
    ? await resumeListenSession(env, hub.settings, { userId, id: query.resume, holder: hub.holder })
    : await openListenSession(env, hub.settings, {
        userId,
        filters: { events: query.events, countries: query.countries, operators: query.operators },
        forwardTo: query.forward_to ?? null,
        holder: hub.holder,
      });
  const stream = new ListenEventStream({ "x-request-id": request.requestId });
  hub.attach(opened.row, opened.secret, stream, { secret: query.resume ? null : opened.secret, resumed: Boolean(query.resume) });
  return stream.response;
}
