import { afterEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../testing/index.ts";

const inquiry = { name: "Proxy Test", email: "p@example.com", company: "Proxy Ltd", message: "Which address do you record for me?" };
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function recordedIp(s: TestServer, forwardedFor: string | null): Promise<string | null> {
  const headers: Record<string, string> = forwardedFor === null ? {} : { "x-forwarded-for": forwardedFor };
  const { status, body } = await s.json("/contact", { method: "POST", body: inquiry, headers });
  expect(status).toBe(200);
  const row = await s.deps.db.selectFrom("contact_inquiries").select("ip").where("id", "=", body.data.id).executeTakeFirstOrThrow();
  return row.ip;
}

describe("client address", () => {
  it("ignores X-Forwarded-For unless TRUST_PROXY is set", async () => {
    server = await startTestServer();
    expect(await recordedIp(server, "203.0.113.7")).toBe("127.0.0.1");
  });

  it("behind a trusted proxy takes the entry the proxy appended, not the client's forged ones", async () => {
    server = await startTestServer({ env: { TRUST_PROXY: "true" } });
    expect(await recordedIp(server, "1.1.1.1, 198.51.100.9")).toBe("198.51.100.9");
    expect(await recordedIp(server, "203.0.113.7")).toBe("203.0.113.7");
    expect(await recordedIp(server, null)).toBe("127.0.0.1");
    expect(await recordedIp(server, "2001:db8::7")).toBe("2001:db8::7");
    // Not an address (a misconfigured proxy, or none): the connection's address, never the text.
    expect(await recordedIp(server, `198.51.100.9, ${"x".repeat(100)}`)).toBe("127.0.0.1");
    expect(await recordedIp(server, "198.51.100.9:4711")).toBe("127.0.0.1");
  });
});
