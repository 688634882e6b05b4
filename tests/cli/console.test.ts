import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@ir21/server/testing";
import { CliSandbox } from "./harness.ts";

let server: TestServer;
let cli: CliSandbox;

beforeAll(async () => {
  server = await startTestServer();
  cli = new CliSandbox(server);
  await cli.login();
});
afterAll(async () => {
  cli.cleanup();
  await server.close();
});

describe("ir21 keys", () => {
  it("create prints the full key once (alone on stdout); list and revoke never show it", async () => {
    const created = await cli.run(["keys", "create", "ci-deploy"]);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^ir21_[0-9A-Za-z]{40,}$/);
    expect(created.stderr).toContain('Created API key key_');
    expect(created.stderr).not.toContain(key);

    const list = await cli.run(["--json", "keys", "list"]);
    expect(list.code).toBe(0);
    // --json prints the array itself (the resource), not the service's {items} envelope.
    const items = list.json();
    expect(Array.isArray(items)).toBe(true);
    expect(items).toHaveLength(1);
    expect(Object.keys(items[0]).sort()).toEqual(["created_at", "id", "last_used_at", "name", "prefix", "revoked_at"]);
    expect(items[0]).toMatchObject({ name: "ci-deploy", revoked_at: null, last_used_at: null, prefix: key.slice(0, 12) });
    expect(list.stdout).not.toContain(key);

    // On a terminal (IR21_FORCE_TTY: a terminal 300 columns wide): a header and aligned columns.
    const table = await cli.run(["keys", "list"], { env: { IR21_FORCE_TTY: "300" } });
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+CREATED\s+LAST USED\s+STATUS$/);
    // Piped (the harness's stdout is a pipe): no header, one tab-separated line per key, like gh.
    const piped = await cli.run(["keys", "list"]);
    expect(piped.stdout.trim().split("\n").map((line) => line.split("\t"))).toEqual([[items[0].id, "ci-deploy", `${items[0].prefix}…`, expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/), "never", "active"]]);
    expect(table.stdout).toContain("ci-deploy");
    expect(table.stdout).toContain("active");
    expect(table.stdout).not.toContain(key);

    const unconfirmed = await cli.run(["keys", "revoke", items[0].id]);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain("--yes");
    const revoked = await cli.run(["--json", "keys", "revoke", items[0].id, "--yes"]);
    expect(revoked.code).toBe(0);
    expect(revoked.json()).toEqual({ id: items[0].id, revoked: true });
    const after = (await cli.run(["--json", "keys", "list"])).json();
    expect(after[0].revoked_at).toMatch(/Z$/);
    expect((await cli.run(["keys", "list"])).stdout).toContain("revoked");
  });

  it("--json create prints the new key (its summary and the full key); --save keeps the key for this server only", async () => {
    const created = await cli.run(["--json", "keys", "create", "laptop", "--save"]);
    expect(created.code).toBe(0);
    const data = created.json();
    expect(Object.keys(data).sort()).toEqual(["created_at", "id", "key", "last_used_at", "name", "prefix", "revoked_at"]);
    expect(data).toMatchObject({ name: "laptop", revoked_at: null });
    expect(data.key.startsWith(data.prefix)).toBe(true);
    expect(cli.profile().api_key).toEqual({ key: data.key, base_url: server.url, id: data.id });
    // The summary is the one the list shows.
    expect((await cli.run(["--json", "keys", "list"])).json().find((k: { id: string }) => k.id === data.id)).toEqual({ ...data, key: undefined });

    const shown = await cli.run(["--json", "config", "show"]);
    expect(shown.json().api_key).toEqual({ prefix: data.key.slice(0, 12), source: "profile" });
    expect(shown.stdout).not.toContain(data.key);
    // Another server never gets it.
    const elsewhere = await cli.run(["--json", "config", "show"], { env: { IR21_BASE_URL: "http://127.0.0.1:9" } });
    expect(elsewhere.json().api_key).toBeNull();

    // Revoking the saved key removes it from the profile as well.
    expect((await cli.run(["keys", "revoke", data.id, "--yes"])).code).toBe(0);
    expect(cli.profile().api_key).toBeUndefined();
  });

  it("usage errors: missing name, unknown id format, unknown flag", async () => {
    const missing = await cli.run(["keys", "create"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("Missing <name>: a name to recognise the key by");
    const badId = await cli.run(["keys", "revoke", "nope", "--yes"]);
    expect(badId.code).toBe(2);
    expect(badId.stderr).toMatch(/^error: INVALID_REQUEST: /m);
    const unknownId = await cli.run(["--json", "keys", "revoke", "key_0000000000000000000000000", "--yes"]);
    expect(unknownId.code).toBe(2);
    expect(unknownId.jsonError()).toMatchObject({ code: "NOT_FOUND", status: 404 });
    const flag = await cli.run(["keys", "list", "--nmae", "x"]);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain("Unknown flag --nmae");
  });
});

describe("ir21 sessions", () => {
  it("lists, revokes another session, revokes the others, and logs out when revoking its own", async () => {
    const other = new CliSandbox(server);
    try {
      // Two more devices signed in to the same account.
      const me = (await cli.run(["--json", "whoami"])).json().phone.slice(3);
      server.clock.advance(61_000);
      await other.login({ phone: me });
      server.clock.advance(61_000);
      const third = new CliSandbox(server);
      await third.login({ phone: me });

      const list = await cli.run(["--json", "sessions", "list"]);
      expect(list.code).toBe(0);
      const items = list.json();
      expect(items.length).toBeGreaterThanOrEqual(3);
      for (const item of items) expect(Object.keys(item).sort()).toEqual(["created_at", "current", "expires_at", "id"]);
      expect(items.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
      const table = await cli.run(["sessions", "list"], { env: { IR21_FORCE_TTY: "300" } });
      expect(table.stdout).toMatch(/^ID\s+CREATED\s+EXPIRES\s+CURRENT$/m);
      expect(table.stdout).toContain("* this CLI");

      const otherId = (await other.run(["--json", "sessions", "list"])).json().find((s: { current: boolean }) => s.current).id;
      const revoked = await cli.run(["--json", "sessions", "revoke", otherId, "--yes"]);
      expect(revoked.json()).toEqual({ id: otherId, revoked: true, current: false });
      expect((await other.run(["whoami"])).code).toBe(3);

      const others = await cli.run(["--json", "sessions", "revoke-others", "--yes"]);
      expect(others.code).toBe(0);
      expect(others.json().revoked).toBeGreaterThanOrEqual(1);
      expect((await third.run(["whoami"])).code).toBe(3);
      expect((await cli.run(["whoami"])).code).toBe(0);
      third.cleanup();

      const ownId = (await cli.run(["--json", "sessions", "list"])).json()[0].id;
      const own = await cli.run(["sessions", "revoke", ownId, "--yes"]);
      expect(own.code).toBe(0);
      expect(own.stderr).toContain("now logged out");
      expect(cli.profile().session).toBeUndefined();
      expect((await cli.run(["sessions", "list"])).code).toBe(3);
    } finally {
      other.cleanup();
      server.clock.advance(61_000);
      await cli.login();
    }
  });
});

describe("ir21 usage / plan / billing", () => {
  it("prints the contract shapes with --json and readable summaries without", async () => {
    const usage = await cli.run(["--json", "usage"]);
    expect(usage.code).toBe(0);
    const u = usage.json();
    expect(Object.keys(u).sort()).toEqual(["by_endpoint", "daily", "failures", "period", "quota", "resets_at", "used"]);
    expect(Object.keys(u.period).sort()).toEqual(["end", "resets_at", "start"]);
    expect(u.daily.every((d: { date: string }) => /^\d{4}-\d{2}-\d{2}$/.test(d.date))).toBe(true);
    const humanUsage = await cli.run(["usage", "--daily"], { env: { IR21_FORCE_TTY: "300" } });
    expect(humanUsage.stdout).toContain(`of ${u.quota}`);
    expect(humanUsage.stdout).toMatch(/^DATE\s+COUNT/m);

    const plan = await cli.run(["--json", "plan"]);
    const p = plan.json();
    expect(p).toMatchObject({ current_plan: "free", pricing_is_provisional: true, payment_enabled: false });
    expect(p.plans.length).toBeGreaterThan(0);
    const humanPlan = await cli.run(["plan"]);
    expect(humanPlan.stdout).toMatch(/^free\s+.*\* current$/m);

    const billing = await cli.run(["--json", "billing"]);
    expect(billing.json()).toEqual({ items: [], payment_enabled: false });
    expect((await cli.run(["billing"])).stdout).toContain("No bills");
  });
});

describe("ir21 contact", () => {
  it("submits an inquiry from flags or stdin; refuses secrets (exit 2) and prompts only at a terminal", async () => {
    const sent = await cli.run(["--json", "contact", "--name", "Li Wei", "--email", "li@example.com", "--company", "Example Ltd", "--message", "We would like the enterprise plan."]);
    expect(sent.code).toBe(0);
    expect(sent.json()).toMatchObject({ received: true, id: expect.stringMatching(/^inq_/) });

    const piped = await cli.run(["--json", "contact", "--name", "Ops", "--email", "ops@example.com", "--company", "Example", "--message", "-"], {
      input: "A longer message read from standard input.\nSecond line.\n",
    });
    expect(piped.code).toBe(0);

    const secret = await cli.run(["contact", "--name", "A", "--email", "a@example.com", "--company", "B", "--message", "my code is 123456 please help"]);
    expect(secret.code).toBe(2);
    expect(secret.stderr).toContain("SECRET_IN_INQUIRY");

    const missing = await cli.run(["contact", "--name", "A"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("--email");
  });
});
