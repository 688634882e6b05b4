import { readdirSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@ir21/server/testing";
import { CliSandbox } from "./harness.ts";

let alpha: TestServer;
let beta: TestServer;
const sandboxes: CliSandbox[] = [];
const sandbox = (server: TestServer = alpha) => {
  const box = new CliSandbox(server);
  sandboxes.push(box);
  return box;
};

beforeAll(async () => {
  [alpha, beta] = await Promise.all([startTestServer(), startTestServer()]);
});
afterAll(async () => {
  for (const box of sandboxes) box.cleanup();
  await Promise.all([alpha.close(), beta.close()]);
});

const show = async (cli: CliSandbox, args: string[] = [], env?: Record<string, string | undefined>) => {
  const result = await cli.run(["--json", ...args, "config", "show"], { env });
  expect(result.code).toBe(0);
  return result.json();
};

describe("settings precedence: flag > environment > profile > default", () => {
  it("base URL", async () => {
    const cli = sandbox();
    expect((await show(cli, [], { IR21_BASE_URL: undefined })).base_url).toEqual({ value: "http://localhost:8787", source: "default" });
    expect((await cli.run(["config", "set", "base-url", "http://profile.example:1/"], { env: { IR21_BASE_URL: undefined } })).code).toBe(0);
    expect((await show(cli, [], { IR21_BASE_URL: undefined })).base_url).toEqual({ value: "http://profile.example:1", source: "profile" });
    expect((await show(cli, [], { IR21_BASE_URL: "http://env.example:2" })).base_url).toEqual({ value: "http://env.example:2", source: "env" });
    expect((await show(cli, ["--base-url", "http://flag.example:3"], { IR21_BASE_URL: "http://env.example:2" })).base_url).toEqual({
      value: "http://flag.example:3",
      source: "flag",
    });
    const bad = await cli.run(["whoami", "--base-url", "ftp://x"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("Invalid base URL");
  });

  it("API key", async () => {
    const cli = sandbox();
    expect((await show(cli)).api_key).toBeNull();
    const saved = await cli.run(["config", "set", "api-key", "-"], { input: "ir21_profilekey0000000000000000000000000000000000\n" });
    expect(saved.code).toBe(0);
    expect(saved.stderr).not.toContain("ir21_profilekey0000000000000000000000000000000000");
    expect((await show(cli)).api_key).toEqual({ prefix: "ir21_profile", source: "profile" });
    expect((await show(cli, [], { IR21_API_KEY: "ir21_envkey" })).api_key).toEqual({ prefix: "ir21_envkey", source: "env" });
    expect((await show(cli, ["--api-key", "ir21_flagkey"], { IR21_API_KEY: "ir21_envkey" })).api_key).toEqual({ prefix: "ir21_flagkey", source: "flag" });
    expect((await cli.run(["config", "unset", "api-key"])).code).toBe(0);
    expect((await show(cli)).api_key).toBeNull();
  });

  it("profile: --profile over IR21_PROFILE over \"default\"; names are checked", async () => {
    const cli = sandbox();
    expect(await show(cli)).toMatchObject({ profile: "default", profile_source: "default" });
    expect(await show(cli, [], { IR21_PROFILE: "work" })).toMatchObject({ profile: "work", profile_source: "env" });
    expect(await show(cli, ["--profile", "ci"], { IR21_PROFILE: "work" })).toMatchObject({ profile: "ci", profile_source: "flag" });
    for (const name of ["../evil", "a/b", "..", "x y", ""]) {
      const result = await cli.run(["--profile", name, "whoami"]);
      expect(result.code, name).toBe(1);
      expect(result.stderr).toMatch(/Invalid profile name|needs a value/);
    }
    expect(readdirSync(cli.home, { recursive: true }).some((f) => String(f).includes("evil"))).toBe(false);
  });
});

describe("profiles: one login per server", () => {
  it("keeps separate sessions, and never sends a session to another server", async () => {
    const cli = sandbox();
    const a = await cli.login();
    const b = await cli.login({ profile: "beta", server: beta });
    // Each profile remembers its server, so the environment variable is no longer needed.
    const env = { IR21_BASE_URL: undefined };
    expect((await cli.run(["--json", "whoami"], { env })).json().phone).toBe(`+86${a.phone}`);
    expect((await cli.run(["--json", "--profile", "beta", "whoami"], { env })).json().phone).toBe(`+86${b.phone}`);
    expect(cli.profile("beta").base_url).toBe(beta.url);
    expect((await show(cli, [], env)).profiles).toEqual(["beta", "default"]);

    // Pointing the default profile at beta: its alpha session is not sent there (exit 3, no request).
    const betaRequests = () => beta.logs.entries().filter((entry) => entry.msg === "request").length;
    const before = betaRequests();
    const crossed = await cli.run(["whoami", "--base-url", beta.url], { env });
    expect(crossed.code).toBe(3);
    expect(crossed.stderr).toContain(`Not logged in to ${beta.url}`);
    expect(crossed.stderr).toContain(alpha.url);
    expect(betaRequests()).toBe(before);
  });

  it("a config file that is not JSON is a clear local error (exit 1)", async () => {
    const cli = sandbox();
    await cli.run(["config", "set", "base-url", alpha.url]);
    writeFileSync(cli.profilePath(), "{not json", { mode: 0o600 });
    const result = await cli.run(["whoami"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("is not valid JSON");
  });
});

describe("config unset session", () => {
  it("forgets the login locally", async () => {
    const cli = sandbox();
    await cli.login();
    expect((await cli.run(["config", "unset", "session"])).code).toBe(0);
    expect((await cli.run(["whoami"])).code).toBe(3);
    expect((await cli.run(["config", "unset", "nonsense"])).code).toBe(1);
  });
});
