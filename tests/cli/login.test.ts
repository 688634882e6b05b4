import { statSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@ir21/server/testing";
import { CliSandbox, lastSmsCode, randomPhone } from "./harness.ts";

let server: TestServer;
const sandboxes: CliSandbox[] = [];
const sandbox = () => {
  const box = new CliSandbox(server);
  sandboxes.push(box);
  return box;
};

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const box of sandboxes) box.cleanup();
  await server.close();
});

const mode = (path: string) => statSync(path).mode & 0o777;

describe("ir21 login (scripted)", () => {
  it("sends the code, then finishes in a second run; stores the session 0600 in a 0700 dir", async () => {
    const cli = sandbox();
    const phone = randomPhone();
    const sent = await cli.run(["--json", "login", "--phone", phone, "--agree", "--send-only"]);
    expect(sent.code).toBe(0);
    const challenge = sent.json();
    expect(Object.keys(challenge).sort()).toEqual(["challenge_id", "expires_in", "retry_after"]);
    expect(challenge.challenge_id).toMatch(/^chl_/);
    expect(challenge.expires_in).toBe(300);
    // A pending challenge is remembered, without any code.
    expect(cli.profile().pending_login).toMatchObject({ challenge_id: challenge.challenge_id, phone });
    expect(cli.profile().session).toBeUndefined();

    const code = lastSmsCode(server, phone);
    const done = await cli.run(["--json", "login", "--code", code]);
    expect(done.code).toBe(0);
    const result = done.json();
    expect(result.created).toBe(true);
    expect(result.user).toMatchObject({ phone: `+86${phone}`, email: null, plan: "free" });
    expect(result.user.id).toMatch(/^usr_/);

    const profile = cli.profile();
    expect(profile.session.cookie).toMatch(/^ir21_session=ses_/);
    expect(profile.session.base_url).toBe(server.url);
    // The expiry the server set (idle timeout) is kept, so an expired login is never sent.
    expect(Date.parse(profile.session.expires_at)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(profile.base_url).toBe(server.url);
    expect(profile.pending_login).toBeUndefined();
    expect(mode(cli.profilePath())).toBe(0o600);
    expect(mode(join(cli.configHome, "ir21"))).toBe(0o700);
    expect(mode(join(cli.configHome, "ir21", "profiles"))).toBe(0o700);

    // The code appears in no output of either run.
    for (const text of [sent.stdout, sent.stderr, done.stdout, done.stderr]) expect(text).not.toContain(code);
    // The session is a credential: it is never printed either.
    expect(done.stdout + done.stderr).not.toContain(profile.session.cookie.split("=")[1]);

    const me = await cli.run(["--json", "whoami"]);
    expect(me.code).toBe(0);
    // The signed-in account itself (0.1 printed it wrapped, {user}).
    expect(me.json()).toEqual(result.user);
    const human = await cli.run(["whoami"]);
    expect(human.stdout).toContain(`+86${phone}`);
    expect(human.stdout).toContain(server.url);
  });

  it("with --code - sends the code and reads it from stdin in one run", async () => {
    const cli = sandbox();
    const phone = randomPhone();
    // The code is not known before the run starts, so feed stdin once the SMS is in the outbox.
    const { spawn } = await import("node:child_process");
    const { BIN } = await import("./harness.ts");
    const child = spawn(process.execPath, [BIN, "--json", "login", "--phone", phone, "--agree", "--code", "-"], { env: cli.env() });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const code = await waitFor(() => {
      try {
        return lastSmsCode(server, phone);
      } catch {
        return undefined;
      }
    });
    child.stdin.end(`${code}\n`);
    const exit = await new Promise((resolve) => child.on("close", resolve));
    expect(exit).toBe(0);
    expect(JSON.parse(stdout).user.phone).toBe(`+86${phone}`);
    expect(stdout + stderr).not.toContain(code);
  });

  it("finishes with an explicit --challenge-id and --phone (no remembered challenge needed)", async () => {
    const first = sandbox();
    const phone = randomPhone();
    const sent = await first.run(["--json", "login", "--phone", phone, "--agree", "--send-only"]);
    const { challenge_id } = sent.json();
    const other = sandbox(); // another machine: knows nothing of the first run
    const withoutAgreement = await other.run(["login", "--challenge-id", challenge_id, "--phone", phone, "--code", lastSmsCode(server, phone)]);
    expect(withoutAgreement.code).toBe(1);
    expect(withoutAgreement.stderr).toContain("--agree");
    const done = await other.run(["--json", "login", "--challenge-id", challenge_id, "--phone", phone, "--code", lastSmsCode(server, phone), "--agree"]);
    expect(done.code).toBe(0);
    expect(done.json().user.phone).toBe(`+86${phone}`);
  });

  it("refuses to prompt without a terminal: missing phone or agreement is a usage error (exit 1)", async () => {
    const cli = sandbox();
    const noPhone = await cli.run(["login", "--agree"]);
    expect(noPhone.code).toBe(1);
    expect(noPhone.stderr).toMatch(/--phone/);
    const noAgreement = await cli.run(["login", "--phone", randomPhone()]);
    expect(noAgreement.code).toBe(1);
    expect(noAgreement.stderr).toContain("--agree");
    expect(noAgreement.stderr).toContain("2026-09-08");
    const strayCode = await cli.run(["login", "--code", "123456"]);
    expect(strayCode.code).toBe(1);
    expect(strayCode.stderr).toContain("--send-only");
  });

  it("reports the service's error code, message and request id with exit 2", async () => {
    const cli = sandbox();
    const badPhone = await cli.run(["login", "--phone", "12345", "--agree", "--send-only"]);
    expect(badPhone.code).toBe(2);
    expect(badPhone.stderr).toMatch(/^error: INVALID_PHONE: /m);
    expect(badPhone.stderr).toMatch(/^request_id: req_/m);

    const phone = randomPhone();
    await cli.run(["login", "--phone", phone, "--agree", "--send-only"]);
    const real = lastSmsCode(server, phone);
    const wrong = real === "000000" ? "111111" : "000000";
    const wrongCode = await cli.run(["--json", "login", "--code", wrong]);
    expect(wrongCode.code).toBe(2);
    expect(wrongCode.stdout).toBe("");
    const error = wrongCode.jsonError();
    expect(error.code).toBe("CODE_INCORRECT");
    expect(error.request_id).toMatch(/^req_/);
    expect(error.status).toBe(400);
    // Outdated agreement versions are the server's call, reported as such.
    const outdated = await cli.run(["login", "--phone", randomPhone(), "--agree", "--send-only", "--terms-version", "2020-01-01"]);
    expect(outdated.code).toBe(2);
    expect(outdated.stderr).toContain("AGREEMENT_OUTDATED");
  });

  it("logging in again revokes the replaced session", async () => {
    const cli = sandbox();
    const { phone } = await cli.login();
    const before = cli.profile().session.cookie;
    server.clock.advance(61_000); // past the per-phone resend interval
    await cli.login({ phone });
    const after = cli.profile().session.cookie;
    expect(after).not.toBe(before);
    const sessions = (await cli.run(["--json", "sessions", "list"])).json();
    expect(sessions).toHaveLength(1);
    expect(sessions[0].current).toBe(true);
  });
});

describe("ir21 whoami / logout", () => {
  it("without a login: exit 3 and nothing sent", async () => {
    const cli = sandbox();
    const result = await cli.run(["whoami"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("Not logged in");
    expect(result.stderr).toContain("ir21 login");
    const json = await cli.run(["--json", "keys", "list"]);
    expect(json.code).toBe(3);
    expect(json.stdout).toBe("");
    expect(json.jsonError().code).toBe("AUTH_REQUIRED");
  });

  it("logout revokes the session on the server and forgets it; a stale session gives exit 3", async () => {
    const cli = sandbox();
    await cli.login();
    const cookie = cli.profile().session.cookie;
    const out = await cli.run(["--json", "logout"]);
    expect(out.code).toBe(0);
    expect(out.json()).toEqual({ logged_out: true });
    expect(cli.profile().session).toBeUndefined();
    const me = await server.json("/auth/me", { headers: { cookie } });
    expect(me.status).toBe(401);
    // Logging out twice is fine.
    expect((await cli.run(["logout"])).code).toBe(0);

    // A saved session the server no longer knows: the server's 401 maps to exit 3.
    const stale = sandbox();
    await stale.login();
    const profile = stale.profile();
    await server.json("/auth/logout", { method: "POST", headers: { cookie: profile.session.cookie } });
    const result = await stale.run(["whoami"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("UNAUTHORIZED");
    expect(result.stderr).toMatch(/request_id: req_/);
  });

  it("a saved session past the expiry the server gave it is not sent (exit 3)", async () => {
    const cli = sandbox();
    await cli.login();
    const profile = cli.profile();
    writeFileSync(cli.profilePath(), JSON.stringify({ ...profile, session: { ...profile.session, expires_at: "2020-01-01T00:00:00.000Z" } }));
    const requests = () => server.logs.entries().filter((entry) => entry.msg === "request").length;
    const before = requests();
    const result = await cli.run(["whoami"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("expired at 2020-01-01T00:00:00.000Z");
    expect(requests()).toBe(before);
  });

  it("tightens a config file that was left world-readable on its next save", async () => {
    const cli = sandbox();
    await cli.login();
    chmodSync(cli.profilePath(), 0o644);
    chmodSync(join(cli.configHome, "ir21"), 0o755);
    writeFileSync(cli.profilePath(), JSON.stringify(cli.profile()), { mode: 0o644 });
    expect((await cli.run(["config", "set", "base-url", server.url])).code).toBe(0);
    expect(mode(cli.profilePath())).toBe(0o600);
    expect(mode(join(cli.configHome, "ir21"))).toBe(0o700);
  });
});

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
