import { leaf, type Ir21Command } from "../command.ts";
import { Stopped, UsageError } from "../errors.ts";
import { humanTime } from "../output.ts";
import type { Runtime } from "../runtime.ts";
import { apiFailureOf, EVENT_TYPES, type EventType, type ListenDelivery } from "../sdk.ts";
import { EVENT_FILTER_FLAGS, eventTypesOf, idKind, listOf, longEventType, OLD_EVENT_FILTER_SPELLINGS } from "./shared.ts";
import packageJson from "../../package.json" with { type: "json" };

/**
 * `ir21 listen` and `ir21 trigger`: webhooks developed locally (docs/webhooks.md "Listen sessions").
 * The CLI holds a listen session's stream, POSTs each delivery to a local URL exactly as ir21 would
 * (raw body, X-IR21-* and Standard Webhooks headers), reports what the receiver answered, and reconnects to the same session
 * (same secret) when the stream drops.
 */

/** How long the local receiver gets, as a subscription's receiver does (docs/webhooks.md "Delivery"). */
const FORWARD_TIMEOUT_MS = 15_000;
/** Response bytes kept and reported, as for a subscription's attempt. */
const ANSWER_BYTES = 4_096;
/** Reconnect backoff: doubling from 0.5 s, at most 30 s, with jitter. */
const BACKOFF_MS = { first: 500, max: 30_000 };

/** A listen session's event filter: no types means every type, so `all` is the empty list. */
function eventTypes(values: string[] | undefined): EventType[] {
  const { all, types } = eventTypesOf(values);
  return all ? [] : types;
}

/** The local receiver's URL: any absolute http(s) URL (the CLI connects to it, not the server). */
function forwardTarget(value: string): string {
  let url: URL;
  try {
    url = new URL(value.includes("://") ? value : `http://${value}`);
  } catch {
    throw new UsageError(`--forward-to: not a URL: "${value}"`, "e.g. --forward-to http://localhost:3000/webhooks");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError("--forward-to: only http and https URLs");
  return url.href;
}

interface Answer {
  status: number | null;
  duration_ms: number;
  headers?: Record<string, string>;
  body?: string;
  body_truncated?: boolean;
  error?: string;
}

/** POSTs one delivery to the local receiver: the body and the signature headers as received, nothing re-encoded. */
async function forward(target: string, delivery: ListenDelivery): Promise<Answer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(target, {
      method: "POST",
      headers: { ...delivery.headers, "content-type": "application/json", "user-agent": `ir21-cli/${packageJson.version} (listen)` },
      body: delivery.body,
      // As a real delivery: a redirect is an answer, not followed.
      redirect: "manual",
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    const chunks: Uint8Array[] = [];
    let kept = 0;
    let truncated = false;
    const reader = response.body?.getReader();
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value.subarray(0, ANSWER_BYTES - kept));
      kept += Math.min(value.length, ANSWER_BYTES - kept);
      if (kept >= ANSWER_BYTES) {
        truncated = value.length > chunks.at(-1)!.length || !(await reader.read()).done;
        await reader.cancel().catch(() => undefined);
        break;
      }
    }
    return {
      status: response.status,
      duration_ms: elapsed(),
      headers: Object.fromEntries(response.headers),
      body: Buffer.concat(chunks).toString("utf8"),
      body_truncated: truncated,
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const timedOut = (error as Error).name === "TimeoutError";
    const why = timedOut ? `timeout: no answer within ${FORWARD_TIMEOUT_MS / 1000} s` : `connection: ${cause?.code ?? ""} ${cause?.message ?? (error as Error).message}`.replace(/\s+/g, " ").trim();
    return { status: null, duration_ms: elapsed(), error: why };
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

export function listenCommands(rt: Runtime): Record<"listen" | "trigger", Ir21Command> {
  return {
    listen: leaf({
      category: "Webhooks",
      summary: "Receive the account's events on a local URL (no public endpoint needed)",
      details: [
        "Opens a listen session: the account's events reach this command as they would reach a subscription,",
        "signed with the session's own secret (printed once, on the ready line), and are POSTed to --forward-to",
        "with the raw body and the X-IR21-* and Standard Webhooks (webhook-*) headers unchanged, so your",
        "receiver's verification code runs as in production. Each delivery prints one line: time, event type,",
        "event id, the local status and duration.",
        "What the receiver answered is also recorded (`ir21 deliveries show <delivery-id> <session-id>`).",
        "",
        "A dropped connection is resumed with backoff (same session, same secret); events in between are not",
        "replayed (fetch them with `ir21 changes`). Ctrl-C ends the session (exit 130).",
        "--json prints JSON Lines, one object per line: {type: \"ready\", …} first, then {type: \"delivery\", …}.",
      ].join("\n"),
      examples: [
        "ir21 listen --forward-to http://localhost:3000/webhooks",
        "ir21 listen --forward-to localhost:3000/ir21 --events operator.updated,catalog.updated --countries CN",
        "ir21 --json listen --forward-to http://127.0.0.1:8080/hook > deliveries.jsonl &",
      ],
      repeatable: ["events", "countries", "operators"],
      args: {
        "forward-to": { type: "string", valueHint: "url", required: true, description: "Where to POST each delivery (http://localhost is fine)" },
        ...EVENT_FILTER_FLAGS,
        events: { ...EVENT_FILTER_FLAGS.events, description: `${EVENT_FILTER_FLAGS.events.description} (default every type)` },
      },
      // The singular spellings other commands had in 0.1 are accepted here too: one grammar everywhere.
      oldSpellings: OLD_EVENT_FILTER_SPELLINGS,
      run: async (args) => {
        const target = forwardTarget(args["forward-to"]);
        const filters = { events: eventTypes(rt.repeated.events), countries: listOf(rt.repeated.countries), operators: listOf(rt.repeated.operators) };
        const client = rt.console();
        const stop = new AbortController();
        const onSigint = () => stop.abort();
        process.once("SIGINT", onSigint);
        const inFlight = new Set<Promise<void>>();
        let sessionId: string | null = null;
        let failures = 0;
        const c = rt.out.c;

        const handle = async (delivery: ListenDelivery) => {
          const answer = await forward(target, delivery);
          let reported: string | null = null;
          try {
            await client.webhooks.listen.report.mutate({ id: delivery.session_id, deliveryId: delivery.delivery_id, ...answer });
          } catch (error) {
            reported = apiFailureOf(error)?.message ?? (error as Error).message;
          }
          const time = new Date().toISOString();
          if (rt.out.json) {
            rt.out.line(
              JSON.stringify({
                type: "delivery",
                time,
                delivery_id: delivery.delivery_id,
                session_id: delivery.session_id,
                event_id: delivery.event_id,
                event_type: delivery.event_type,
                status: answer.status,
                duration_ms: answer.duration_ms,
                error: answer.error ?? null,
                report_error: reported,
              }),
            );
          } else {
            const ok = answer.status !== null && answer.status >= 200 && answer.status < 300;
            const status = answer.status === null ? c.red(answer.error ?? "no answer") : ok ? c.green(String(answer.status)) : c.red(String(answer.status));
            rt.out.line(`${humanTime(time)}:${String(new Date(time).getSeconds()).padStart(2, "0")}  ${delivery.event_type}  ${delivery.event_id}  ${status}  ${answer.duration_ms} ms  ${c.dim(delivery.delivery_id)}`);
            if (reported) rt.out.warn(`Could not record the answer for ${delivery.delivery_id}: ${reported}`);
          }
        };

        while (!stop.signal.aborted) {
          try {
            for await (const message of rt.listenStream({ ...filters, forwardTo: target, resume: sessionId ?? undefined, signal: stop.signal })) {
              if (message.type === "ready") {
                failures = 0;
                if (message.resumed) {
                  rt.out.info(`Reconnected to ${message.session.id} (same signing secret).`);
                  continue;
                }
                if (sessionId) rt.out.warn(`The previous session could not be resumed: this is a new session with a NEW signing secret.`);
                sessionId = message.session.id;
                if (rt.out.json) rt.out.line(JSON.stringify({ type: "ready", session_id: message.session.id, forward_to: target, secret: message.secret, session: message.session }));
                else rt.out.line(`Ready! Forwarding to ${target} with signing secret ${message.secret} (session ${message.session.id}; Ctrl-C to stop)`);
              } else if (message.type === "delivery") {
                const running: Promise<void> = handle(message.delivery).finally(() => inFlight.delete(running));
                inFlight.add(running);
              } else if (message.type === "end") {
                if (message.reason === "ended") {
                  rt.out.info(`The session was ended from the console: ${message.message}`);
                  stop.abort();
                  sessionId = null;
                } else rt.out.info(`The server closed the stream (${message.reason}): ${message.message}`);
              }
            }
          } catch (error) {
            if (stop.signal.aborted) break;
            const failure = apiFailureOf(error);
            // A refusal that retrying cannot fix: no login, a bad filter, the session cap on the first connection.
            if (failure && (failure.status === 401 || failure.status === 400 || failure.status === 403 || (failure.status === 409 && sessionId === null))) throw error;
            // The session cannot be resumed (ended elsewhere, or too long ago): open a new one.
            if (failure?.status === 409 || failure?.status === 404) sessionId = null;
            rt.out.warn(`Listen stream lost (${failure ? `${failure.code}: ${failure.message}` : (error as Error).message})`);
          }
          if (stop.signal.aborted) break;
          const delay = Math.min(BACKOFF_MS.max, BACKOFF_MS.first * 2 ** failures) * (0.75 + Math.random() * 0.5);
          failures++;
          rt.out.info(`Reconnecting in ${(delay / 1000).toFixed(1)} s…`);
          await sleep(delay, stop.signal);
        }

        process.off("SIGINT", onSigint);
        await Promise.race([Promise.all(inFlight), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
        if (sessionId) {
          // The user is done: end the session for good (no resume), which frees its slot at once.
          await Promise.race([client.webhooks.listen.end.mutate({ id: sessionId }).catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
        }
        throw new Stopped(`Stopped listening${sessionId ? `; session ${sessionId} ended` : ""}.`);
      },
    }),
    trigger: leaf({
      category: "Webhooks",
      summary: "Send a test event of a type to your listen sessions, or to a subscription",
      details: [
        "The event carries test: true and realistic data for its type (the same `data` shape as a real event:",
        "before/after/changed_fields, the reset's reason). Without <webhook-id> it goes to every open listen",
        "session of the account (start one with `ir21 listen`); with it, through that subscription's queue.",
        `Types (short or long form): ${EVENT_TYPES.map((t) => t.replace(/^ir21\./, "")).join(", ")}.`,
        "--json prints {event_id, event_type, deliveries: [{delivery_id, session_id}], queued}; to a",
        "subscription, {delivery_id, queued, webhook_id}.",
      ].join("\n"),
      examples: ["ir21 trigger ir21.operator.updated", "ir21 trigger catalog.updated", "ir21 trigger network.added whk_01jd…"],
      oldSpellings: { subscription: { positional: "webhook-id" } },
      args: {
        "event-type": { type: "positional", required: true, description: "The event type, short or long, e.g. operator.updated or ir21.operator.updated" },
        "webhook-id": { type: "positional", required: false, description: "Send it to this subscription (whk_…) instead of the listen sessions" },
      },
      run: async (args) => {
        const type = longEventType(args["event-type"]);
        const webhookId = args["webhook-id"];
        if (webhookId !== undefined && idKind(webhookId) !== "webhook") throw new UsageError(`"${webhookId}" is not a subscription id (whk_…)`, "e.g. ir21 trigger network.added whk_01jd…");
        const client = rt.console();
        if (webhookId) {
          const data = await client.webhooks.sendTest.mutate({ id: webhookId, event_type: type });
          rt.out.success(`Queued a test ${type} to ${webhookId}: delivery ${data.delivery_id}`);
          rt.out.result({ ...data, webhook_id: webhookId }, () => rt.out.line(`Follow it with: ${rt.commandPrefix()} deliveries show ${data.delivery_id} ${webhookId}`), data);
          return;
        }
        const data = await client.webhooks.listen.trigger.mutate({ event_type: type });
        const n = data.deliveries.length;
        rt.out.success(`Sent a test ${type} (${data.event_id}) to ${n} listen session${n === 1 ? "" : "s"}`);
        rt.out.result(data, () => {
          for (const d of data.deliveries) rt.out.line(`${d.delivery_id}  session ${d.session_id}`);
        });
      },
    }),
  };
}
