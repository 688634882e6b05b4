import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DestinationAgents } from "./agents.ts";
import { sendWebhook } from "./sender.ts";
import { startTestReceiver, type TestReceiver } from "../../../testing/webhook-receiver.ts";
import { createUrlPolicy, type HostResolver } from "../subscriptions/url-policy.ts";

const loopback: HostResolver = async () => [{ address: "127.0.0.1", family: 4 }];
const allowLocal = createUrlPolicy(["127.0.0.1", "localhost"], loopback);
const payload = { headers: { "X-IR21-Event-Id": "evt_test" }, body: '{"id":"evt_test","name":"西班牙电信"}' };

let receiver: TestReceiver;
beforeAll(async () => {
  receiver = await startTestReceiver();
});
afterAll(() => receiver.close());
afterEach(() => {
  receiver.requests.length = 0;
  receiver.fallback = { status: 200, body: "ok" };
});

describe("sendWebhook", () => {
  it("POSTs the exact body bytes with the given headers and JSON content type", async () => {
    const result = await sendWebhook({ url: `${receiver.url}/hook?x=1`, ...payload }, { policy: allowLocal });
    expect(result).toMatchObject({ status: 200, errorCode: null, error: null, responseExcerpt: "ok" });
    expect(receiver.requests).toHaveLength(1);
    const [req] = receiver.requests;
    expect(req!.path).toBe("/hook?x=1");
    expect(req!.body).toBe(payload.body);
    expect(req!.headers["x-ir21-event-id"]).toBe("evt_test");
    expect(req!.headers["content-type"]).toBe("application/json");
    expect(req!.headers["content-length"]).toBe(String(Buffer.byteLength(payload.body)));
  });

  it("the default policy (no allowlist) refuses the same local receiver, which never sees a request", async () => {
    const strict = createUrlPolicy([], loopback);
    const http = await sendWebhook({ url: `${receiver.url}/hook`, ...payload }, { policy: strict });
    expect(http).toMatchObject({ status: null, errorCode: "ssrf_blocked" });
    const https = await sendWebhook({ url: `https://127.0.0.1:${receiver.port}/hook`, ...payload }, { policy: strict });
    expect(https).toMatchObject({ status: null, errorCode: "ssrf_blocked" });
    expect(receiver.requests).toHaveLength(0);
  });

  it("DNS rebinding: a name that resolved publicly at save time but privately now is refused at connect time", async () => {
    let answer = "93.184.215.14";
    const rebinding: HostResolver = async () => [{ address: answer, family: 4 }];
    const policy = createUrlPolicy([], rebinding);
    answer = "127.0.0.1";
    const result = await sendWebhook({ url: `https://hooks.example.com:${receiver.port}/hook`, ...payload }, { policy });
    expect(result.errorCode).toBe("ssrf_blocked");
    expect(result.error).toMatch(/loopback/);
    expect(receiver.requests).toHaveLength(0);
  });

  it.each([
    ["loopback", ["127.0.0.1"]],
    ["IPv6 loopback", ["::1"]],
    ["IPv4-mapped loopback", ["::ffff:127.0.0.1"]],
    ["private", ["10.0.0.5"]],
    ["the metadata address", ["169.254.169.254"]],
    ["the IPv6 metadata address", ["fd00:ec2::254"]],
    ["CGNAT", ["100.64.1.1"]],
    ["NAT64 of loopback", ["64:ff9b::7f00:1"]],
    ["a public and a private address", ["93.184.215.14", "127.0.0.1"]],
  ])("send time: refuses a host that now resolves to %s", async (_label, answers) => {
    const policy = createUrlPolicy([], async () => answers.map((address) => ({ address, family: address.includes(":") ? (6 as const) : (4 as const) })));
    const result = await sendWebhook({ url: `https://hooks.example.com:${receiver.port}/hook`, ...payload }, { policy });
    expect(result).toMatchObject({ status: null, errorCode: "ssrf_blocked" });
    expect(receiver.requests).toHaveLength(0);
  });

  it.each(["https://127.1:1/x", "https://0x7f.0.0.1:1/x", "https://2130706433:1/x", "https://[::ffff:7f00:1]:1/x", "https://169.254.169.254/latest/meta-data/"])(
    "send time: refuses the IP literal %s without resolving anything",
    async (url) => {
      let resolved = false;
      const policy = createUrlPolicy([], async () => {
        resolved = true;
        return [{ address: "93.184.215.14", family: 4 }];
      });
      const result = await sendWebhook({ url, ...payload }, { policy });
      expect(result.errorCode).toBe("ssrf_blocked");
      expect(resolved).toBe(false);
    },
  );

  it("connects only to the vetted address, never re-resolving (the resolver is asked once)", async () => {
    let calls = 0;
    const counting: HostResolver = async () => {
      calls++;
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const result = await sendWebhook({ url: `http://localhost:${receiver.port}/pinned`, ...payload }, { policy: createUrlPolicy(["localhost"], counting) });
    expect(result.status).toBe(200);
    expect(calls).toBe(1);
    expect(receiver.requests[0]!.headers.host).toBe(`localhost:${receiver.port}`);
  });

  it.each([301, 302, 307, 308])("does not follow a %i redirect; records it as a failure", async (status) => {
    receiver.respond({ status, headers: { location: `${receiver.url}/elsewhere` } });
    const result = await sendWebhook({ url: `${receiver.url}/hook`, ...payload }, { policy: allowLocal });
    expect(result).toMatchObject({ status, errorCode: "redirect_not_followed" });
    expect(result.error).toContain("/elsewhere");
    expect(receiver.requests.map((r) => r.path)).toEqual(["/hook"]);
  });

  it("times out a receiver that never answers", async () => {
    receiver.respond({ hang: true });
    const result = await sendWebhook({ url: `${receiver.url}/hang`, ...payload }, { policy: allowLocal, limits: { totalTimeoutMs: 300 } });
    expect(result).toMatchObject({ status: null, errorCode: "timeout" });
    expect(result.durationMs).toBeGreaterThanOrEqual(250);
  });

  it("reads at most maxResponseBytes of a large response", async () => {
    receiver.respond({ status: 500, body: "x".repeat(1_000_000) });
    const result = await sendWebhook({ url: `${receiver.url}/big`, ...payload }, { policy: allowLocal, limits: { maxResponseBytes: 1024 } });
    expect(result).toMatchObject({ status: 500, errorCode: "http_status", error: "http_status: HTTP 500" });
    expect(result.responseExcerpt).toHaveLength(1024);
  });

  it("passes Retry-After through and reports a refused connection", async () => {
    receiver.respond({ status: 429, headers: { "retry-after": "120" } });
    expect(await sendWebhook({ url: `${receiver.url}/busy`, ...payload }, { policy: allowLocal })).toMatchObject({ status: 429, retryAfter: "120" });
    const closed = await startTestReceiver();
    const port = closed.port;
    await closed.close();
    const refused = await sendWebhook({ url: `http://127.0.0.1:${port}/`, ...payload }, { policy: allowLocal });
    expect(refused).toMatchObject({ status: null, errorCode: "connection" });
  });

  it("ignores proxy environment variables", async () => {
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, HTTPS_PROXY: process.env.HTTPS_PROXY };
    process.env.HTTP_PROXY = "http://127.0.0.1:9";
    process.env.HTTPS_PROXY = "http://127.0.0.1:9";
    try {
      const result = await sendWebhook({ url: `${receiver.url}/direct`, ...payload }, { policy: allowLocal });
      expect(result.status).toBe(200);
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
});

describe("sendWebhook over HTTPS", () => {
  let dir: string;
  let tls: { key: string; cert: string };
  let secure: TestReceiver;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ir21-tls-"));
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" });
    tls = { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
    secure = await startTestReceiver({ tls });
  });
  afterAll(async () => {
    await secure.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("connects to the pinned address while verifying the certificate against the host name (SNI)", async () => {
    const result = await sendWebhook({ url: `https://localhost:${secure.port}/tls`, ...payload }, { policy: allowLocal, ca: tls.cert });
    expect(result).toMatchObject({ status: 200, errorCode: null });
    expect(secure.requests[0]!.body).toBe(payload.body);
  });

  it("fails with a TLS error when the certificate is not for the URL's host", async () => {
    const policy = createUrlPolicy(["other.test"], loopback);
    const result = await sendWebhook({ url: `https://other.test:${secure.port}/tls`, ...payload }, { policy, ca: tls.cert });
    expect(result).toMatchObject({ status: null, errorCode: "tls" });
  });

  it("fails with a TLS error for an untrusted certificate", async () => {
    const result = await sendWebhook({ url: `https://localhost:${secure.port}/tls`, ...payload }, { policy: allowLocal });
    expect(result).toMatchObject({ status: null, errorCode: "tls" });
  });
});

describe("sendWebhook over keep-alive pools (agents.ts)", () => {
  /** A receiver that counts connections; `onRequest` answers (or not) each request with its index on its connection. */
  async function countingReceiver(onRequest: (req: IncomingMessage, res: ServerResponse, nthOnSocket: number) => void) {
    let connections = 0;
    const perSocket = new WeakMap<object, number>();
    const server = createServer((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      req.resume();
      req.on("end", () => onRequest(req, res, n));
    });
    server.on("connection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      get connections() {
        return connections;
      },
      close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
    };
  }

  it("reuses one connection for successive deliveries to one origin, and keeps the answer of each", async () => {
    const target = await countingReceiver((_req, res, n) => res.end(`answer ${n}`));
    const agents = new DestinationAgents({ maxSocketsPerOrigin: 4 });
    try {
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await sendWebhook({ url: `${target.url}/hook`, ...payload }, { policy: allowLocal, agents }));
      expect(results.map((r) => [r.status, r.responseExcerpt])).toEqual([1, 2, 3, 4, 5].map((n) => [200, `answer ${n}`]));
      expect(target.connections).toBe(1);
      // Control: without the pools every delivery opens its own connection.
      for (let i = 0; i < 3; i++) expect((await sendWebhook({ url: `${target.url}/hook`, ...payload }, { policy: allowLocal })).status).toBe(200);
      expect(target.connections).toBe(4);
    } finally {
      agents.destroy();
      await target.close();
    }
  });

  it("never opens more than its bound of connections to one origin", async () => {
    const target = await countingReceiver((_req, res) => setTimeout(() => res.end("ok"), 30));
    const agents = new DestinationAgents({ maxSocketsPerOrigin: 2 });
    try {
      const results = await Promise.all(Array.from({ length: 8 }, () => sendWebhook({ url: `${target.url}/hook`, ...payload }, { policy: allowLocal, agents })));
      expect(results.every((r) => r.status === 200)).toBe(true);
      expect(target.connections).toBe(2);
    } finally {
      agents.destroy();
      await target.close();
    }
  });

  it("a reused connection is not held to the connect timeout", async () => {
    const target = await countingReceiver((_req, res) => setTimeout(() => res.end("slow but fine"), 250));
    const agents = new DestinationAgents({ maxSocketsPerOrigin: 2 });
    try {
      const options = { policy: allowLocal, agents, limits: { connectTimeoutMs: 100 } };
      expect((await sendWebhook({ url: `${target.url}/a`, ...payload }, options)).status).toBe(200);
      const again = await sendWebhook({ url: `${target.url}/b`, ...payload }, options);
      expect(again).toMatchObject({ status: 200, error: null, responseExcerpt: "slow but fine" });
      expect(target.connections).toBe(1);
    } finally {
      agents.destroy();
      await target.close();
    }
  });

  it("a kept-alive connection the receiver drops on reuse is replaced once, and the delivery still arrives", async () => {
    let requests = 0;
    // The second request on any connection finds it closed (a receiver's idle timeout firing just then).
    const target = await countingReceiver((req, res, n) => {
      requests++;
      if (n >= 2) req.socket.destroy();
      else res.end("ok");
    });
    const agents = new DestinationAgents({ maxSocketsPerOrigin: 2 });
    try {
      expect((await sendWebhook({ url: `${target.url}/a`, ...payload }, { policy: allowLocal, agents })).status).toBe(200);
      const second = await sendWebhook({ url: `${target.url}/b`, ...payload }, { policy: allowLocal, agents });
      expect(second).toMatchObject({ status: 200, error: null });
      expect(requests).toBe(3);
      expect(target.connections).toBe(2);
    } finally {
      agents.destroy();
      await target.close();
    }
  });

  it("a response cut off after the excerpt drops its connection instead of returning it to the pool", async () => {
    const big = "x".repeat(64 * 1024);
    const target = await countingReceiver((_req, res) => res.end(big));
    const agents = new DestinationAgents({ maxSocketsPerOrigin: 2 });
    try {
      const first = await sendWebhook({ url: `${target.url}/big`, ...payload }, { policy: allowLocal, agents, limits: { maxResponseBytes: 1024 } });
      expect(first).toMatchObject({ status: 200, responseTruncated: true });
      expect((await sendWebhook({ url: `${target.url}/big`, ...payload }, { policy: allowLocal, agents, limits: { maxResponseBytes: 1024 } })).status).toBe(200);
      expect(target.connections).toBe(2);
    } finally {
      agents.destroy();
      await target.close();
    }
  });
});
