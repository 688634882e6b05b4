import { VERSION_LABEL } from "../version.ts";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { ERROR_CODES, type ErrorCode } from "../contract/errors.ts";
import type { ErrorBody } from "../contract/envelope.ts";
import { newId } from "../ids.ts";

/**
 * The HTTP edge below the app (docs/architecture.md "The HTTP edge"): what node:http decides before
 * or after h3 sees a request, made to follow the contract and to leave no keep-alive client hanging.
 *
 * - **A body the answer did not read** (a 413, or any answer given before the body was read): node
 *   would normally discard it, but the web-stream bridge (srvx) has claimed the request stream, so the
 *   rest of the body stayed on the wire, the next request on the connection was never parsed and a
 *   keep-alive client waited until the socket timed out. It is now read and discarded after the
 *   answer, up to {@link DrainLimits}; then the connection serves its next request. A declared body
 *   larger than that is answered with `Connection: close` instead, and a body that outgrows the
 *   limits while being discarded closes the connection.
 * - **Requests node refuses before the app** (headers larger than `maxHeaderSize`: 431; unparsable
 *   HTTP: 400; headers or request too slow: 408) get the contract's error body with a request id,
 *   `Connection: close`, and a graceful close, where node wrote an empty body.
 */
export interface DrainLimits {
  /** At most this many bytes of an unread body are read off the wire after the answer. */
  maxBytes: number;
  /** ...within this much real time. */
  maxMs: number;
}

/** Enough for any body a client might send a JSON API by mistake; beyond it, closing is cheaper. */
export const DEFAULT_DRAIN_LIMITS: DrainLimits = { maxBytes: 4 * 1024 * 1024, maxMs: 5_000 };

/** How long a closing connection keeps reading after its last answer, so the client gets it before our FIN/RST. */
const LINGER_MS = 1_000;

/**
 * Installs both on `server`: call once, after creating it with the app's handler.
 * @example
 * const server = createServer(handler);
 * guardConnections(server, { bodyLimitBytes: 65536 });
 */
export function guardConnections(server: Server, options: { bodyLimitBytes: number; drain?: DrainLimits }): void {
  const drain = options.drain ?? DEFAULT_DRAIN_LIMITS;
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers["content-length"] ?? 0);
    // Too large to discard: say so now, so the client does not send its next request on this one.
    if (declared > options.bodyLimitBytes + drain.maxBytes) res.setHeader("connection", "close");
    res.once("finish", () => {
      if (!req.complete && !res.getHeader("connection")?.toString().toLowerCase().includes("close")) discardRest(req, drain);
    });
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket));
}

/** Reads the rest of an unread request body and throws it away, within the limits; closes otherwise. */
function discardRest(req: IncomingMessage, limits: DrainLimits): void {
  const socket = req.socket;
  // Whoever was reading the body (the abandoned web stream) lets go; its chunks go nowhere now.
  req.removeAllListeners("data");
  let discarded = 0;
  const giveUp = setTimeout(() => socket.destroy(), limits.maxMs);
  giveUp.unref();
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limits.maxBytes) socket.destroy();
  });
  req.once("end", () => clearTimeout(giveUp));
  req.once("close", () => clearTimeout(giveUp));
  req.resume();
}

/** node:http's refusals before a request exists, as contract errors (the status comes from the error table). */
const CLIENT_ERRORS: Record<string, { code: ErrorCode; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { code: "HEADERS_TOO_LARGE", reason: "Request Header Fields Too Large", message: "The request line and headers exceed the server's limit (16 KiB)." },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { code: "PAYLOAD_TOO_LARGE", reason: "Payload Too Large", message: "The chunk extensions exceed the server's limit." },
  ERR_HTTP_REQUEST_TIMEOUT: { code: "REQUEST_TIMEOUT", reason: "Request Timeout", message: "The request was not received in time." },
};
const NOT_HTTP = { code: "INVALID_REQUEST" as const, reason: "Bad Request", message: "The request is not valid HTTP/1.1." };

/** Sockets already answered: the parser reports every later chunk as another error. */
const answered = new WeakSet<Socket>();

function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  const code = error.code ?? "";
  const refusal = CLIENT_ERRORS[code] ?? (code.startsWith("HPE_") ? NOT_HTTP : null);
  // As node itself: answer only if the socket can take it and no answer has started on it.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!refusal || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const body: ErrorBody = { code: refusal.code, message: refusal.message, request_id: newId("req") };
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${ERROR_CODES[refusal.code].status} ${refusal.reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
      `Cache-Control: no-store\r\nX-Request-Id: ${body.request_id}\r\nX-IR21-Version: ${VERSION_LABEL}\r\nConnection: close\r\n\r\n${json}`,
  );
  lingerThenClose(socket);
}

/**
 * After our last bytes (and FIN), keep reading what the client still sends for a moment before
 * closing: closing a socket with unread data makes the kernel answer RST, which can destroy our answer
 * in the client's buffers before it reads it (the reason for nginx's lingering_close).
 */
function lingerThenClose(socket: Socket): void {
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.on("data", () => undefined);
  socket.once("end", () => socket.destroy());
  socket.once("close", () => clearTimeout(timer));
  socket.resume();
}
