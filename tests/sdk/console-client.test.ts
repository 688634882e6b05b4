import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCClientError } from "@trpc/client";
import { createConsoleClient } from "@ir21/sdk";
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
