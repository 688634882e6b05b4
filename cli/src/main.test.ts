import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { extractGlobals, parseInvocation, type Ir21Command } from "./command.ts";
import { main, rootCommand, VERSION } from "./main.ts";
import { Runtime, type Io } from "./runtime.ts";

/** In-process runs for what needs no server: help, parsing, usage errors. */
const home = mkdtempSync(join(tmpdir(), "ir21-cli-unit-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function capture(): Writable & { text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  return Object.assign(stream, { text: () => chunks.join("") });
}

async function run(argv: string[]) {
  const stdout = capture();
  const stderr = capture();
  const stdin = new PassThrough();
  stdin.end();
  const io: Io = { stdin, stdout, stderr, env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), NO_COLOR: "1", IR21_BASE_URL: "http://127.0.0.1:9" } };
  const code = await main(argv, io);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

function allPaths(command: Ir21Command, path: string[] = []): string[][] {
  const subs = Object.entries(command.subCommands ?? {});
  return [path, ...subs.flatMap(([name, sub]) => allPaths(sub, [...path, name]))];
}

const tree = rootCommand(new Runtime({ stdin: new PassThrough(), stdout: capture(), stderr: capture(), env: { HOME: home } }, extractGlobals([]).globals));

describe("help at every level", () => {
  const paths = allPaths(tree);

  it("covers the commands of the issue", () => {
    const names = paths.map((p) => p.join(" "));
    for (const expected of ["login", "whoami", "logout", "keys list", "keys create", "keys revoke", "sessions list", "sessions revoke", "sessions revoke-others", "usage", "plan", "billing", "contact",
      "webhooks list", "webhooks create", "webhooks update", "webhooks delete", "webhooks enable", "webhooks disable", "webhooks test", "webhooks rotate-secret", "webhooks revoke-previous",
      "deliveries list", "deliveries show", "deliveries retry", "verify",
      "lookup", "countries", "operators", "ranges", "changes", "export", "meta"]) {
      expect(names).toContain(expected);
    }
  });

  it.each(paths.map((p) => [p.join(" ") || "(root)", p]))("ir21 %s --help", async (_label, path) => {
    const result = await run([...(path as string[]), "--help"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("USAGE");
    expect(result.stdout).toContain(`ir21 ${(path as string[]).join(" ")}`.trim());
    expect(result.stdout).toMatch(/GLOBAL FLAGS|FLAGS/);
    expect(result.stdout).toContain("--json");
    // Every command has at least one example.
    expect(result.stdout).toContain("EXAMPLES");
  });

  it("`ir21 help <command>` and -h are the same as --help", async () => {
    const long = await run(["keys", "create", "--help"]);
    expect((await run(["help", "keys", "create"])).stdout).toBe(long.stdout);
    expect((await run(["keys", "create", "-h"])).stdout).toBe(long.stdout);
  });

  it("the root help lists exit codes and environment variables", async () => {
    const { stdout } = await run(["--help"]);
    expect(stdout).toMatch(/EXIT CODES[\s\S]*3\s+Login needed/);
    for (const name of ["IR21_BASE_URL", "IR21_API_KEY", "IR21_PROFILE", "XDG_CONFIG_HOME"]) expect(stdout).toContain(name);
  });

  it("a group without its command prints its help on stderr and exits 1", async () => {
    const result = await run(["keys"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("ir21 keys <command>");
  });

  it("`ir21` alone prints the root help on stdout and exits 0 (like gh)", async () => {
    const bare = await run([]);
    expect(bare).toMatchObject({ code: 0, stderr: "" });
    expect(bare.stdout).toBe((await run(["--help"])).stdout);
  });

  it("--version", async () => {
    expect(await run(["--version"])).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });
});

describe("usage errors exit 1 and name the problem", () => {
  it.each([
    [["kees", "list"], /Unknown command "kees"[\s\S]*Did you mean `ir21 keys`/],
    [["keys", "lst"], /Unknown command "lst" for `ir21 keys`[\s\S]*ir21 keys list/],
    [["keys", "list", "--bogus"], /Unknown flag --bogus for `ir21 keys list`/],
    [["keys", "--bogus", "list"], /Unknown flag --bogus for `ir21 keys`/],
    [["keys", "create"], /Missing <name>: a name to recognise the key by[\s\S]*e\.g\. `ir21 keys create ci-deploy`/],
    [["keys", "revoke"], /Missing <key-id>: the key's id \(key_…\)/],
    [["lookup"], /Missing <number-or-imsi>: a phone number[\s\S]*e\.g\. `ir21 lookup \+8613912345678`/],
    [["webhooks", "test"], /Missing <webhook-id>: the subscription's id \(whk_…\)/],
    [["deliveries", "show"], /Missing <delivery-id>/],
    [["deliveries", "list", "whk_a", "whk_b"], /Unexpected argument "whk_b"/],
    [["webhooks", "create", "https://a.example", "--url", "https://b.example", "--events", "all"], /Unexpected argument "https:\/\/b\.example"/],
    [["api"], /Missing <path>: the route, starting with \//],
    [["api", "-X", "GET", "GET", "/v1/meta"], /--method was given more than once/],
    [["keys", "create", "a", "b"], /Unexpected argument "b"/],
    [["keys", "revoke", "key_x", "--yes=maybe"], /--yes takes no value/],
    [["login", "--phone"], /--phone needs a value/],
    [["login", "--phone", "1", "--phone", "2"], /--phone was given more than once/],
    [["--profile"], /--profile needs a value/],
    [["--profile", "../x", "whoami"], /Invalid profile name/],
    [["login", "--send-only", "--code", "123456"], /does not take --code/],
  ])("ir21 %j", async (argv, message) => {
    const result = await run(argv as string[]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message as RegExp);
  });

  it("under --json the error is a JSON object on stderr", async () => {
    const result = await run(["--json", "keys", "create"]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({
      error: { code: "USAGE", message: "Missing <name>: a name to recognise the key by (1-64 characters)", hint: "e.g. `ir21 keys create ci-deploy`. Run `ir21 keys create --help` for usage." },
    });
  });

  it("a server that cannot be reached is exit 2 with NETWORK_ERROR", async () => {
    const result = await run(["contact", "--name", "a", "--email", "a@example.com", "--company", "c", "--message", "long enough message"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: NETWORK_ERROR: /m);
  });
});

describe("global flags are accepted anywhere before --", () => {
  it("splits them off wherever they are", () => {
    const { globals, rest } = extractGlobals(["keys", "--json", "create", "--profile=work", "name", "--base-url", "http://x", "--no-input"]);
    expect(globals).toMatchObject({ json: true, profile: "work", baseUrl: "http://x", noInput: true });
    expect(rest).toEqual(["keys", "create", "name"]);
    expect(extractGlobals(["contact", "--", "--json"]).rest).toEqual(["contact", "--", "--json"]);
  });

  it("collects repeatable flags in order and accepts --flag=value", () => {
    const probe: Ir21Command = {
      meta: { description: "probe" },
      args: { header: { type: "string" }, secret: { type: "string" } },
      help: { summary: "probe", repeatable: ["header"] },
    };
    const root: Ir21Command = { meta: {}, subCommands: { probe }, help: { summary: "root" } };
    const invocation = parseInvocation(root, extractGlobals([]).globals, ["probe", "--header", "A: 1", "--secret=s", "--header=B: 2"]);
    expect(invocation.path).toEqual(["probe"]);
    expect(invocation.repeated).toEqual({ header: ["A: 1", "B: 2"] });
  });
});

describe("the 0.1 spellings are rewritten to the new grammar, each with a warning", () => {
  const parse = (argv: string[]) => {
    const { globals, rest } = extractGlobals(argv);
    const invocation = parseInvocation(tree, globals, rest);
    const dash = invocation.rawArgs.indexOf("--");
    return { flags: invocation.rawArgs.slice(invocation.path.length, dash), positionals: invocation.rawArgs.slice(dash + 1), repeated: invocation.repeated, notices: invocation.notices };
  };

  it.each([
    [["webhooks", "create", "--url", "https://a.example/h", "--event", "a", "--event=b", "--country", "CN"], ["https://a.example/h"], { events: ["a", "b"], countries: ["CN"] }, ["--url", "--event", "--event", "--country"]],
    [["deliveries", "show", "dlv_1", "-w", "whk_1"], ["dlv_1", "whk_1"], {}, ["-w"]],
    [["deliveries", "show", "--session", "lsn_1", "dlv_1"], ["dlv_1", "lsn_1"], {}, ["--session"]],
    [["deliveries", "list", "--webhook=whk_1", "--status", "failed"], ["whk_1"], {}, ["--webhook"]],
    [["deliveries", "retry", "dlv_1", "dlv_2", "-w", "whk_1"], ["dlv_1", "dlv_2", "whk_1"], {}, ["-w"]],
    [["trigger", "--subscription", "whk_1", "network.added"], ["network.added", "whk_1"], {}, ["--subscription"]],
    [["changes", "--since", "none", "--type", "operator.updated", "--operator", "cn.x"], [], { events: ["operator.updated"], operators: ["cn.x"] }, ["--type", "--operator"]],
    [["export", "--format", "csv", "-o", "f.csv"], ["number-ranges"], {}, ["--format"]],
    [["export", "--format", "csv", "--resource", "operators", "-o", "f.csv"], ["operators"], {}, ["--format", "--resource"]],
    [["export", "--resource", "operators", "--format", "csv", "-o", "f.csv"], ["operators"], {}, ["--resource", "--format"]],
    [["export", "--format", "snapshot", "-o", "s.json"], ["snapshot"], {}, ["--format"]],
    [["api", "post", "/v1/lookup/batch"], ["/v1/lookup/batch"], {}, ["`ir21 api post <path>`"]],
  ])("ir21 %j", (argv, positionals, repeated, old) => {
    const parsed = parse(argv as string[]);
    expect(parsed.positionals).toEqual(positionals);
    expect(parsed.repeated).toEqual(repeated);
    expect(parsed.notices.map((notice) => notice.slice(0, notice.indexOf(" is deprecated")))).toEqual(old);
    for (const notice of parsed.notices) expect(notice).toMatch(/ is deprecated: use .+ \(the old spelling stops working in ir21 0\.3\.0\)\.$/);
  });

  it("names the replacement: a flag, or the argument with the command's usage", () => {
    const { notices } = parse(["webhooks", "create", "--url", "https://a.example/h", "--event", "all"]);
    expect(notices).toEqual([
      "--url is deprecated: use the <url> argument, `ir21 webhooks create <url> [flags]` (the old spelling stops working in ir21 0.3.0).",
      "--event is deprecated: use --events (the old spelling stops working in ir21 0.3.0).",
    ]);
    expect(parse(["api", "GET", "/v1/meta"]).flags).toEqual(["--method=GET"]);
    expect(parse(["api", "DELETE", "/x"]).notices[0]).toContain("use `ir21 api <path> -X DELETE`");
  });

  it("the current spellings warn about nothing, and a flag that is current is never taken for an old one", () => {
    for (const argv of [
      ["webhooks", "create", "https://a.example/h", "--events", "all", "--countries", "CN"],
      ["webhooks", "update", "whk_1", "--url", "https://b.example/h"],
      ["deliveries", "list", "whk_1"],
      ["api", "/v1/meta", "-X", "GET"],
      ["export", "snapshot", "-o", "s.json"],
    ]) {
      expect(parse(argv).notices, argv.join(" ")).toEqual([]);
    }
    expect(parse(["webhooks", "update", "whk_1", "--url", "https://b.example/h"]).flags).toEqual(["--url=https://b.example/h"]);
  });

  it("warns on stderr and runs; the warning is printed under --json too", async () => {
    const result = await run(["--json", "webhooks", "create", "--url", "https://a.example/h", "--event", "all"]);
    expect(result.code).toBe(3); // no login: the command ran (nothing was sent)
    expect(result.stderr).toContain("! --url is deprecated: use the <url> argument");
    expect(JSON.parse(result.stderr.trim().split("\n").at(-1)!).error.code).toBe("AUTH_REQUIRED");
  });
});
