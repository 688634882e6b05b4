import { afterAll, beforeAll, describe, expect, it } from "vitest";
import superjson from "superjson";
import { signIn, startTestServer, type TestServer } from "../../testing/index.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const inquiry = { name: "Li Wei", email: "li.wei@example.com", company: "Example Roaming Ltd", message: "We would like an enterprise quote for 10M lookups a month." };

describe("POST /contact", () => {
  it("stores the inquiry and answers {id, received: true} in the envelope", async () => {
    const { status, headers, body } = await server.json("/contact", { method: "POST", body: inquiry });
    expect(status).toBe(200);
    expect(headers.get("cache-control")).toBe("no-store");
    expect(body.code).toBe(0);
    expect(body.data).toEqual({ id: expect.stringMatching(/^inq_/), received: true });
    const row = await server.deps.db.selectFrom("contact_inquiries").selectAll().where("id", "=", body.data.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ ...inquiry, user_id: null, ip: "127.0.0.1", created_at: server.clock.now().getTime() });
  });

  it("attaches the account when signed in; a stale cookie does not block an anonymous inquiry", async () => {
    const alice = await signIn(server);
    const signedIn = await server.json("/contact", { method: "POST", headers: alice.headers, body: inquiry });
    expect(signedIn.status).toBe(200);
    const row = await server.deps.db.selectFrom("contact_inquiries").select("user_id").where("id", "=", signedIn.body.data.id).executeTakeFirstOrThrow();
    expect(row.user_id).toBe(alice.userId);

    await server.json("/auth/logout", { method: "POST", headers: alice.headers });
    for (const cookie of [alice.cookie, "ir21_session=tampered"]) {
      const stale = await server.json("/contact", { method: "POST", headers: { cookie }, body: inquiry });
      expect(stale.status).toBe(200);
      const stored = await server.deps.db.selectFrom("contact_inquiries").select("user_id").where("id", "=", stale.body.data.id).executeTakeFirstOrThrow();
      expect(stored.user_id).toBeNull();
    }
  });

  it("is the same procedure over tRPC, with the same validation", async () => {
    const ok = await server.fetch("/trpc/contact.submit", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(superjson.serialize({ ...inquiry, company: "Via tRPC Ltd" })),
    });
    expect(ok.status).toBe(200);
    const result = superjson.deserialize<{ id: string; received: true }>((await ok.json()).result.data);
    expect(result).toEqual({ id: expect.stringMatching(/^inq_/), received: true });
    const stored = await server.deps.db.selectFrom("contact_inquiries").select("company").where("id", "=", result.id).executeTakeFirstOrThrow();
    expect(stored.company).toBe("Via tRPC Ltd");
  });

  it.each([
    ["missing name", { ...inquiry, name: undefined }, /^name: /],
    ["empty company", { ...inquiry, company: "   " }, /^company: /],
    ["bad email", { ...inquiry, email: "not-an-email" }, /^email: /],
    ["message too short", { ...inquiry, message: "hi" }, /^message: /],
    ["message too long", { ...inquiry, message: "x".repeat(5001) }, /^message: /],
    ["unknown field", { ...inquiry, phone: "13812345678" }, /phone/],
  ])("400 for %s, and nothing stored", async (_label, payload, message) => {
    const before = await server.deps.db.selectFrom("contact_inquiries").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    const { status, body } = await server.json("/contact", { method: "POST", body: payload });
    expect(status).toBe(400);
    expect(body.code).toBe("INVALID_REQUEST");
    expect(body.message).toMatch(message);
    const after = await server.deps.db.selectFrom("contact_inquiries").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it.each([
    ["an SMS code", "I never got in, my verification code was 482913 yesterday."],
    ["an SMS code (Chinese)", "收到的验证码：482913，但是无法登录"],
    ["a full API key", `My key ir21_${"A1b2C3d4".repeat(6)} stopped working.`],
  ])("refuses a message containing %s", async (_label, message) => {
    const { status, body } = await server.json("/contact", { method: "POST", body: { ...inquiry, message } });
    expect(status).toBe(400);
    expect(body.code).toBe("SECRET_IN_INQUIRY");
    expect(body.message).toMatch(/^message: /);
  });

  it("accepts six-digit numbers that are not codes, such as a postcode", async () => {
    const { status } = await server.json("/contact", { method: "POST", body: { ...inquiry, message: "Our office: 100020 Beijing, Chaoyang district." } });
    expect(status).toBe(200);
  });
});
