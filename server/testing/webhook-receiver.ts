import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

/** What the receiver does with one request. */
export type Behaviour =
  | { status: number; body?: string; headers?: Record<string, string> }
  /** Accept the connection and never answer. */
  | { hang: true };

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body bytes as received, decoded as UTF-8. */
  body: string;
  receivedAt: number;
}

export interface TestReceiver {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Behaviours for the next requests, in order; after they run out, `fallback` answers. */
  respond(...behaviours: Behaviour[]): void;
  fallback: Behaviour;
  close(): Promise<void>;
}

/**
 * A real webhook receiver on loopback for tests and benchmarks: records every request's raw body and
 * headers, answers as scripted. With `tls` it serves HTTPS with the given key and certificate.
 */
export async function startTestReceiver(options: { tls?: { key: string; cert: string }; host?: string; /** Default: an ephemeral port. */ port?: number } = {}): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  const queue: Behaviour[] = [];
  const hanging = new Set<ServerResponse>();
  const receiver = {
    url: "",
    port: 0,
    requests,
    fallback: { status: 200, body: "ok" } as Behaviour,
    respond(...behaviours: Behaviour[]) {
      queue.push(...behaviours);
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const handler = (req: import("node:http").IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), receivedAt: Date.now() });
      const behaviour = queue.shift() ?? receiver.fallback;
      if ("hang" in behaviour) {
        hanging.add(res);
        return;
      }
      res.writeHead(behaviour.status, { "content-type": "text/plain", ...behaviour.headers });
      res.end(behaviour.body ?? "");
    });
  };
  const server: Server = options.tls ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler) : createServer(handler);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  receiver.port = port;
  receiver.url = `${options.tls ? "https" : "http"}://127.0.0.1:${port}`;
  return receiver;
}
