import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../testing/index.ts";

/**
 * The HTTP edge seen from a raw keep-alive connection (docs/architecture.md "The HTTP edge"): every
 * refusal carries the contract's error body, and after it the connection either serves the next
 * request or is closed — never left waiting.
 */
let server: TestServer;
let port: number;
beforeAll(async () => {
  server = await startTestServer();
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One keep-alive connection that parses the answers as they come (Content-Length or chunked bodies). */
class Connection {
  readonly socket: Socket;
  #buffer = Buffer.alloc(0);
  #waiting: Array<() => void> = [];
  closed = false;
  constructor(toPort = port) {
    this.socket = connect(toPort, "127.0.0.1");
    this.socket.on("data", (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#wake();
    });
    this.socket.on("error", () => undefined);
    this.socket.on("close", () => {
      this.closed = true;
      this.#wake();
    });
  }
  #wake() {
    for (const w of this.#waiting.splice(0)) w();
  }
  send(bytes: string | Buffer): void {
    this.socket.write(bytes);
  }
  #take(): RawResponse | null {
    const text = this.#buffer.toString("latin1");
    const headEnd = text.indexOf("\r\n\r\n");
    if (headEnd < 0) return null;
    const [statusLine, ...lines] = text.slice(0, headEnd).split("\r\n");
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
    let rest = text.slice(headEnd + 4);
    let body = "";
    if (headers["content-length"] !== undefined) {
      const length = Number(headers["content-length"]);
      if (rest.length < length) return null;
      body = rest.slice(0, length);
      rest = rest.slice(length);
    } else if (headers["transfer-encoding"] === "chunked") {
      for (;;) {
        const lineEnd = rest.indexOf("\r\n");
        if (lineEnd < 0) return null;
        const size = parseInt(rest.slice(0, lineEnd), 16);
        if (rest.length < lineEnd + 2 + size + 2) return null;
        body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
        rest = rest.slice(lineEnd + 2 + size + 2);
        if (size === 0) break;
      }
    }
    this.#buffer = Buffer.from(rest, "latin1");
    return { status: Number(statusLine!.split(" ")[1]), headers, body };
  }
  /** The next complete answer; fails when none arrives within `ms` (a hang becomes a failure, nothing is timed). */
  async next(ms = 1_000): Promise<RawResponse> {
    const deadline = Date.now() + ms;
    for (;;) {
      const response = this.#take();
      if (response) return response;
      if (this.closed) throw new Error("the connection was closed without an answer");
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answer within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
  async closedWithin(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    return this.closed;
  }
  close(): void {
    this.socket.destroy();
  }
}

const healthz = "GET /healthz HTTP/1.1\r\nHost: ir21\r\n\r\n";
const post = (path: string, body: Buffer, extra = "") =>
  Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nHost: ir21\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${extra}\r\n`), body]);

function expectErrorBody(response: RawResponse, code: string) {
  const body = JSON.parse(response.body);
  expect(Object.keys(body).sort()).toEqual(["code", "message", "request_id"]);
  expect(body.code).toBe(code);
  expect(body.request_id).toMatch(/^req_/);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
}

describe("413: an oversize body on a keep-alive connection", () => {
  it("is answered with the error body, and the next request on the same connection within 1 s", async () => {
    const connection = new Connection();
    try {
      const limit = server.deps.config.bodyLimitBytes;
      connection.send(post("/contact", Buffer.alloc(limit * 3, "a")));
      const refused = await connection.next();
      expect(refused.status).toBe(413);
      expectErrorBody(refused, "PAYLOAD_TOO_LARGE");
      connection.send(healthz);
      expect((await connection.next()).status).toBe(200);
    } finally {
      connection.close();
    }
  });

  it("the same for a chunked body that grows past the limit while it is read", async () => {
    const connection = new Connection();
    try {
      const chunk = Buffer.alloc(server.deps.config.bodyLimitBytes * 2, "a");
      connection.send(Buffer.concat([Buffer.from(`POST /contact HTTP/1.1\r\nHost: ir21\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n0\r\n\r\n")]));
      const refused = await connection.next();
      expect(refused.status).toBe(413);
      expectErrorBody(refused, "PAYLOAD_TOO_LARGE");
      connection.send(healthz);
      expect((await connection.next()).status).toBe(200);
    } finally {
      connection.close();
    }
  });

  it("any answer given before the body was read leaves the connection usable (a POST to an unknown path)", async () => {
    const connection = new Connection();
    try {
      connection.send(post("/no/such/route", Buffer.alloc(60_000, "a")));
      const missing = await connection.next();
      expect(missing.status).toBe(404);
      expectErrorBody(missing, "NOT_FOUND");
      connection.send(healthz);
      expect((await connection.next()).status).toBe(200);
    } finally {
      connection.close();
    }
  });

  it("a declared body too large to discard is answered with Connection: close, and the connection closes", async () => {
    const connection = new Connection();
    try {
      connection.send(`POST /contact HTTP/1.1\r\nHost: ir21\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n`);
      connection.send(Buffer.alloc(32 * 1024, "a"));
      const refused = await connection.next();
      expect(refused.status).toBe(413);
      expect(refused.headers.connection).toBe("close");
      expectErrorBody(refused, "PAYLOAD_TOO_LARGE");
      expect(await connection.closedWithin(1_000)).toBe(true);
    } finally {
      connection.close();
    }
  });

  it("node's fetch: an oversize POST, then a request on the same pool, both answered", async () => {
    const refused = await server.json("/contact", { method: "POST", body: JSON.stringify({ message: "x".repeat(300_000) }) });
    expect(refused.status).toBe(413);
    expect(refused.body.code).toBe("PAYLOAD_TOO_LARGE");
    const next = await server.json("/healthz");
    expect(next.status).toBe(200);
  });
});

describe("a body cut short by the app's reader, then discarded within the drain limits (issue 31)", () => {
  // Short limits so the limits' timer runs within the test; the server must outlive it.
  const drainLimits = { maxBytes: 256 * 1024, maxMs: 300 };
  let drained: TestServer;
  let drainedPort: number;
  beforeAll(async () => {
    drained = await startTestServer({ drainLimits });
    drainedPort = Number(new URL(drained.url).port);
  });
  afterAll(() => drained.close());
  const chunkedHead = "POST /contact HTTP/1.1\r\nHost: ir21\r\nContent-Type: application/json\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n";
  const overLimit = () => Buffer.alloc(drained.deps.config.bodyLimitBytes * 3, "a");
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("a whole chunked body over the limit: 413, and the connection still serves after the limits' timer has run", async () => {
    const connection = new Connection(drainedPort);
    try {
      const chunk = overLimit();
      connection.send(Buffer.concat([Buffer.from(`${chunkedHead}${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n0\r\n\r\n")]));
      const refused = await connection.next();
      expect(refused.status).toBe(413);
      expectErrorBody(refused, "PAYLOAD_TOO_LARGE");
      await sleep(drainLimits.maxMs * 3);
      expect(connection.closed).toBe(false);
      connection.send(healthz);
      expect((await connection.next()).status).toBe(200);
    } finally {
      connection.close();
    }
  });

  it("a chunked body over the limit that never ends: 413, the connection closes at the time limit, the server goes on", async () => {
    const connection = new Connection(drainedPort);
    try {
      const chunk = overLimit();
      // One chunk declared larger than what is sent: the body stays unfinished.
      connection.send(Buffer.concat([Buffer.from(`${chunkedHead}${(chunk.length * 2).toString(16)}\r\n`), chunk]));
      const refused = await connection.next();
      expect(refused.status).toBe(413);
      expect(await connection.closedWithin(drainLimits.maxMs * 10)).toBe(true);
      expect((await drained.json("/healthz")).status).toBe(200);
    } finally {
      connection.close();
    }
  });

  it("a chunked body larger than the discard limit: the connection closes, the server goes on", async () => {
    const connection = new Connection(drainedPort);
    try {
      const chunk = overLimit();
      connection.send(Buffer.concat([Buffer.from(`${chunkedHead}${(16 * 1024 * 1024).toString(16)}\r\n`), chunk]));
      expect((await connection.next()).status).toBe(413);
      // Keep sending past maxBytes, slowly enough for the limits' check to see it.
      for (let sent = 0; sent < drainLimits.maxBytes * 2 && !connection.closed; sent += 64 * 1024) {
        connection.send(Buffer.alloc(64 * 1024, "b"));
        await sleep(30);
      }
      expect(await connection.closedWithin(drainLimits.maxMs * 10)).toBe(true);
      expect((await drained.json("/healthz")).status).toBe(200);
    } finally {
      connection.close();
    }
  });
});

describe("methods node hands over without a request", () => {
  it("CONNECT is answered 405 with the error body, then the connection closes", async () => {
    const connection = new Connection();
    try {
      connection.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
      const refused = await connection.next();
      expect(refused.status).toBe(405);
      expect(refused.headers.connection).toBe("close");
      expectErrorBody(refused, "METHOD_NOT_ALLOWED");
      expect(await connection.closedWithin(2_000)).toBe(true);
    } finally {
      connection.close();
    }
  });

  it("a request with an Upgrade header is an ordinary request", async () => {
    const connection = new Connection();
    try {
      connection.send("GET /healthz HTTP/1.1\r\nHost: ir21\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
      expect((await connection.next()).status).toBe(200);
    } finally {
      connection.close();
    }
  });
});

describe("refusals node makes before the app", () => {
  it("431 for a 20 KB request path: the error body, Connection: close, then the connection closes", async () => {
    const connection = new Connection();
    try {
      connection.send(`GET /${"a".repeat(20 * 1024)} HTTP/1.1\r\nHost: ir21\r\n\r\n`);
      const refused = await connection.next();
      expect(refused.status).toBe(431);
      expect(refused.headers.connection).toBe("close");
      expectErrorBody(refused, "HEADERS_TOO_LARGE");
      expect(await connection.closedWithin(2_000)).toBe(true);
    } finally {
      connection.close();
    }
  });

  it("431 also for one oversized header, after earlier requests on the connection", async () => {
    const connection = new Connection();
    try {
      connection.send(healthz);
      expect((await connection.next()).status).toBe(200);
      connection.send(`GET /healthz HTTP/1.1\r\nHost: ir21\r\nX-Filler: ${"b".repeat(20 * 1024)}\r\n\r\n`);
      const refused = await connection.next();
      expect(refused.status).toBe(431);
      expectErrorBody(refused, "HEADERS_TOO_LARGE");
    } finally {
      connection.close();
    }
  });

  it("400 with the error body for an HTTP/1.1 request without Host, then the connection closes (found by tests/edge)", async () => {
    const connection = new Connection();
    try {
      connection.send("GET /healthz HTTP/1.1\r\n\r\n");
      const refused = await connection.next();
      expect(refused.status).toBe(400);
      expect(refused.headers.connection).toBe("close");
      expectErrorBody(refused, "INVALID_REQUEST");
      expect(await connection.closedWithin(2_000)).toBe(true);
    } finally {
      connection.close();
    }
  });

  it("an HTTP/1.0 request without Host is served (Host is an HTTP/1.1 requirement)", async () => {
    const connection = new Connection();
    try {
      connection.send("GET /healthz HTTP/1.0\r\n\r\n");
      expect((await connection.next()).status).toBe(200);
    } finally {
      connection.close();
    }
  });

  it("an Expect other than 100-continue is ignored and the request served, where node answered an empty 417 (found by tests/edge)", async () => {
    const connection = new Connection();
    try {
      connection.send("GET /healthz HTTP/1.1\r\nHost: ir21\r\nExpect: something-else\r\n\r\n");
      expect((await connection.next()).status).toBe(200);
      connection.send(post("/contact", Buffer.from("{"), "Expect: 200-ok\r\n"));
      expectErrorBody(await connection.next(), "MALFORMED_JSON");
    } finally {
      connection.close();
    }
  });

  it("400 with the error body for bytes that are not HTTP", async () => {
    const connection = new Connection();
    try {
      connection.send("HELLO THERE\r\n\r\n");
      const refused = await connection.next();
      expect(refused.status).toBe(400);
      expectErrorBody(refused, "INVALID_REQUEST");
      expect(await connection.closedWithin(2_000)).toBe(true);
    } finally {
      connection.close();
    }
  });
});

describe("Expect: 100-continue on a pipelined request (found by tests/edge)", () => {
  let withData: TestServer;
  beforeAll(async () => {
    withData = await startTestServer({ dataset: "demo" });
  });
  afterAll(() => withData.close());

  it("its 100 Continue comes before its answer or not at all, never inside it", async () => {
    const connection = new Connection(Number(new URL(withData.url).port));
    try {
      // Node buffered the second request's 100 while the first was answered, and the lookup lane's
      // Buffer body then put the answer's headers ahead of it: "200 …headers… 100 Continue …body".
      connection.send(`${healthz}GET /v1/lookup?number=%2B8613800138000 HTTP/1.1\r\nHost: ir21\r\nExpect: 100-continue\r\n\r\n`);
      // The first lookup builds the dataset's index, before either answer goes out: seconds on a loaded machine.
      expect((await connection.next(15_000)).status).toBe(200);
      let lookup = await connection.next(15_000);
      if (lookup.status === 100) lookup = await connection.next(15_000);
      expect(lookup.status).toBe(200);
      expect(JSON.parse(lookup.body)).toMatchObject({ code: 0 });
    } finally {
      connection.close();
    }
  });
});
