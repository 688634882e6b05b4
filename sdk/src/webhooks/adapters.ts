import type { EventPayload } from "../wire.ts";
import { WebhookVerificationError } from "./errors.ts";
import { verifyWebhook, type VerifyWebhookInput, type WebhookHeaders } from "./verify.ts";

/**
 * Adapters that take the raw body from a framework's request and call {@link verifyWebhook}. The
 * request types are structural, so the SDK depends on no framework (and its declarations on no
 * framework's types).
 */

/** Everything {@link verifyWebhook} takes except what the request itself supplies. */
export interface VerifyRequestOptions extends Omit<VerifyWebhookInput, "rawBody" | "headers"> {
  /**
   * Largest body read from a stream before refusing it (`MALFORMED_BODY`), so an unauthenticated
   * sender cannot make the receiver buffer without bound. Default 1 MiB; events are a few kB.
   */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** A Fetch API request: Workers, Deno, Bun, Next.js route handlers, Hono's `c.req.raw`, h3 v2's `event.req`. */
export interface FetchRequestLike {
  readonly headers: { get(name: string): string | null };
  readonly bodyUsed?: boolean;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** node:http's IncomingMessage (and anything else that streams its body as chunks). */
export interface NodeRequestLike extends AsyncIterable<unknown> {
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly readableEnded?: boolean;
}

/** An h3 event: v2 carries a Fetch `Request` as `event.req`, v1 the Node request as `event.node.req`. */
export type H3EventLike = { readonly req: FetchRequestLike } | { readonly node: { readonly req: NodeRequestLike } };

/** An Express-style request whose body was left raw, e.g. by `express.raw({ type: "application/json" })`. */
export interface ExpressRequestLike {
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body?: unknown;
}

/**
 * Verifies a delivery arriving as a Fetch API `Request` and returns its event.
 * @example
 * // Cloudflare Workers, Deno, Bun, Next.js app routes
 * export default {
 *   async fetch(request: Request, env: { IR21_WEBHOOK_SECRET: string }) {
 *     const event = await verifyRequest(request, { secrets: env.IR21_WEBHOOK_SECRET });
 *     return new Response(null, { status: 204 });
 *   },
 * };
 */
export async function verifyRequest(request: FetchRequestLike, options: VerifyRequestOptions): Promise<EventPayload> {
  if (request.bodyUsed) throw new TypeError("verifyRequest: the request body was already read; verify before parsing it");
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBodyBytesOf(options)) throw bodyTooLarge(options);
  const rawBody = new Uint8Array(await request.arrayBuffer());
  if (rawBody.byteLength > maxBodyBytesOf(options)) throw bodyTooLarge(options);
  return verifyWebhook({ ...options, rawBody, headers: request.headers });
}

/**
 * Reads a node:http request's raw body (bounded by `maxBodyBytes`) and verifies it.
 * @example
 * import { createServer } from "node:http";
 * createServer(async (req, res) => {
 *   try {
 *     const event = await verifyNodeRequest(req, { secrets: process.env.IR21_WEBHOOK_SECRET! });
 *     res.writeHead(204).end();
 *   } catch (error) {
 *     res.writeHead(isWebhookVerificationError(error) ? 400 : 500).end();
 *   }
 * }).listen(3000);
 */
export async function verifyNodeRequest(request: NodeRequestLike, options: VerifyRequestOptions): Promise<EventPayload> {
  const rawBody = await readNodeBody(request, maxBodyBytesOf(options));
  return verifyWebhook({ ...options, rawBody, headers: request.headers });
}

/**
 * Verifies a delivery inside an h3 handler (v2 through `event.req`, v1 through `event.node.req`).
 * @example
 * import { H3 } from "h3";
 * const app = new H3().post("/ir21", async (event) => {
 *   const delivery = await verifyH3Event(event, { secrets: process.env.IR21_WEBHOOK_SECRET! });
 *   return { received: delivery.id };
 * });
 */
export async function verifyH3Event(event: H3EventLike, options: VerifyRequestOptions): Promise<EventPayload> {
  if ("req" in event && typeof event.req?.arrayBuffer === "function") return verifyRequest(event.req, options);
  if ("node" in event && event.node?.req) return verifyNodeRequest(event.node.req, options);
  throw new TypeError("verifyH3Event: expected an h3 event (event.req or event.node.req)");
}

/**
 * Verifies an Express (or Connect, Fastify-style) request. Mount the route with
 * `express.raw({ type: "application/json" })` so `req.body` is the raw Buffer; a body left unread is
 * read from the stream; an already parsed body is refused with a TypeError.
 * @example
 * app.post("/ir21", express.raw({ type: "application/json" }), async (req, res) => {
 *   const event = await verifyExpressRequest(req, { secrets: process.env.IR21_WEBHOOK_SECRET! });
 *   res.sendStatus(204);
 * });
 */
export async function verifyExpressRequest(request: ExpressRequestLike, options: VerifyRequestOptions): Promise<EventPayload> {
  const body = request.body;
  // Already buffered by the body parser (which has its own size limit).
  if (typeof body === "string" || ArrayBuffer.isView(body)) {
    return verifyWebhook({ ...options, rawBody: body as string | Uint8Array, headers: request.headers as WebhookHeaders });
  }
  if (body === undefined && isAsyncIterable(request)) return verifyNodeRequest(request as ExpressRequestLike & NodeRequestLike, options);
  throw new TypeError(
    "verifyExpressRequest: req.body is not the raw body. Mount the webhook route with express.raw({ type: 'application/json' }) " +
      "before any JSON body parser: the signature covers the exact bytes received.",
  );
}

async function readNodeBody(request: NodeRequestLike, maxBytes: number): Promise<Uint8Array> {
  if (request.readableEnded) throw new TypeError("verifyNodeRequest: the request body was already read; verify before parsing it");
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request) {
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : ArrayBuffer.isView(chunk) ? new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) : null;
    if (bytes === null) throw new TypeError("verifyNodeRequest: the request stream yielded something other than bytes or text");
    size += bytes.byteLength;
    if (size > maxBytes) throw bodyTooLarge({ maxBodyBytes: maxBytes });
    chunks.push(bytes);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

function maxBodyBytesOf(options: VerifyRequestOptions): number {
  const max = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(max) || max <= 0) throw new TypeError("maxBodyBytes must be a positive integer");
  return max;
}

function bodyTooLarge(options: Pick<VerifyRequestOptions, "maxBodyBytes">): WebhookVerificationError {
  return new WebhookVerificationError("MALFORMED_BODY", `The body exceeds ${options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES} bytes`);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown })?.[Symbol.asyncIterator] === "function";
}
