import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, signIn, startTestServer, type TestServer } from "@ir21/server/testing";
import { CliSandbox } from "./harness.ts";

/**
 * What issue 16 added to the CLI, through the built bundle against a live server: raw calls
 * (`ir21 api`), networks, capabilities, several numbers in one lookup, shell completion, output for
 * pipes (TSV) and terminals (fitted tables), `--color`, and local validation before any request.
 * Expected values come from the server's own HTTP answers, not from the CLI's code.
 */

let server: TestServer;
let cli: CliSandbox;
let key: string;
let keyEnv: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer({ dataset: "demo" });
  key = (await createApiKey(server, await signIn(server))).key;
  keyEnv = { IR21_API_KEY: key };
  cli = new CliSandbox(server);
}, 60_000);
afterAll(async () => {
  cli.cleanup();
  await server.close();
});

const withKey = (path: string) => server.json(path, { headers: { "x-api-key": key } });

describe("ir21 api", () => {
  it("GET (the default method) prints the route's answer as the server sent it, with the profile's API key", async () => {
    const result = await cli.run(["api", "/v1/meta"], { env: keyEnv });
    expect(result.code).toBe(0);
    const direct = await withKey("/v1/meta");
    const printed = result.json();
    expect(printed.code).toBe(0);
    expect(printed.data.dataset_version).toBe(direct.body.data.dataset_version);
    expect(printed.data.counts).toEqual(direct.body.data.counts);
    // The full projection needs the key: number ranges answer only with it.
    expect((await cli.run(["api", "/v1/number-ranges?limit=1"], { env: keyEnv })).json().data.items).toHaveLength(1);
  });

  it("--field goes in the query for GET and in a typed JSON body for -X POST; --data sends JSON as given (POST by default)", async () => {
    const query = await cli.run(["api", "/v1/networks", "--field", "country=CN", "-F", "limit=2"], { env: keyEnv });
    expect(query.json().data.items.map((n: { id: string }) => n.id)).toEqual((await withKey("/v1/networks?country=CN&limit=2")).body.data.items.map((n: { id: string }) => n.id));
    const batch = await cli.run(["api", "/v1/lookup/batch", "--data", '{"numbers":["+8613912345678","12"]}'], { env: keyEnv });
    expect(batch.code).toBe(0);
    expect(batch.json().data.items.map((i: { range_holder?: string; error?: { code: string } }) => i.range_holder ?? i.error?.code)).toEqual(["China Mobile", "INVALID_REQUEST"]);
    const fromStdin = await cli.run(["api", "-X", "post", "/v1/lookup/batch", "--data", "@-"], { env: keyEnv, input: '{"numbers":["+8613912345678"]}' });
    expect(fromStdin.json().data.items[0].range_holder).toBe("China Mobile");
    const typedBody = await cli.run(["api", "--method", "POST", "/v1/lookup/batch", "-F", "numbers=+8613912345678"], { env: keyEnv });
    expect(typedBody.code).toBe(2); // numbers must be an array: the body went as JSON and the service said so
    expect(typedBody.stderr).toMatch(/^error: INVALID_REQUEST: /m);
  });

  it("uses the login's session for console routes, and -i prints the status and headers first", async () => {
    await cli.login();
    const usage = await cli.run(["api", "/console/usage", "-i"]);
    expect(usage.code).toBe(0);
    expect(usage.stdout).toMatch(/^HTTP 200\b.*\n/);
    expect(usage.stdout).toMatch(/^x-request-id: req_/m);
    const body = JSON.parse(usage.stdout.slice(usage.stdout.indexOf("\n\n") + 2));
    expect(body.data).toHaveProperty("quota");
  });

  it("a non-2xx answer prints its body on stdout and the error on stderr, with the CLI's exit codes", async () => {
    const missing = await cli.run(["api", "/v1/countries/ZZ"], { env: keyEnv });
    expect(missing.code).toBe(2);
    expect(missing.json()).toMatchObject({ code: "NOT_FOUND" });
    expect(missing.stderr).toMatch(/^error: NOT_FOUND: /m);
    const anonymous = await cli.run(["api", "/v1/number-ranges"], { env: { IR21_API_KEY: undefined, XDG_CONFIG_HOME: join(cli.home, "empty-config") } });
    expect(anonymous.code).toBe(3);
  });

  it("refuses a bad method, a path without /, --data with --field, --data with GET, and --data that is not JSON, before any request", async () => {
    for (const args of [
      ["api", "-X", "FETCH", "/v1/meta"],
      ["api", "v1/meta"],
      ["api", "/v1/lookup/batch", "--data", "{}", "--field", "a=1"],
      ["api", "-X", "GET", "/v1/meta", "--data", "{}"],
      ["api", "/v1/lookup/batch", "--data", "{not json"],
    ]) {
      const result = await cli.run(args, { env: { IR21_BASE_URL: "http://127.0.0.1:9" } });
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr).not.toContain("NETWORK_ERROR");
    }
  });
});

describe("ir21 networks, capabilities and lookup of several numbers", () => {
  it("networks lists what /v1/networks answers, filters by MCC, shows one, and checks MCC/MNC locally", async () => {
    const listed = (await cli.run(["--json", "networks", "--country", "CN", "--all"], { env: keyEnv })).json();
    const direct = (await withKey("/v1/networks?country=CN&limit=1000")).body.data;
    expect(listed.map((n: { id: string }) => n.id)).toEqual(direct.items.map((n: { id: string }) => n.id));
    const one = (await cli.run(["--json", "networks", direct.items[0].id], { env: keyEnv })).json();
    expect(one).toEqual((await withKey(`/v1/networks/${direct.items[0].id}`)).body.data);
    const piped = await cli.run(["networks", "--mcc", "460"], { env: keyEnv });
    expect(piped.stdout.trim().split("\n").map((line) => line.split("\t")[0])).toEqual((await withKey("/v1/networks?mcc=460")).body.data.items.map((n: { id: string }) => n.id));
    const bad = await cli.run(["networks", "--mcc", "46"], { env: { ...keyEnv, IR21_BASE_URL: "http://127.0.0.1:9" } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--mcc must be 3 digits");
  });

  it("capabilities lists what /v1/capabilities answers (a key or a login needed)", async () => {
    const listed = (await cli.run(["--json", "capabilities", "--country", "CN", "--all"], { env: keyEnv })).json();
    const direct = (await withKey("/v1/capabilities?country=CN&limit=1000")).body.data;
    expect(listed.length).toBeGreaterThan(0);
    expect(listed).toEqual(direct.items);
    const anonymous = await cli.run(["capabilities"], { env: { XDG_CONFIG_HOME: join(cli.home, "nobody") } });
    expect(anonymous.code).toBe(3);
  });

  it("several numbers (arguments or stdin) go through the batch endpoint, 100 a request, in order", async () => {
    const numbers = ["+8613912345678", "+8613012345678", "12"];
    const args = await cli.run(["--json", "lookup", ...numbers], { env: keyEnv });
    expect(args.code).toBe(0);
    const direct = (await server.json("/v1/lookup/batch", { method: "POST", headers: { "x-api-key": key }, body: { numbers } })).body.data;
    expect(args.json()).toEqual(direct.items);
    // 150 numbers from stdin, comments and blank lines skipped: two requests, answers in the order given.
    const many = Array.from({ length: 150 }, (_, i) => `+86139${String(10_000_000 + i)}`);
    const before = (await withKey("/v1/meta")).body.meta;
    const stdin = await cli.run(["lookup", "-"], { env: keyEnv, input: `# numbers\n${many.join("\n")}\n\n` });
    expect(stdin.code).toBe(0);
    const rows = stdin.stdout.trim().split("\n").map((line) => line.split("\t"));
    expect(rows.map((row) => row[0])).toEqual(many);
    expect(rows.every((row) => row[3] === "China Mobile")).toBe(true);
    expect(before).toBeDefined();
  });
});

describe("ir21 completion", () => {
  /** Runs bash's completion function on a command line; returns what it offers. */
  function complete(script: string, words: string[]): string[] {
    const file = join(cli.home, "completion.bash");
    writeFileSync(file, script);
    const line = words.map((word) => `'${word}'`).join(" ");
    const run = spawnSync("bash", ["-c", `source ${file}; COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _ir21; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    return run.stdout.split("\n").filter(Boolean);
  }

  it("bash: commands, subcommands, flags and an enum's values, a global flag's value skipped", async () => {
    const result = await cli.run(["completion", "bash"]);
    expect(result.code).toBe(0);
    const help = (await cli.run(["--help"])).stdout;
    const top = complete(result.stdout, ["ir21", ""]);
    // Every command the root help lists completes.
    for (const command of [...help.matchAll(/^ {2}([a-z-]+):/gm)].map((m) => m[1]!)) expect(top).toContain(command);
    expect(complete(result.stdout, ["ir21", "ke"])).toEqual(["keys"]);
    expect(complete(result.stdout, ["ir21", "--profile", "keys", "cr"])).toEqual([]); // "keys" is the profile's name here
    expect(complete(result.stdout, ["ir21", "--profile", "work", "keys", "cr"])).toEqual(["create"]);
    expect(complete(result.stdout, ["ir21", "deliveries", "list", "--status", ""])).toEqual(["pending", "delivered", "failed", "cancelled"]);
    expect(complete(result.stdout, ["ir21", "--color", "a"])).toEqual(["auto", "always"]);
    expect(complete(result.stdout, ["ir21", "export", ""])).toEqual(["snapshot", "countries", "operators", "networks", "number-ranges", "capabilities"]);
    expect(complete(result.stdout, ["ir21", "export", "op"])).toEqual(["operators"]);
    expect(complete(result.stdout, ["ir21", "config", "unset", ""])).toEqual(["base-url", "api-key", "session"]);
    // Only the first argument has those values: after it, flags.
    expect(complete(result.stdout, ["ir21", "config", "set", "base-url", "--j"])).toEqual(["--json"]);
    expect(complete(result.stdout, ["ir21", "export", "operators", ""])).not.toContain("snapshot");
    // The new flag names complete; the 0.1 spellings (still accepted, with a warning) are not offered.
    expect(complete(result.stdout, ["ir21", "webhooks", "create", "--ev"])).toEqual(["--events"]);
    expect(complete(result.stdout, ["ir21", "changes", "--cou"])).toEqual(["--countries"]);
    expect(complete(result.stdout, ["ir21", "webhooks", "create", "--u"])).toEqual([]);
    expect(complete(result.stdout, ["ir21", "operators", "--se"])).toEqual(["--search"]);
    expect(complete(result.stdout, ["ir21", "api", "--me"])).toEqual(["--method"]);
    expect(complete(result.stdout, ["ir21", "completion", ""])).toEqual(["bash", "zsh", "fish"]);
    expect(complete(result.stdout, ["ir21", "webhooks", "rotate-secret", "--gr"])).toEqual(["--grace"]);
  });

  it("zsh (through bashcompinit) and fish scripts name every command; an unknown shell is a usage error", async () => {
    const zsh = await cli.run(["completion", "zsh"]);
    expect(zsh.stdout).toContain("bashcompinit");
    expect(zsh.stdout).toContain("complete -F _ir21 ir21");
    const fish = await cli.run(["completion", "fish"]);
    expect(fish.stdout).toContain("complete -c ir21 -n '__fish_use_subcommand' -a 'networks'");
    expect(fish.stdout).toContain("complete -c ir21 -l color -x -a 'auto always never'");
    // Where the shells are installed, their parsers accept the scripts.
    for (const [shell, script, check] of [["zsh", zsh.stdout, ["-n"]], ["fish", fish.stdout, ["--no-execute"]]] as const) {
      const file = join(cli.home, `completion.${shell}`);
      writeFileSync(file, script);
      const parsed = spawnSync(shell, [...check, file], { encoding: "utf8" });
      if (parsed.error && (parsed.error as NodeJS.ErrnoException).code === "ENOENT") continue;
      expect(parsed.status, `${shell}: ${parsed.stderr}`).toBe(0);
    }
    const bad = await cli.run(["completion", "tcsh"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Unknown shell "tcsh"');
  });
});

describe("output and local checks", () => {
  it("tables: TSV without header when piped, a header and columns fitted to the terminal's width otherwise", async () => {
    const piped = await cli.run(["countries"]);
    const direct = (await server.json("/v1/countries")).body.data.items as Array<{ iso2: string; name: string }>;
    expect(piped.stdout.trim().split("\n").map((line) => line.split("\t").slice(0, 3))).toEqual(direct.map((c) => [c.iso2, expect.any(String), c.name]));
    const narrow = await cli.run(["operators", "--country", "CN"], { env: { ...keyEnv, IR21_FORCE_TTY: "60" } });
    const lines = narrow.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+COUNTRY/);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(60);
    expect(narrow.stdout).toContain("…");
    // The other columns gave way; the ids (to copy into `ir21 operators <operator-id>`) are whole.
    const ids = (await withKey("/v1/operators?country=CN")).body.data.items.map((o: { id: string }) => o.id);
    expect(lines.slice(1).map((line) => line.split(/\s+/)[0]).sort()).toEqual([...ids].sort());
  });

  it("--color always colours even a pipe; never and auto (a pipe) do not", async () => {
    const env = { NO_COLOR: undefined };
    expect((await cli.run(["--color", "always", "countries"], { env: { ...env, IR21_FORCE_TTY: "200" } })).stdout).toContain("\x1b[1m");
    expect((await cli.run(["--color=always", "--help"], { env })).stdout).toContain("\x1b[");
    expect((await cli.run(["--color", "never", "countries"], { env: { ...env, IR21_FORCE_TTY: "200" } })).stdout).not.toContain("\x1b[");
    expect((await cli.run(["--help"], { env })).stdout).not.toContain("\x1b[");
    const bad = await cli.run(["--color", "sometimes", "countries"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Invalid value "sometimes" for --color');
  });

  it("refuses an unknown event type, a grace out of range and a malformed ETag before any request; short event names are accepted", async () => {
    const offline = { IR21_BASE_URL: "http://127.0.0.1:9", IR21_API_KEY: "ir21_x" };
    const cases: Array<[string[], string]> = [
      [["changes", "--since", "none", "--events", "operator.renamed"], 'Unknown event type "operator.renamed"'],
      [["webhooks", "create", "https://example.com/h", "--events", "ir21.nope"], 'Unknown event type "ir21.nope"'],
      [["webhooks", "rotate-secret", "whk_x", "--grace", "90000"], "--grace must be 0 to 86400"],
      [["webhooks", "rotate-secret", "whk_x", "--grace", "1h"], "--grace must be a whole number"],
      [["export", "snapshot", "-o", join(cli.home, "s.json"), "--if-none-match", 'a"b'], "--if-none-match is not an ETag"],
    ];
    for (const [args, message] of cases) {
      const result = await cli.run(args, { env: offline });
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr).toContain(message);
      expect(result.stderr).not.toContain("NETWORK_ERROR");
    }
    // Short and long forms reach the server as the long form.
    const short = await cli.run(["--json", "changes", "--since", "none", "--events", "operator.updated,ir21.catalog.updated"], { env: keyEnv });
    expect(short.code).toBe(0);
    expect(short.json().items.every((e: { type: string }) => ["ir21.operator.updated", "ir21.catalog.updated"].includes(e.type))).toBe(true);
  });

  it("a bare version is quoted for If-None-Match: an unchanged snapshot is not downloaded", async () => {
    const first = await cli.run(["--json", "export", "snapshot", "-o", join(cli.home, "snap.json")], { env: keyEnv });
    const etag: string = first.json().etag;
    expect(etag).toMatch(/^".+"$/);
    const again = await cli.run(["--json", "export", "snapshot", "-o", join(cli.home, "snap.json"), "--if-none-match", etag.slice(1, -1)], { env: keyEnv });
    expect(again.json()).toMatchObject({ not_modified: true });
  });

  it("`ir21` alone prints the help on stdout and exits 0", async () => {
    const bare = await cli.run([]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toBe((await cli.run(["--help"])).stdout);
  });
});
