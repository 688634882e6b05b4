import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "@ir21/sdk/webhooks";
import { DeliveryWorker, lastSmsCode, randomPhone, startTestReceiver, startTestServer, type TestReceiver, type TestServer } from "@ir21/server/testing";
import { CliSandbox, type CliResult } from "./harness.ts";
import { INSTALL_TIMEOUT_MS, installPackedCli } from "./installed.ts";

/**
 * Issue 33's one grammar, on the CLI as installed from its release tarball (packed once for this
 * file, `npm install -g` into an empty prefix: tests/cli/installed.ts) against a live test server.
 *
 * First, each inconsistency the issue found, as a test that fails on the 0.1 grammar (run this file
 * with IR21_TEST_CLI_TARBALL=<a tarball packed from main> to see them fail); then the 0.1 spellings,
 * which keep working until 0.3.0 with a warning; then one test per command family. Expected values
 * come from the server's own HTTP answers (or the receiver's requests), never from the CLI.
 */

let work: string;
let server: TestServer;
let receiver: TestReceiver;
let worker: DeliveryWorker;
/** The installed `ir21`. */
let bin: string;
/** A signed-in user of the installed CLI. */
let cli: CliSandbox;
let apiKey: string;
const sandboxes: CliSandbox[] = [];

/** Another user's machine, with the same installed CLI. */
function sandbox(): CliSandbox {
  const box = new CliSandbox(server, { bin });
  sandboxes.push(box);
  return box;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "ir21-cli-installed-"));
  ({ bin } = await installPackedCli(work));
  server = await startTestServer({ dataset: "demo", env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  receiver = await startTestReceiver();
  worker = new DeliveryWorker(server.deps.webhooks, { random: () => 0, limits: { totalTimeoutMs: 2_000, connectTimeoutMs: 1_000 } });
  cli = sandbox();
  await cli.login();
  apiKey = (await cli.run(["keys", "create", "installed-tests"])).stdout.trim();
}, INSTALL_TIMEOUT_MS + 60_000);

afterAll(async () => {
  for (const box of sandboxes) box.cleanup();
  await receiver?.close();
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The signed-in user's view of a console route, straight from the server. */
const consoleGet = async (path: string) => (await server.json(path, { headers: { cookie: cli.profile().session.cookie } })).body.data;
const dataGet = async (path: string) => (await server.json(path, { headers: { "x-api-key": apiKey } })).body.data;

/** A command's output that worked: exit 0, with the output on failure. */
function ok(result: CliResult): CliResult {
  expect(result.code, `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
  return result;
}

/**
 * Runs the installed `ir21` in a pseudo-terminal (util-linux `script`); what the terminal showed.
 * Asynchronous: the test server answers from this process, so it must not be blocked meanwhile.
 */
function inTerminal(command: string, env: Record<string, string | undefined> = {}): Promise<string> {
  const shell = `${JSON.stringify(bin)} ${command}`;
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qec", shell, "/dev/null"], { env: cli.env({ TERM: "xterm-256color", NO_COLOR: undefined, ...env }), stdio: ["ignore", "pipe", "inherit"] });
    let screen = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));
    child.on("error", reject);
    child.on("close", () => resolve(screen));
  });
}

const ESC = "\x1b[";

/** Each test runs the CLI a dozen times or more, as separate processes: a loaded machine stretches that. */
const MANY_RUNS = { timeout: 120_000 };

describe("issue 33: one grammar (each test fails on the 0.1 CLI)", MANY_RUNS, () => {
  it("webhooks create takes its URL as an argument and --events, as listen does (repeats and commas)", async () => {
    const created = ok(await cli.run(["webhooks", "create", `${receiver.url}/grammar`, "--events", "operator.updated,network.added", "--events", "catalog.updated", "--countries", "CN,HK", "--countries", "MO"]));
    expect(created.stderr).not.toContain("deprecated");
    const stored = (await consoleGet("/console/webhooks")).items.find((s: { url: string }) => s.url === `${receiver.url}/grammar`);
    expect(stored.events.sort()).toEqual(["ir21.catalog.updated", "ir21.network.added", "ir21.operator.updated"]);
    expect(stored.countries.sort()).toEqual(["CN", "HK", "MO"]);
    // The same flag names in every command that filters events.
    for (const command of [["webhooks", "create"], ["webhooks", "update"], ["listen"], ["changes"]]) {
      const help = ok(await cli.run([...command, "--help"])).stdout;
      for (const flag of ["--events", "--countries", "--operators"]) expect(help, command.join(" ")).toContain(`${flag} <`);
      expect(help, command.join(" ")).not.toMatch(/--(event|country|operator|type) </);
    }
  });

  it("deliveries list takes the subscription's id as an argument, and the command webhooks test prints runs as printed", async () => {
    // Subscribed through the API, so that only the commands under test are the CLI's.
    const { id } = (await server.json("/console/webhooks", { method: "POST", headers: { cookie: cli.profile().session.cookie }, body: { url: `${receiver.url}/follow`, events: ["ir21.catalog.updated"] } })).body.data.item;
    const tested = ok(await cli.run(["webhooks", "test", id]));
    const follow = /^Follow it with: (ir21 deliveries show (dlv_[0-9a-z]+) (whk_[0-9a-z]+))$/m.exec(tested.stdout);
    expect(follow, tested.stdout).not.toBeNull();
    expect(follow![3]).toBe(id);
    const shown = ok(await cli.run(["--json", ...follow![1]!.split(" ").slice(1)]));
    expect(shown.json().item).toEqual((await consoleGet(`/console/webhooks/${id}/deliveries/${follow![2]}`)).item);
    const listed = ok(await cli.run(["--json", "deliveries", "list", id]));
    expect(listed.json().map((d: { id: string }) => d.id)).toEqual((await consoleGet(`/console/webhooks/${id}/deliveries?limit=20`)).items.map((d: { id: string }) => d.id));
    expect(listed.json().map((d: { id: string }) => d.id)).toContain(follow![2]);
  });

  it("api PATH is a GET, as in gh", async () => {
    const meta = ok(await cli.run(["api", "/v1/meta"], { env: { IR21_API_KEY: apiKey } }));
    expect(meta.json().data.dataset_version).toBe((await dataGet("/v1/meta")).dataset_version);
    expect(meta.stderr).toBe("");
  });

  it("--json prints the resource itself: the created item for create, the array for list", async () => {
    // Spelt as 0.1 spelt it (still accepted, with a warning), so that only the shape differs.
    const created = ok(await cli.run(["--json", "webhooks", "create", "--url", `${receiver.url}/json-shape`, "--event", "all"]));
    const item = created.json();
    const stored = (await consoleGet("/console/webhooks")).items.find((s: { id: string }) => s.id === item.id);
    expect(stored).toBeDefined();
    expect(item).toEqual({ ...stored, secret: expect.stringMatching(/^whsec_/) });
    const keys = ok(await cli.run(["--json", "keys", "list"])).json();
    expect(keys).toEqual((await consoleGet("/console/api-keys")).items);
    const webhooks = ok(await cli.run(["--json", "webhooks", "list"])).json();
    expect(webhooks).toEqual((await consoleGet("/console/webhooks")).items);
  });

  it("lookup with no argument names what to give, with an example", async () => {
    const missing = await cli.run(["lookup"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: Missing <number-or-imsi>: a phone number .* or an IMSI/m);
    expect(missing.stderr).toContain("e.g. `ir21 lookup +8613912345678`");
    expect(ok(await cli.run(["lookup", "--help"])).stdout).toContain("ir21 lookup <number-or-imsi>");
    // Every argument is named for what it is, in the help and in the error.
    for (const [command, label] of [[["keys", "revoke"], "<key-id>"], [["webhooks", "test"], "<webhook-id>"], [["deliveries", "show"], "<delivery-id>"], [["webhooks", "create"], "<url>"]] as const) {
      const result = await cli.run([...command]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`Missing ${label}: `);
      expect(result.stderr).toContain(`e.g. \`ir21 ${command.join(" ")} `);
    }
  });

  it("tables never cut an id: the id to revoke can be copied from an 80-column terminal", async () => {
    for (const name of ["a-key-with-a-rather-long-descriptive-name", "another-long-named-deployment-key"]) ok(await cli.run(["keys", "create", name]));
    const ids: string[] = (await consoleGet("/console/api-keys")).items.map((k: { id: string }) => k.id);
    const table = ok(await cli.run(["keys", "list"], { env: { IR21_FORCE_TTY: "80" } })).stdout.trimEnd().split("\n");
    expect(table[0]).toMatch(/^ID\s+NAME/);
    expect(table.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(ids);
    expect(Math.max(...table.map((line) => line.length))).toBeLessThanOrEqual(80);
    expect(table.join("\n")).toContain("…"); // the names gave way
    // So does a terminal proper.
    const screen = await inTerminal("keys list");
    for (const id of ids) expect(screen).toContain(id);
  });

  it("no colour into a pipe or a file; colour on a terminal; NO_COLOR and FORCE_COLOR honoured", async () => {
    const plain = { NO_COLOR: undefined };
    // A pipe, also laid out as a terminal (IR21_FORCE_TTY changes the layout, not what the stream is).
    for (const args of [["keys", "list"], ["--help"], ["webhooks", "list"]]) {
      for (const env of [plain, { ...plain, IR21_FORCE_TTY: "120" }]) {
        const result = ok(await cli.run(args, { env }));
        expect(result.stdout + result.stderr, `${args.join(" ")} ${JSON.stringify(env)}`).not.toContain(ESC);
      }
    }
    const error = await cli.run(["kees"], { env: plain });
    expect(error.stderr).toContain("Unknown command");
    expect(error.stderr).not.toContain(ESC);
    // A terminal gets colour, unless NO_COLOR; a group's help printed to a file (stderr) gets none.
    expect(await inTerminal("--help")).toContain(ESC);
    expect(await inTerminal("--help", { NO_COLOR: "1" })).not.toContain(ESC);
    const errFile = join(work, "stderr.txt");
    await inTerminal(`keys 2>${errFile}`);
    expect(readFileSync(errFile, "utf8")).toContain("ir21 keys <command>");
    expect(readFileSync(errFile, "utf8")).not.toContain(ESC);
    // FORCE_COLOR forces it on, even into a pipe; FORCE_COLOR=0 off, even on a terminal.
    expect(ok(await cli.run(["--help"], { env: { ...plain, FORCE_COLOR: "1" } })).stdout).toContain(ESC);
    expect(await inTerminal("--help", { FORCE_COLOR: "0" })).not.toContain(ESC);
  });
});

describe("the 0.1 spellings keep working until 0.3.0, each with a warning naming the new one", MANY_RUNS, () => {
  const warned = (result: CliResult, old: string, instead: string) => {
    expect(result.stderr).toContain(`${old} is deprecated: use ${instead}`);
    expect(result.stderr).toContain("stops working in ir21 0.3.0");
  };

  it("webhooks create --url … --event …, deliveries --webhook/-w/--session, trigger --subscription", async () => {
    const created = ok(await cli.run(["--json", "webhooks", "create", "--url", `${receiver.url}/old-spelling`, "--event", "operator.updated", "--country", "CN"]));
    warned(created, "--url", "the <url> argument");
    warned(created, "--event", "--events");
    warned(created, "--country", "--countries");
    const item = created.json();
    expect((await consoleGet("/console/webhooks")).items.find((s: { id: string }) => s.id === item.id)).toMatchObject({ url: `${receiver.url}/old-spelling`, events: ["ir21.operator.updated"], countries: ["CN"] });

    const { delivery_id } = ok(await cli.run(["--json", "webhooks", "test", item.id])).json();
    for (const flag of ["--webhook", "-w"]) {
      const listed = ok(await cli.run(["--json", "deliveries", "list", flag, item.id]));
      warned(listed, flag, "the <webhook-id|session-id> argument");
      expect(listed.json().map((d: { id: string }) => d.id)).toEqual([delivery_id]);
    }
    const shown = ok(await cli.run(["--json", "deliveries", "show", delivery_id, "--webhook", item.id]));
    expect(shown.json().item.id).toBe(delivery_id);
    const triggered = ok(await cli.run(["--json", "trigger", "network.added", "--subscription", item.id]));
    warned(triggered, "--subscription", "the <webhook-id> argument");
    expect(triggered.json()).toMatchObject({ queued: true, webhook_id: item.id });
    const retried = ok(await cli.run(["--json", "deliveries", "retry", delivery_id, "-w", item.id]));
    expect(retried.json()).toEqual({ queued: 1, delivery_ids: [delivery_id] });
  });

  it("api METHOD PATH, changes --type, operators --q, export --format/--resource", async () => {
    const env = { IR21_API_KEY: apiKey };
    const api = ok(await cli.run(["api", "GET", "/v1/meta"], { env }));
    warned(api, "`ir21 api GET <path>`", "`ir21 api <path>`");
    expect(JSON.parse(api.stdout).data.dataset_version).toBe((await dataGet("/v1/meta")).dataset_version);
    const changes = ok(await cli.run(["--json", "changes", "--since", "none", "--type", "catalog.updated"], { env }));
    warned(changes, "--type", "--events");
    expect(changes.json().items.map((e: { id: string }) => e.id)).toEqual((await dataGet("/v1/changes?since=none&types=ir21.catalog.updated&limit=100")).items.map((e: { id: string }) => e.id));
    const operators = ok(await cli.run(["--json", "operators", "--q", "mobile"], { env }));
    warned(operators, "--q", "--search");
    expect(operators.json()).toEqual((await dataGet("/v1/operators?q=mobile&limit=100")).items);
    const csv = join(work, "old-export.csv");
    const exported = ok(await cli.run(["--json", "export", "--format", "csv", "-o", csv], { env }));
    warned(exported, "--format", "the <resource> argument");
    expect(exported.json()).toMatchObject({ format: "csv", resource: "number-ranges" });
    expect(ok(await cli.run(["--json", "export", "--format", "csv", "--resource", "operators", "-o", csv], { env })).json()).toMatchObject({ resource: "operators" });
    expect(ok(await cli.run(["--json", "export", "--format", "snapshot", "-o", join(work, "old.json")], { env })).json()).toMatchObject({ format: "snapshot", resource: null });
  });

  it("IR21_LEGACY_JSON=1 prints the 0.1 JSON shapes, with a warning", async () => {
    const legacy = ok(await cli.run(["--json", "keys", "list"], { env: { IR21_LEGACY_JSON: "1" } }));
    expect(legacy.json()).toEqual({ items: (await consoleGet("/console/api-keys")).items });
    expect(legacy.stderr).toContain("IR21_LEGACY_JSON is set");
    expect(ok(await cli.run(["--json", "whoami"], { env: { IR21_LEGACY_JSON: "1" } })).json()).toEqual({ user: expect.objectContaining({ phone: expect.any(String) }) });
  });
});

describe("each command family, on the installed CLI", MANY_RUNS, () => {
  it("auth: login in two runs, whoami, logout", async () => {
    const user = sandbox();
    const phone = randomPhone();
    const sent = ok(await user.run(["--json", "login", "--phone", phone, "--agree", "--send-only"]));
    expect(sent.json()).toMatchObject({ challenge_id: expect.stringMatching(/^chl_/), expires_in: expect.any(Number) });
    const code = lastSmsCode(server, phone);
    const done = ok(await user.run(["--json", "login", "--code", code]));
    expect(done.json()).toMatchObject({ user: { phone: `+86${phone}` }, created: true });
    const me = ok(await user.run(["--json", "whoami"])).json();
    expect(me).toEqual((await server.json("/auth/me", { headers: { cookie: user.profile().session.cookie } })).body.data.user);
    const cookie = user.profile().session.cookie;
    expect(ok(await user.run(["--json", "logout"])).json()).toEqual({ logged_out: true });
    expect((await server.json("/auth/me", { headers: { cookie } })).status).toBe(401);
    expect((await user.run(["whoami"])).code).toBe(3);
  });

  it("keys: create (the key alone on stdout), list, revoke <key-id>", async () => {
    const key = ok(await cli.run(["keys", "create", "family-keys"])).stdout.trim();
    expect(key).toMatch(/^ir21_/);
    const listed = ok(await cli.run(["--json", "keys", "list"])).json();
    const mine = listed.find((k: { name: string }) => k.name === "family-keys");
    expect(key.startsWith(mine.prefix)).toBe(true);
    const piped = ok(await cli.run(["keys", "list"])).stdout.trim().split("\n").map((line) => line.split("\t")[0]);
    expect(piped).toEqual(listed.map((k: { id: string }) => k.id));
    expect(ok(await cli.run(["--json", "keys", "revoke", mine.id, "--yes"])).json()).toEqual({ id: mine.id, revoked: true });
    expect((await consoleGet("/console/api-keys")).items.find((k: { id: string }) => k.id === mine.id).revoked_at).not.toBeNull();
    expect((await cli.run(["keys", "list", "--bogus"])).code).toBe(1);
  });

  it("sessions: list and revoke <session-id>", async () => {
    const me = ok(await cli.run(["--json", "whoami"])).json();
    const other = sandbox();
    server.clock.advance(61_000); // past the per-phone resend interval
    await other.login({ phone: me.phone.slice(3) });
    const sessions = ok(await cli.run(["--json", "sessions", "list"])).json();
    expect(sessions).toEqual((await consoleGet("/console/sessions")).items);
    const theirs = ok(await other.run(["--json", "sessions", "list"])).json().find((s: { current: boolean }) => s.current);
    expect(ok(await cli.run(["--json", "sessions", "revoke", theirs.id, "--yes"])).json()).toEqual({ id: theirs.id, revoked: true, current: false });
    expect((await other.run(["whoami"])).code).toBe(3);
  });

  it("webhooks: create <url>, list, update, disable/enable, rotate-secret, revoke-previous, delete", async () => {
    const secret = ok(await cli.run(["webhooks", "create", `${receiver.url}/family`, "--events", "all", "--operators", "cn.china-mobile"])).stdout.trim();
    expect(secret).toMatch(/^whsec_/);
    const item = (await consoleGet("/console/webhooks")).items.find((s: { url: string }) => s.url === `${receiver.url}/family`);
    expect(item).toMatchObject({ operators: ["cn.china-mobile"], countries: [] });
    const updated = ok(await cli.run(["--json", "webhooks", "update", item.id, "--events", "operator.updated", "--all-operators", "--countries", "CN"])).json();
    expect(updated).toEqual((await consoleGet("/console/webhooks")).items.find((s: { id: string }) => s.id === item.id));
    expect(updated).toMatchObject({ events: ["ir21.operator.updated"], operators: [], countries: ["CN"] });
    expect(ok(await cli.run(["--json", "webhooks", "disable", item.id])).json().enabled).toBe(false);
    expect(ok(await cli.run(["--json", "webhooks", "enable", item.id])).json().enabled).toBe(true);
    const rotated = ok(await cli.run(["--json", "webhooks", "rotate-secret", item.id, "--grace", "60"])).json();
    expect(rotated).toMatchObject({ id: item.id, secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: new Date(server.clock.now().getTime() + 60_000).toISOString() });
    expect(ok(await cli.run(["--json", "webhooks", "revoke-previous", item.id, "--yes"])).json()).toEqual({ id: item.id, revoked: true });
    expect(ok(await cli.run(["--json", "webhooks", "delete", item.id, "--yes"])).json()).toEqual({ id: item.id, deleted: true });
    expect((await consoleGet("/console/webhooks")).items.map((s: { id: string }) => s.id)).not.toContain(item.id);
  });

  it("deliveries: list <webhook-id>, show <delivery-id> (its subscription found among several), retry", async () => {
    receiver.fallback = { status: 503, body: "not yet" };
    const created = ok(await cli.run(["--json", "webhooks", "create", `${receiver.url}/deliveries`, "--events", "all"])).json();
    const { delivery_id } = ok(await cli.run(["--json", "webhooks", "test", created.id])).json();
    await worker.drain();
    expect((await consoleGet("/console/webhooks")).items.length).toBeGreaterThan(1);
    const shown = ok(await cli.run(["--json", "deliveries", "show", delivery_id])).json();
    expect(shown).toEqual(await consoleGet(`/console/webhooks/${created.id}/deliveries/${delivery_id}`));
    expect(shown.attempts[0].response_status).toBe(503);
    const human = ok(await cli.run(["deliveries", "show", delivery_id])).stdout;
    expect(human).toMatch(new RegExp(`^Webhook\\s+${created.id}$`, "m"));
    const listed = ok(await cli.run(["deliveries", "list", created.id])).stdout.trim().split("\n").map((line) => line.split("\t")[0]);
    expect(listed).toEqual([delivery_id]);
    const unknown = await cli.run(["deliveries", "show", "dlv_0000000000000000000000000"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No delivery dlv_0000000000000000000000000 in the account's");
    receiver.fallback = { status: 200, body: "ok" };
    expect(ok(await cli.run(["--json", "deliveries", "retry", delivery_id])).json()).toEqual({ queued: 1, delivery_ids: [delivery_id] });
    await worker.drain();
    expect((await consoleGet(`/console/webhooks/${created.id}/deliveries/${delivery_id}`)).item.status).toBe("delivered");
  });

  it("listen and trigger: a triggered event reaches the local receiver; deliveries show <delivery-id> <session-id>", async () => {
    receiver.respond({ status: 202, body: "listened" });
    const listen = cli.background(["listen", "--forward-to", `${receiver.url}/listen`, "--events", "operator.updated"]);
    try {
      const ready = await listen.waitFor(/^Ready!/, 30_000);
      const secret = /signing secret (whsec_\S+) \(session (lsn_[0-9a-z]+)/.exec(ready)!;
      ok(await cli.run(["trigger", "operator.updated"]));
      const line = await listen.waitFor(/ir21\.operator\.updated/, 30_000);
      const deliveryId = /(dlv_[0-9a-z]+)/.exec(line)![1]!;
      const request = receiver.requests.find((r) => r.path === "/listen")!;
      const event = await verifyWebhook({ rawBody: request.body, headers: request.headers as Record<string, string>, secrets: secret[1]!, now: server.clock.now() });
      expect(event).toMatchObject({ type: "ir21.operator.updated", test: true });
      const shown = ok(await cli.run(["--json", "deliveries", "show", deliveryId, secret[2]!])).json();
      expect(shown.attempts.at(-1)).toMatchObject({ response_status: 202, response: { body: "listened" } });
    } finally {
      listen.signal("SIGINT");
    }
    expect(await listen.exited).toBe(130);
  });

  it("data: lookup <number-or-imsi> (one, several, an IMSI), countries, operators, networks, ranges, capabilities, changes, meta", async () => {
    const env = { IR21_API_KEY: apiKey };
    expect(ok(await cli.run(["--json", "lookup", "+8613912345678"], { env })).json()).toEqual(await dataGet("/v1/lookup?number=%2B8613912345678"));
    expect(ok(await cli.run(["--json", "lookup", "460110123456789"], { env })).json()).toEqual(await dataGet("/v1/lookup?imsi=460110123456789"));
    const numbers = ["+8613912345678", "+8613012345678"];
    const batch = (await server.json("/v1/lookup/batch", { method: "POST", headers: { "x-api-key": apiKey }, body: { numbers } })).body.data;
    expect(ok(await cli.run(["--json", "lookup", ...numbers], { env })).json()).toEqual(batch.items);
    expect(ok(await cli.run(["--json", "countries"], { env })).json()).toEqual((await dataGet("/v1/countries")).items);
    expect(ok(await cli.run(["--json", "countries", "CN"], { env })).json()).toEqual(await dataGet("/v1/countries/CN"));
    expect(ok(await cli.run(["--json", "operators", "--country", "CN", "--all"], { env })).json()).toEqual((await dataGet("/v1/operators?country=CN&limit=100")).items);
    expect(ok(await cli.run(["--json", "operators", "cn.china-mobile"], { env })).json()).toEqual(await dataGet("/v1/operators/cn.china-mobile"));
    expect(ok(await cli.run(["--json", "networks", "--mcc", "460"], { env })).json()).toEqual((await dataGet("/v1/networks?mcc=460&limit=100")).items);
    expect(ok(await cli.run(["--json", "networks", "460-00"], { env })).json()).toEqual(await dataGet("/v1/networks/460-00"));
    expect(ok(await cli.run(["--json", "ranges", "--prefix", "86139"], { env })).json()).toEqual((await dataGet("/v1/number-ranges?prefix=86139&limit=100")).items);
    expect(ok(await cli.run(["--json", "capabilities", "--country", "CN"], { env })).json()).toEqual((await dataGet("/v1/capabilities?country=CN&limit=100")).items);
    const changes = ok(await cli.run(["--json", "changes", "--since", "none", "--events", "catalog.updated", "--countries", "CN"], { env })).json();
    expect(changes).toEqual(await dataGet("/v1/changes?since=none&types=ir21.catalog.updated&country=CN&limit=100"));
    // `all` means every type here too, as in webhooks create and listen.
    expect(ok(await cli.run(["--json", "changes", "--since", "none", "--events", "all"], { env })).json()).toEqual(await dataGet("/v1/changes?since=none&limit=100"));
    expect(ok(await cli.run(["--json", "meta"], { env })).json()).toEqual(await dataGet("/v1/meta"));
  });

  it("export: <resource> to a file, the snapshot, an unchanged version skipped", async () => {
    const env = { IR21_API_KEY: apiKey };
    const file = join(work, "operators.csv");
    const summary = ok(await cli.run(["--json", "export", "operators", "-o", file], { env })).json();
    const direct = await server.fetch("/v1/exports/operators.csv", { headers: { "x-api-key": apiKey } });
    expect(readFileSync(file, "utf8")).toBe(await direct.text());
    expect(summary).toMatchObject({ not_modified: false, format: "csv", resource: "operators", file, etag: direct.headers.get("etag") });
    const snapshot = join(work, "snapshot.json");
    const first = ok(await cli.run(["--json", "export", "snapshot", "-o", snapshot], { env })).json();
    expect(JSON.parse(readFileSync(snapshot, "utf8")).dataset_version).toBe((await dataGet("/v1/meta")).dataset_version);
    expect(ok(await cli.run(["--json", "export", "snapshot", "-o", snapshot, "--if-none-match", first.etag], { env })).json()).toMatchObject({ not_modified: true });
  });

  it("api: <path> is a GET; -X and --data; -i; a non-2xx answer exits 2", async () => {
    const env = { IR21_API_KEY: apiKey };
    const batch = ok(await cli.run(["api", "/v1/lookup/batch", "--data", '{"numbers":["+8613912345678"]}'], { env }));
    expect(batch.json().data.items[0].range_holder).toBe("China Mobile");
    const created = ok(await cli.run(["api", "-X", "POST", "/console/api-keys", "-F", "name=from-api"]));
    const keyId = created.json().data.item.id;
    expect((await consoleGet("/console/api-keys")).items.map((k: { id: string }) => k.id)).toContain(keyId);
    ok(await cli.run(["api", "--method", "DELETE", `/console/api-keys/${keyId}`]));
    expect((await consoleGet("/console/api-keys")).items.find((k: { id: string }) => k.id === keyId).revoked_at).not.toBeNull();
    const head = ok(await cli.run(["api", "/v1/meta", "-i"], { env }));
    expect(head.stdout).toMatch(/^HTTP 200\b/);
    const missing = await cli.run(["api", "/v1/countries/ZZ"], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: NOT_FOUND: /m);
  });

  it("config: set <setting> <value>, show, unset <setting>", async () => {
    const user = sandbox();
    const env = { IR21_BASE_URL: undefined };
    ok(await user.run(["config", "set", "base-url", `${server.url}/`], { env }));
    ok(await user.run(["config", "set", "api-key", "-"], { env, input: `${apiKey}\n` }));
    const shown = ok(await user.run(["--json", "config", "show"], { env })).json();
    expect(shown).toMatchObject({ base_url: { value: server.url, source: "profile" }, api_key: { prefix: apiKey.slice(0, 12), source: "profile" }, logged_in: false });
    expect(ok(await user.run(["--json", "ranges", "--limit", "1"], { env })).json()).toHaveLength(1);
    ok(await user.run(["config", "unset", "api-key"], { env }));
    expect(user.profile().api_key).toBeUndefined();
    const bad = await user.run(["config", "set", "colour", "red"], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Unknown setting "colour"');
  });

  it("completion: the bash script, run in bash, offers the new argument values and flag names", async () => {
    const script = join(work, "ir21.bash");
    writeFileSync(script, ok(await cli.run(["completion", "bash"])).stdout);
    const complete = (...words: string[]) => {
      const line = words.map((word) => `'${word}'`).join(" ");
      const run = spawnSync("bash", ["-c", `source ${script}; COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _ir21; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: "utf8" });
      expect(run.stderr).toBe("");
      return run.stdout.split("\n").filter(Boolean);
    };
    expect(complete("ir21", "webhooks", "create", "--")).toEqual(expect.arrayContaining(["--events", "--countries", "--operators"]));
    expect(complete("ir21", "webhooks", "create", "--")).not.toEqual(expect.arrayContaining(["--url"]));
    expect(complete("ir21", "export", "s")).toEqual(["snapshot"]);
    expect(complete("ir21", "api", "-")).toEqual(expect.arrayContaining(["--method"]));
    expect(complete("ir21", "completion", "")).toEqual(["bash", "zsh", "fish"]);
  });

  it("verify: a delivery the receiver saved checks out with the secret webhooks create printed", async () => {
    receiver.fallback = { status: 200, body: "ok" };
    const secret = ok(await cli.run(["webhooks", "create", `${receiver.url}/verify`, "--events", "all"])).stdout.trim();
    const { id } = (await consoleGet("/console/webhooks")).items.find((s: { url: string }) => s.url === `${receiver.url}/verify`);
    ok(await cli.run(["webhooks", "test", id]));
    await worker.drain();
    const request = receiver.requests.filter((r) => r.path === "/verify").at(-1)!;
    const headers = join(work, "verify-headers.txt");
    writeFileSync(headers, Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`).join("\n"));
    const at = String(request.headers["x-ir21-timestamp"]);
    const valid = ok(await cli.run(["--json", "verify", "--secret", secret, "--headers-file", headers, "--at", at], { input: request.body }));
    expect(valid.json()).toEqual({ valid: true, event: JSON.parse(request.body) });
    const tampered = await cli.run(["--json", "verify", "--secret", secret, "--headers-file", headers, "--at", at], { input: request.body.replace("true", "false") });
    expect(tampered.code).toBe(2);
    expect(tampered.jsonError().code).toBe("SIGNATURE_MISMATCH");
  });
});
