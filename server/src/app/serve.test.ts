import { describe, expect, it } from "vitest";
import { request } from "node:http";
import { startTestServer } from "../../testing/index.ts";

/** A POST whose body is sent in two parts, so the request is in flight while we act. */
function slowPost(url: string, path: string, first: string, rest: string) {
  const target = new URL(path, url);
  let sendRest!: () => void;
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(first + rest) } },
      (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.write(first);
    sendRest = () => req.end(rest);
  });
  return { response, sendRest: () => sendRest() };
}

describe("graceful shutdown", () => {
  it("finishes in-flight requests, refuses new connections, then closes the database", async () => {
    const server = await startTestServer();
    const body = JSON.stringify({ name: "Drain Test", email: "d@example.com", company: "Drain Ltd", message: "Sent while the server stops." });
    const inflight = slowPost(server.url, "/contact", body.slice(0, 10), body.slice(10));
    await new Promise((r) => setTimeout(r, 100));

    const closing = server.close();
    await new Promise((r) => setTimeout(r, 50));
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();

    inflight.sendRest();
    const { status, body: text } = await inflight.response;
    expect(status).toBe(200);
    expect(JSON.parse(text).data.received).toBe(true);

    await closing;
    await expect(server.deps.db.selectFrom("contact_inquiries").selectAll().execute()).rejects.toThrow();
  });
});
