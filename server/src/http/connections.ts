import { VERSION_LABEL } from "../version.ts";
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
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
 *   `Connection: close`, and a graceful close, where node wrote an empty body. So do the two refusals
 *   node makes with a request in hand: an HTTP/1.1 request without Host ({@link refuseWithoutHost}) and
 *   an `Expect` other than `100-continue` (417, which the contract has no code for: such an
 *   expectation is ignored, as RFC 9110 allows, and the request served).
 * - **`Expect: 100-continue` on a pipelined request**: its `100 Continue` is written when its answer's
 *   turn comes ({@link continueInTurn}), not into the middle of that answer.
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
 * Installs the edge on `server`: call once, after creating it with the app's handler.
 * @example
 * const server = createServer(handler);
 * guardConnections(server, { bodyLimitBytes: 65536 });
 */
export function guardConnections(server: Server, options: { bodyLimitBytes: number; drain?: DrainLimits }): void {
  const drain = options.drain ?? DEFAULT_DRAIN_LIMITS;
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    // Taken now: by the time the answer finishes, `req.socket` may be null. When the web-stream bridge
    // cancels a body it read in part (a chunked body over the limit), node's stream `destroyer` detaches
    // the request from its socket so that the socket, and the keep-alive connection, survive.
    const socket = req.socket;
    // No body (neither header: RFC 9112 §6.3 says its length is zero), nothing to discard: such a
    // request, every GET a client sends, costs no listener (docs/performance.md "Lookup, sixth pass").
    if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) return;
    const declared = Number(req.headers["content-length"] ?? 0);
    // Too large to discard: say so now, so the client does not send its next request on this one.
    if (declared > options.bodyLimitBytes + drain.maxBytes) res.setHeader("connection", "close");
    res.once(
      "finish",
      onConnection(socket, () => {
        if (!req.complete && !res.getHeader("connection")?.toString().toLowerCase().includes("close")) discardRest(req, socket, drain);
      }),
    );
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => onConnection(socket, () => answerClientError(error, socket))());
  // Without a listener node answers an unknown expectation itself: 417 with an empty body.
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => server.emit("request", req, res));
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    continueInTurn(req, res);
    server.emit("request", req, res);
  });
  // CONNECT never reaches the request handler: node hands over the raw socket, and with no listener
  // closes it without a word. (A request with an Upgrade header is a plain request while no 'upgrade'
  // listener exists, so the app answers it; none is installed.)
  server.on("connect", (req: IncomingMessage, socket: Socket) => onConnection(socket, () => refuseTunnel(req, socket))());
}

/**
 * A callback of one connection that may run after its request is gone (a timer, a stream event): if
 * it throws, that connection ends and the process goes on. Every callback of the edge is made with it,
 * so a wrong assumption about what is still attached costs a connection, never the server.
 */
function onConnection<A extends unknown[]>(socket: Socket | null, callback: (...args: A) => void): (...args: A) => void {
  return (...args: A) => {
    try {
      callback(...args);
    } catch {
      socket?.destroy();
    }
  };
}

/** How often a body being discarded is checked against its limits. */
const DISCARD_CHECK_MS = 50;

/**
 * Reads the rest of an unread request body and throws it away, within the limits; closes otherwise.
 * This is node's own discard (`IncomingMessage#_dump`, what it does itself for a body no handler
 * touched): the parser drops the body's further chunks instead of pushing them into a stream nobody
 * drains. Pushing into the abandoned stream, or into one the bridge cancelled, stops the socket's
 * reads, and the connection then hangs until it is cut. Progress is the socket's byte count and the end
 * is `req.complete`, which the parser sets either way.
 */
function discardRest(req: IncomingMessage, socket: Socket, limits: DrainLimits): void {
  if (socket.destroyed) return;
  (req as IncomingMessage & { _dump(): void })._dump();
  if (socket.isPaused()) socket.resume();
  const startedAt = performance.now();
  const startedBytes = socket.bytesRead;
  const check = setInterval(
    onConnection(socket, () => {
      if (req.complete || socket.destroyed) return clearInterval(check);
      if (socket.bytesRead - startedBytes > limits.maxBytes || performance.now() - startedAt > limits.maxMs) {
        clearInterval(check);
        socket.destroy();
      }
    }),
    DISCARD_CHECK_MS,
  );
  check.unref();
  socket.once("close", () => clearInterval(check));
}

/**
 * Wraps the server's request handler: an HTTP/1.1 request without a Host header is refused with 400
 * and the error body (RFC 9112 §3.2 requires the 400; node's own, on by default, has an empty body).
 * The server must be created with `requireHostHeader: false` for the request to get here.
 * @example
 * const server = createServer({ requireHostHeader: false }, refuseWithoutHost(handler));
 */
export function refuseWithoutHost(handler: RequestListener): RequestListener {
  return (req, res) => {
    if (req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined) {
      answerError(res, "INVALID_REQUEST", "An HTTP/1.1 request needs a Host header.");
      return;
    }
    handler(req, res);
  };
}

/** An error answer through node's response, for refusals made before the app, then the connection closes. */
function answerError(res: ServerResponse, code: ErrorCode, message: string): void {
  const body: ErrorBody = { code, message, request_id: newId("req") };
  const json = JSON.stringify(body);
  res.writeHead(ERROR_CODES[code].status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(json),
    "cache-control": "no-store",
    "x-request-id": body.request_id,
    "x-ir21-version": VERSION_LABEL,
    connection: "close",
  });
  res.end(json);
}

/**
 * `100 Continue` when the answer's turn on the connection comes. Node writes it as soon as it parses
 * the request; for a pipelined request still queued behind an earlier answer it buffers it, and an
 * answer written as a Buffer then puts its headers ahead of it (`OutgoingMessage#_send` unshifts
 * them), so the client read `200 …headers… 100 Continue …body`: a broken stream. When the answer has
 * begun by its turn, no 100 is sent (RFC 9110 allows that; node then closes after the answer, as the
 * client may still send the body).
 */
function continueInTurn(req: IncomingMessage, res: ServerResponse): void {
  const now = onConnection(req.socket, () => {
    if (!res.headersSent && !res.writableEnded) res.writeContinue();
  });
  if (res.socket) now();
  else res.once("socket", now);
}

/** CONNECT: a 405 with the error body, then the connection closes. */
function refuseTunnel(req: IncomingMessage, socket: Socket): void {
  answerRaw(socket, "METHOD_NOT_ALLOWED", "Method Not Allowed", `${req.method ?? "This method"} is not served here; the API speaks plain HTTP requests.`);
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
  const code = error.code ?? "";
  const refusal = CLIENT_ERRORS[code] ?? (code.startsWith("HPE_") ? NOT_HTTP : null);
  // As node itself: answer only if the socket can take it and no answer has started on it.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!refusal || !socket.writable || inFlight?.headersSent) {
    answered.add(socket);
    socket.destroy();
    return;
  }
  answerRaw(socket, refusal.code, refusal.reason, refusal.message);
}

/** Writes one error answer straight to the socket (no request object exists), then closes it gently. */
function answerRaw(socket: Socket, code: ErrorCode, reason: string, message: string): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body: ErrorBody = { code, message, request_id: newId("req") };
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${ERROR_CODES[code].status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
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
  socket.on("error", () => undefined);
  socket.on("data", () => undefined);
  socket.once("end", () => socket.destroy());
  socket.once("close", () => clearTimeout(timer));
  socket.resume();
}
