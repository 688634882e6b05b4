import { createHmac } from "node:crypto";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { verifyExpressRequest, verifyH3Event, verifyNodeRequest, verifyRequest, type VerifyRequestOptions } from "./adapters.ts";
import { isWebhookVerificationError } from "./errors.ts";

const SECRET = "whsec_adapter_test_secret_0123456789";
const event = { id: "evt_adapter", type: "ir21.operator.updated", note: "Telefónica 📶" };
const body = JSON.stringify(event);

function headersFor(rawBody: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    "content-type": "application/json",
    "x-ir21-event-id": event.id,
    "x-ir21-timestamp": String(timestamp),
    "x-ir21-signature": `v1=${createHmac("sha256", SECRET).update(`${timestamp}.${rawBody}`).digest("hex")}`,
  };
}

/** A real node:http server whose handler runs `verify` and answers with the outcome. */
async function receiver(verify: (req: IncomingMessage) => Promise<{ id: string }>) {
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const verified = await verify(req);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: verified.id }));
    } catch (error) {
      res.writeHead(isWebhookVerificationError(error) ? 400 : 500).end(isWebhookVerificationError(error) ? error.code : String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  /** POSTs `payload` in chunks (to exercise reassembly), with the given headers. */
  return (payload: Uint8Array | string, headers: Record<string, string>) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const bytes = typeof payload === "string" ? Buffer.from(payload) : Buffer.from(payload);
      const req = httpRequest({ host: "127.0.0.1", port, method: "POST", path: "/ir21", headers: { ...headers, "content-length": String(bytes.length) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString() }));
      });
      req.on("error", reject);
      for (let i = 0; i < bytes.length; i += 7) req.write(bytes.subarray(i, i + 7));
      req.end();
    });
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const options: VerifyRequestOptions = { secrets: SECRET };

describe("verifyNodeRequest over a real node:http server", () => {
  it("reassembles a chunked UTF-8 body and verifies it", async () => {
    const post = await receiver((req) => verifyNodeRequest(req, options));
    expect(await post(body, headersFor(body))).toEqual({ status: 200, text: JSON.stringify({ id: event.id }) });
  });

  it("refuses a tampered body and a body over maxBodyBytes", async () => {
    const post = await receiver((req) => verifyNodeRequest(req, { ...options, maxBodyBytes: 64 }));
    const big = JSON.stringify({ ...event, padding: "x".repeat(100) });
    expect(await post(big, headersFor(big))).toEqual({ status: 400, text: "MALFORMED_BODY" });
    const small = JSON.stringify({ id: event.id });
    expect(await post(small.replace("evt", "EVT"), headersFor(small))).toEqual({ status: 400, text: "SIGNATURE_MISMATCH" });
  });

  it("says so when the body was already consumed", async () => {
    const post = await receiver(async (req) => {
      for await (const _chunk of req);
      return verifyNodeRequest(req, options);
    });
    const answer = await post(body, headersFor(body));
    expect(answer.status).toBe(500);
    expect(answer.text).toContain("already read");
  });
});

describe("verifyRequest (Fetch API)", () => {
  const requestOf = (payload: string, headers: Record<string, string>) => new Request("https://receiver.example/ir21", { method: "POST", body: payload, headers });

  it("verifies a Request and refuses a used one", async () => {
    expect((await verifyRequest(requestOf(body, headersFor(body)), options)).id).toBe(event.id);
    const used = requestOf(body, headersFor(body));
    await used.text();
    await expect(verifyRequest(used, options)).rejects.toThrow(/already read/);
  });

  it("refuses a declared or actual body over maxBodyBytes before verifying", async () => {
    const error = await verifyRequest(requestOf(body, headersFor(body)), { ...options, maxBodyBytes: 10 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "MALFORMED_BODY" });
  });
});

describe("verifyH3Event and verifyExpressRequest on request-shaped objects", () => {
  it("takes event.req (h3 v2) or event.node.req (h3 v1)", async () => {
    const v2 = { req: new Request("https://r.example/", { method: "POST", body, headers: headersFor(body) }) };
    expect((await verifyH3Event(v2, options)).id).toBe(event.id);
    const post = await receiver((req) => verifyH3Event({ node: { req } }, options));
    expect((await post(body, headersFor(body))).status).toBe(200);
    await expect(verifyH3Event({} as never, options)).rejects.toThrow(TypeError);
  });

  it("takes a raw Buffer or string req.body, reads an unread stream, and refuses a parsed body", async () => {
    const headers = headersFor(body);
    expect((await verifyExpressRequest({ headers, body: Buffer.from(body) }, options)).id).toBe(event.id);
    expect((await verifyExpressRequest({ headers, body }, options)).id).toBe(event.id);
    await expect(verifyExpressRequest({ headers, body: JSON.parse(body) }, options)).rejects.toThrow(/express\.raw/);
    await expect(verifyExpressRequest({ headers, body: {} }, options)).rejects.toThrow(TypeError);
    const post = await receiver((req) => verifyExpressRequest(req, options));
    expect((await post(body, headersFor(body))).status).toBe(200);
  });
});
