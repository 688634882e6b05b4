import { createParser } from "eventsource-parser";
import { cookieFetch, memoryCookieJar, type SessionCookieJar } from "./cookies.ts";
import { Ir21ApiError, errorFromResponse } from "./errors.ts";
import { createTransport, normaliseBaseUrl, type FetchLike } from "./transport.ts";
import type { EventType, ListenSession } from "./wire.ts";

/**
 * The listen stream (docs/webhooks.md "Listen sessions"): a signed-in account's events, delivered to
 * a stream instead of a public URL, each signed with the session's own secret exactly as a subscription
 * delivery would be. This client reads the stream; forwarding the deliveries and reporting what the
 * receiver answered (the console client's `webhooks.listen.report`) is the caller's part, as `ir21
 * listen` does.
 */

/** One delivery on the stream: the raw body and the signature headers to send with it, byte for byte. */
export interface ListenDelivery {
  delivery_id: string;
  session_id: string;
  event_id: string;
  event_type: EventType;
  /** 1 for the first attempt. */
  attempt: number;
  /** X-IR21-Event-Id, X-IR21-Timestamp, X-IR21-Signature and webhook-id, webhook-timestamp, webhook-signature (signed with the session's secret). */
  headers: Record<string, string>;
  /** The event body exactly as signed: forward it unchanged. */
  body: string;
}

export type ListenMessage =
  /** First on every stream; `secret` only when the session is new (a resumed one keeps its secret). */
  | { type: "ready"; session: ListenSession; secret: string | null; resumed: boolean; ping_interval_seconds: number; buffer: number }
  | { type: "delivery"; delivery: ListenDelivery }
  /** Last, when the server ends the stream: `ended` (by the account) is final, other reasons can be resumed. */
  | { type: "end"; reason: string; message: string };

export interface ListenStreamOptions {
  /** The service's base URL, e.g. `https://ir21.example.com`. */
  baseUrl: string;
  /** The signed-in session (a console operation: an API key cannot open a stream). */
  cookies?: SessionCookieJar;
  fetch?: FetchLike;
  headers?: Record<string, string>;
  /** Filters, as a subscription's: event types (long form), countries (ISO alpha-2), operator ids. */
  events?: readonly string[];
  countries?: readonly string[];
  operators?: readonly string[];
  /** Where you forward, shown in the account's listing (the server never connects to it). */
  forwardTo?: string;
  /** Reattach to this session of the account (same id and secret) instead of opening a new one. */
  resume?: string;
  signal?: AbortSignal;
  /**
   * Give up (NETWORK_ERROR) when nothing, not even a keep-alive ping, arrives for this long. Default:
   * three of the server's ping intervals (from the ready message), 45 s before it.
   */
  idleTimeoutMs?: number;
}

/** The stream's URL for these options. */
export function listenStreamUrl(options: Pick<ListenStreamOptions, "baseUrl" | "events" | "countries" | "operators" | "forwardTo" | "resume">): string {
  const url = new URL(`${normaliseBaseUrl(options.baseUrl)}/console/listen-sessions/stream`);
  if (options.resume) url.searchParams.set("resume", options.resume);
  else {
    if (options.events?.length) url.searchParams.set("events", options.events.join(","));
    if (options.countries?.length) url.searchParams.set("countries", options.countries.join(","));
    if (options.operators?.length) url.searchParams.set("operators", options.operators.join(","));
    if (options.forwardTo) url.searchParams.set("forward_to", options.forwardTo);
  }
  return url.href;
}

/**
 * Opens (or resumes) a listen session and yields its messages until the stream ends. A refusal (no
 * session cookie, the account's session cap, a bad filter) throws the service's {@link Ir21ApiError};
 * a dropped or silent stream ends the iteration or throws NETWORK_ERROR: reconnect with `resume`
 * set to the session's id to keep its secret (events in between are not replayed; `/v1/changes` has
 * them).
 * @example
 * for await (const message of listenStream({ baseUrl, cookies: memoryCookieJar(savedCookie), forwardTo: "http://localhost:3000/hook" })) {
 *   if (message.type === "ready") console.log("signing secret", message.secret);
 *   if (message.type === "delivery") await forward(message.delivery);
 * }
 */
export async function* listenStream(options: ListenStreamOptions): AsyncGenerator<ListenMessage, void> {
  const transport = createTransport({ fetch: options.fetch, headers: options.headers });
  const fetchWithCookie = cookieFetch(transport as typeof globalThis.fetch, options.cookies ?? memoryCookieJar());
  const abort = new AbortController();
  const onAbort = () => abort.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let idleMs = options.idleTimeoutMs ?? 45_000;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let idle = false;
  const armIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idle = true;
      abort.abort();
    }, idleMs);
  };
  const url = listenStreamUrl(options);
  try {
    armIdle();
    const response = await fetchWithCookie(url, { headers: { accept: "text/event-stream" }, signal: abort.signal });
    if (!response.ok) throw await errorFromResponse(response);
    if (!response.body || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      throw new Ir21ApiError({ status: response.status, code: "UNEXPECTED_RESPONSE", message: "The server did not answer with an event stream", requestId: response.headers.get("x-request-id") });
    }
    const queue: ListenMessage[] = [];
    let malformed: Error | null = null;
    const parser = createParser({
      onEvent: ({ event, data }) => {
        try {
          const payload = JSON.parse(data) as Record<string, unknown>;
          if (event === "ready") queue.push({ type: "ready", ...(payload as Omit<Extract<ListenMessage, { type: "ready" }>, "type">) });
          else if (event === "delivery") queue.push({ type: "delivery", delivery: payload as unknown as ListenDelivery });
          else if (event === "end") queue.push({ type: "end", reason: String(payload.reason), message: String(payload.message ?? "") });
          // Other events are for newer clients: ignored.
        } catch (error) {
          malformed = error as Error;
        }
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        armIdle();
        parser.feed(value);
        if (malformed) throw new Ir21ApiError({ status: 200, code: "UNEXPECTED_RESPONSE", message: `A stream message is not JSON: ${(malformed as Error).message}`, requestId: null });
        while (queue.length) {
          const message = queue.shift()!;
          if (message.type === "ready" && options.idleTimeoutMs === undefined) {
            idleMs = Math.max(5_000, 3 * message.ping_interval_seconds * 1000);
            armIdle();
          }
          yield message;
          if (message.type === "end") return;
        }
      }
    } finally {
      reader.cancel().catch(() => undefined);
    }
  } catch (error) {
    if (idle) throw new Ir21ApiError({ status: 0, code: "NETWORK_ERROR", message: `The listen stream was silent for ${Math.round(idleMs / 1000)} s`, requestId: null, cause: error });
    if (options.signal?.aborted) return;
    if (error instanceof Ir21ApiError) throw error;
    throw new Ir21ApiError({ status: 0, code: "NETWORK_ERROR", message: `The listen stream broke: ${error instanceof Error ? error.message : String(error)}`, requestId: null, cause: error });
  } finally {
    clearTimeout(idleTimer);
    options.signal?.removeEventListener("abort", onAbort);
    abort.abort();
  }
}
