import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCClientError } from "@trpc/client";
import { createConsoleClient, memoryCookieJar } from "@ir21/sdk";
import { startTestServer, type TestServer } from "@ir21/server/testing";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("SDK console client against a live server", () => {
  it("calls a procedure with end-to-end types", async () => {
    const ir21 = createConsoleClient({ baseUrl: server.url });
    const receipt = await ir21.contact.submit.mutate({
      name: "SDK User",
      email: "sdk@example.com",
      company: "SDK Ltd",
      message: "Sent through the typed console client.",
    });
    expect(receipt.received).toBe(true);
    expect(receipt.id).toMatch(/^inq_/);
  });

  it("surfaces the contract error code on failure", async () => {
    const ir21 = createConsoleClient({ baseUrl: server.url });
    const error = await ir21.contact.submit
      .mutate({ name: "x", email: "bad", company: "y", message: "long enough message" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<any>).data).toMatchObject({ appCode: "INVALID_REQUEST", httpStatus: 400 });
  });
});

describe("SDK console client: signing in from Node", () => {
  it("holds the session cookie across calls, manages keys, and forgets it at logout", async () => {
    const { agreementOf, lastSmsCode, randomPhone } = await import("@ir21/server/testing");
    const jar = memoryCookieJar();
    const ir21 = createConsoleClient({ baseUrl: server.url, cookies: jar });
    const phone = randomPhone();
    const agreement = agreementOf(server);
    const { challenge_id } = await ir21.auth.sendCode.mutate({ phone, ...agreement });
    const { user, created } = await ir21.auth.login.mutate({ phone, challenge_id, code: lastSmsCode(server, phone), ...agreement });
    expect(created).toBe(true);
    expect(jar.get()).toMatch(/^ir21_session=ses_/);

    expect((await ir21.auth.me.query()).user).toEqual(user);
    const { key, item } = await ir21.console.apiKeys.create.mutate({ name: "from the SDK" });
    expect(key.startsWith(item.prefix)).toBe(true);
    const [keys, sessions] = await Promise.all([ir21.console.apiKeys.list.query(), ir21.console.sessions.list.query()]);
    expect(keys.items.map((k) => k.id)).toEqual([item.id]);
    expect(sessions.items.filter((s) => s.current)).toHaveLength(1);

    expect(await ir21.auth.logout.mutate()).toEqual({ logged_out: true });
    expect(jar.get()).toBeNull();
    const error = await ir21.auth.me.query().catch((e: unknown) => e);
    expect((error as TRPCClientError<any>).data).toMatchObject({ appCode: "UNAUTHORIZED", httpStatus: 401 });
  });
});
