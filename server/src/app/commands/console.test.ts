import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "../../../testing/index.ts";
import { AdminError } from "../../console/admin.ts";
import { setPlanCommand, showAccountCommand } from "./console.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const bin = fileURLToPath(new URL("../../../bin/ir21-server.js", import.meta.url));

describe("ir21-server accounts", () => {
  it("set-plan by phone or id changes what /console/plan reports", async () => {
    const alice = await signIn(server);
    const digits = alice.phone.slice(3);
    const line = await setPlanCommand(server.deps, digits, "business");
    expect(line).toBe(`${alice.userId} (${digits.slice(0, 3)}****${digits.slice(7)}): plan free -> business`);
    expect((await server.json("/console/plan", { headers: alice.headers })).body.data.current_plan).toBe("business");
    await setPlanCommand(server.deps, alice.userId, "developer");
    expect((await server.json("/auth/me", { headers: alice.headers })).body.data.user.plan).toBe("developer");
  });

  it("refuses an unknown plan or account", async () => {
    const alice = await signIn(server);
    await expect(setPlanCommand(server.deps, alice.userId, "platinum")).rejects.toThrow(AdminError);
    await expect(setPlanCommand(server.deps, "13900000000", "free")).rejects.toThrow(/No account/);
    await expect(setPlanCommand(server.deps, "hello", "free")).rejects.toThrow(/neither/);
  });

  it("show summarises plan, usage, keys and sessions", async () => {
    const alice = await signIn(server);
    await createApiKey(server, alice);
    const shown = await showAccountCommand(server.deps, alice.phone);
    expect(shown).toMatchObject({ id: alice.userId, phone: alice.phone, plan: "free", active_api_keys: 1, active_sessions: 1, usage: { used: 0, quota: 10_000, failures: 0 } });
  });

  it("runs as a real command against the server's database", async () => {
    const alice = await signIn(server);
    const { stdout } = await promisify(execFile)(process.execPath, [bin, "accounts", "set-plan", alice.userId, "enterprise"], {
      env: { ...process.env, DATABASE_URL: server.deps.config.databaseUrl, DATA_DIR: server.dir, LOG_LEVEL: "silent", REDIS_URL: "" },
    });
    expect(stdout.trim()).toMatch(new RegExp(`^${alice.userId} \\(\\d{3}\\*{4}\\d{4}\\): plan free -> enterprise$`));
    expect((await server.json("/console/plan", { headers: alice.headers })).body.data.current_plan).toBe("enterprise");
    const failed = await promisify(execFile)(process.execPath, [bin, "accounts", "set-plan", alice.userId, "gold"], {
      env: { ...process.env, DATABASE_URL: server.deps.config.databaseUrl, DATA_DIR: server.dir, LOG_LEVEL: "silent", REDIS_URL: "" },
    }).catch((e: { code: number; stderr: string }) => e);
    expect((failed as { code: number }).code).toBe(64);
    expect((failed as { stderr: string }).stderr).toMatch(/Unknown plan "gold"/);
  });
});
