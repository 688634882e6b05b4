import { IncomingMessage, ServerResponse, STATUS_CODES } from "node:http";

/**
 * node's response, writing the standard reason phrase (`200 OK`, `404 Not Found`) where the writer
 * gives an empty one. srvx writes the status text of the web `Response` h3 answers with, which is ""
 * unless a handler sets it, so every answer of the app went out as `HTTP/1.1 200 ` with nothing after
 * the code: valid HTTP/1.1, but clients show a bare code (`ir21 api` printed `HTTP 200`, `fetch`'s
 * `statusText` was empty). The server is created with it (`serve.ts`), so the app's answers and the
 * lookup's own lane (catalog/routes/on-node.ts) have one status line.
 * @example
 * createServer({ ServerResponse: ReasonPhraseResponse }, handler);
 */
export class ReasonPhraseResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  override writeHead(statusCode: number, reason?: unknown, headers?: unknown): this {
    // writeHead(code, headers) passes its headers as `reason`: node tells the two forms apart itself.
    return super.writeHead(statusCode, (reason === "" ? (STATUS_CODES[statusCode] ?? "") : reason) as never, headers as never);
  }
}
