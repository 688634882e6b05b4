import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, demoDataset, importDataset, signIn, startTestServer, type TestServer } from "@ir21/server/testing";
import { CliSandbox } from "./harness.ts";

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

describe("ir21 lookup", () => {
  it("looks up a number with full fields (API key) and the public projection (anonymous)", async () => {
    const full = await cli.run(["--json", "lookup", "+8613912345678"], { env: keyEnv });
    expect(full.code).toBe(0);
    expect(full.json()).toMatchObject({
      number: "+8613912345678",
      country_iso2: "CN",
      valid: true,
      range_holder: "China Mobile",
      operator: { id: "cn.china-mobile", name_local: "中国移动" },
      range: { prefix: "86139" },
      match: { prefix: "86139" },
    });
    const anonymous = await cli.run(["--json", "lookup", "+8613912345678"]);
    expect(anonymous.code).toBe(0);
    // The public projection of a number lookup, as docs/api.md lists it.
    expect(Object.keys(anonymous.json()).sort()).toEqual(["country_iso2", "formats", "location", "number", "number_type", "operator", "ported", "range_holder", "range_holder_reason", "source", "time_zones", "valid", "validation_reason"]);

    const national = await cli.run(["lookup", "139 1234 5678", "--country", "CN"], { env: keyEnv });
    expect(national.code).toBe(0);
    expect(national.stdout).toMatch(/^Range holder\s+China Mobile \/ 中国移动$/m);
    expect(national.stdout).toMatch(/^Operator\s+China Mobile \/ 中国移动 \(cn\.china-mobile\)$/m);
    expect(national.stderr).toContain("original holder");
  });

  it("takes 14-15 digits as an IMSI, and --number / --imsi force the reading", async () => {
    const imsi = await cli.run(["--json", "lookup", "460110123456789"], { env: keyEnv });
    expect(imsi.code).toBe(0);
    expect(imsi.json()).toMatchObject({ imsi: "460110123456789", mcc: "460", mnc: "11", network: { id: "460-11" }, operator: { id: "cn.china-telecom" } });
    const forced = await cli.run(["--json", "lookup", "46011012", "--imsi"], { env: keyEnv });
    expect(forced.json().imsi).toBe("46011012");
    const notANumber = await cli.run(["lookup", "hello"], { env: keyEnv });
    expect(notANumber.code).toBe(2);
    expect(notANumber.stderr).toMatch(/^error: INVALID_REQUEST: /m);
    expect((await cli.run(["lookup", "1", "--imsi", "--country", "CN"])).code).toBe(1);
  });
});

describe("ir21 lookup --fields", () => {
  it("asks the service for those fields only: one number, an IMSI, several; unknown names are the service's 400", async () => {
    const fields = "number,valid,number_type,range_holder,operator.id";
    const whole = (await server.json("/v1/lookup?number=%2B8613912345678", { headers: { "x-api-key": key } })).body.data;
    const one = await cli.run(["--json", "lookup", "+8613912345678", "--fields", fields], { env: keyEnv });
    expect(one.code).toBe(0);
    expect(one.json()).toEqual({ number: whole.number, valid: whole.valid, number_type: whole.number_type, range_holder: whole.range_holder, operator: { id: whole.operator.id } });
    const human = await cli.run(["lookup", "+8613912345678", "--fields", fields], { env: keyEnv });
    expect(human.stdout).toMatch(/^range_holder\s+China Mobile$/m);
    expect(human.stdout).toMatch(/^operator\s+\{"id":"cn\.china-mobile"\}$/m);
    expect(human.stdout).not.toMatch(/formats/);

    const imsi = await cli.run(["--json", "lookup", "460110123456789", "--fields", "mcc,mnc,network.id"], { env: keyEnv });
    expect(imsi.json()).toEqual({ mcc: "460", mnc: "11", network: { id: "460-11" } });

    const numbers = ["+8613912345678", "nope", "+447700900123"];
    const wholeItems = (await server.json("/v1/lookup/batch", { method: "POST", headers: { "x-api-key": key }, body: { numbers } })).body.data.items;
    const many = await cli.run(["--json", "lookup", ...numbers, "--fields", "number,range_holder"], { env: keyEnv });
    expect(many.code).toBe(0);
    expect(many.json()).toEqual(wholeItems.map((item: { number: string; range_holder?: string; error?: unknown }) => (item.error ? item : { number: item.number, range_holder: item.range_holder })));
    const table = await cli.run(["lookup", ...numbers, "--fields", "number,range_holder"], { env: keyEnv });
    // Piped: the table's rows tab-separated, a column per field asked and the error.
    expect(table.stdout.split("\n").filter(Boolean)).toEqual(["+8613912345678\tChina Mobile\t-", "nope\t-\tINVALID_REQUEST", `+447700900123\t${wholeItems[2].range_holder ?? "-"}\t-`]);

    const unknown = await cli.run(["lookup", "+8613912345678", "--fields", "number,carrier"], { env: keyEnv });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/INVALID_REQUEST: fields: carrier/);
    const anonymous = await cli.run(["lookup", "+8613912345678", "--fields", "number,range"]);
    expect(anonymous.code).toBe(2);
    expect(anonymous.stderr).toMatch(/range: not in the public projection/);
    expect((await cli.run(["lookup", "+8613912345678", "--fields", ","], { env: keyEnv })).code).toBe(1);
  });
});

describe("ir21 countries / operators / ranges / meta", () => {
  it("lists and shows with stable JSON", async () => {
    const countries = (await cli.run(["--json", "countries"])).json();
    expect(countries).toEqual((await server.json("/v1/countries")).body.data.items);
    expect(countries.map((c: { iso2: string }) => c.iso2)).toEqual(expect.arrayContaining(["CN", "GB"]));
    expect((await cli.run(["--json", "countries", "cn"])).json()).toMatchObject({ iso2: "CN", calling_codes: ["86"] });
    expect((await cli.run(["countries"])).stdout).toMatch(/^CN\s+CHN\s+China\s+中国\s+\+86\s+460/m);

    const operators = await cli.run(["--json", "operators", "--country", "CN"], { env: keyEnv });
    expect(operators.json().map((o: { id: string }) => o.id).sort()).toEqual(["cn.china-mobile", "cn.china-telecom", "cn.china-unicom"]);
    expect(operators.stderr).toBe(""); // one page: nothing more to say
    const detail = (await cli.run(["--json", "operators", "cn.china-mobile"], { env: keyEnv })).json();
    expect(detail).toMatchObject({ id: "cn.china-mobile", networks: [expect.objectContaining({ id: "460-00" })] });

    const ranges = await cli.run(["--json", "ranges", "--country", "CN", "--kind", "mobile"], { env: keyEnv });
    expect(ranges.code).toBe(0);
    expect(ranges.json().length).toBeGreaterThan(0);
    expect(ranges.json().every((r: { country_iso2: string; kind: string }) => r.country_iso2 === "CN" && r.kind === "mobile")).toBe(true);
    expect((await cli.run(["ranges", "--prefix", "86139"], { env: keyEnv })).stdout).toMatch(/^e164-86139\s+e164\s+mobile\s+CN\s+86139/m);
    expect((await cli.run(["ranges", "--kind", "satellite"])).code).toBe(1);

    const meta = (await cli.run(["--json", "meta"])).json();
    expect(meta).toMatchObject({ source_mode: "demo", counts: { countries: expect.any(Number) } });
  });

  it("a page of a longer list: --json prints the page's array, stderr how to get the next; --all every page", async () => {
    const paged = await cli.run(["--json", "operators", "--limit", "2"], { env: keyEnv });
    expect(paged.json()).toHaveLength(2);
    const direct = (await server.json("/v1/operators?limit=2", { headers: { "x-api-key": key } })).body.data;
    expect(paged.json()).toEqual(direct.items);
    expect(paged.stderr).toContain(`ir21 operators --limit 2 --cursor ${direct.next_cursor}`);
    const next = (await cli.run(["--json", "operators", "--limit", "2", "--cursor", direct.next_cursor], { env: keyEnv })).json();
    expect(next).toEqual((await server.json(`/v1/operators?limit=2&cursor=${encodeURIComponent(direct.next_cursor)}`, { headers: { "x-api-key": key } })).body.data.items);
    const all = await cli.run(["--json", "operators", "--limit", "1", "--all"], { env: keyEnv });
    expect(all.json().length).toBeGreaterThan(2);
    expect(all.stderr).toBe("");
  });

  it("key-only routes without credentials: exit 3 with the service's code; a login works instead of a key", async () => {
    const anonymous = await cli.run(["--json", "ranges"]);
    expect(anonymous.code).toBe(3);
    expect(anonymous.jsonError()).toMatchObject({ code: "UNAUTHORIZED", status: 401 });
    const revokedKeyOwner = await signIn(server);
    const revoked = await createApiKey(server, revokedKeyOwner);
    await server.json(`/console/api-keys/${revoked.id}`, { method: "DELETE", headers: revokedKeyOwner.headers });
    expect((await cli.run(["ranges"], { env: { IR21_API_KEY: revoked.key } })).code).toBe(3);

    const user = new CliSandbox(server);
    try {
      await user.login();
      expect((await user.run(["--json", "ranges", "--limit", "1"])).json()).toHaveLength(1);
      // A key given on the command line wins over the environment's.
      expect((await user.run(["ranges"], { env: { IR21_API_KEY: revoked.key } })).code).toBe(3);
      expect((await user.run(["ranges", "--limit", "1", "--api-key", key], { env: { IR21_API_KEY: revoked.key } })).code).toBe(0);
    } finally {
      user.cleanup();
    }
  });
});

describe("ir21 changes", () => {
  it("lists the log after a version and says where to continue", async () => {
    const log = await cli.run(["--json", "changes", "--since", "none"], { env: keyEnv });
    expect(log.code).toBe(0);
    const page = log.json();
    expect(Object.keys(page).sort()).toEqual(["current_version", "items", "next_cursor"]);
    expect(page.items.some((e: { type: string }) => e.type === "ir21.catalog.updated")).toBe(true);
    const human = await cli.run(["changes", "--since", "none"], { env: keyEnv });
    expect(human.stderr).toContain(`--since ${page.current_version}`);
    const upToDate = (await cli.run(["--json", "changes", "--since", page.current_version, "--all"], { env: keyEnv })).json();
    expect(upToDate).toEqual({ items: [], next_cursor: null, current_version: page.current_version });
    const unknown = await cli.run(["changes", "--since", "1999-01-01.000001"], { env: keyEnv });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("UNKNOWN_DATASET_VERSION");
    expect((await cli.run(["changes"], { env: keyEnv })).stderr).toContain("Missing required flag --since");
  });
});

describe("ir21 export", () => {
  it("writes a CSV and a snapshot to files, skips an unchanged version, and streams to stdout with -o -", async () => {
    const csvPath = join(cli.home, "ranges.csv");
    const csv = await cli.run(["--json", "export", "number-ranges", "-o", csvPath], { env: keyEnv });
    expect(csv.code).toBe(0);
    const summary = csv.json();
    expect(summary).toMatchObject({ not_modified: false, file: csvPath, format: "csv", resource: "number-ranges", etag: expect.stringContaining("number-ranges") });
    const text = readFileSync(csvPath, "utf8");
    expect(text.split("\r\n")[0]).toMatch(/^id,plan,kind,country_iso2,prefix/);
    expect(summary.bytes).toBe(Buffer.byteLength(text));
    expect(existsSync(`${csvPath}.partial`)).toBe(false);
    // No progress line when stderr is not a terminal.
    expect(csv.stderr).toBe("");

    const snapshotPath = join(cli.home, "snapshot.json");
    const snapshot = await cli.run(["--json", "export", "snapshot", "-o", snapshotPath], { env: keyEnv });
    const { etag } = snapshot.json();
    const parsed = JSON.parse(readFileSync(snapshotPath, "utf8"));
    expect(parsed).toMatchObject({ source_mode: "demo", countries: expect.any(Array), number_ranges: expect.any(Array) });
    const before = statSync(snapshotPath).mtimeMs;
    const unchanged = await cli.run(["--json", "export", "snapshot", "-o", snapshotPath, "--if-none-match", etag], { env: keyEnv });
    expect(unchanged.json()).toMatchObject({ not_modified: true, etag });
    expect(statSync(snapshotPath).mtimeMs).toBe(before);

    const piped = await cli.run(["export", "countries", "-o", "-"], { env: keyEnv });
    expect(piped.code).toBe(0);
    expect(piped.stdout.split("\r\n")[0]).toBe("iso2,iso3,name,name_zh,calling_codes,mccs,source,source_license,source_attribution");

    expect((await cli.run(["export", "snapshot", "countries", "-o", snapshotPath], { env: keyEnv })).code).toBe(1);
    const unknown = await cli.run(["export", "ranges", "-o", "x"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Did you mean number-ranges?");
    expect((await cli.run(["export", "countries"])).stderr).toContain("--output");
    const missing = await cli.run(["export", "-o", "x.csv"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("Missing <resource>: what to export: snapshot, countries, operators, networks, number-ranges, capabilities");
    const anonymous = await cli.run(["export", "number-ranges", "-o", join(cli.home, "nope.csv")]);
    expect(anonymous.code).toBe(3);
    expect(existsSync(join(cli.home, "nope.csv"))).toBe(false);
  });
});

describe("export progress", () => {
  it("is drawn on a terminal's stderr only", async () => {
    const { main } = await import("@ir21/cli");
    const { PassThrough, Writable } = await import("node:stream");
    const runWith = async (tty: boolean) => {
      let stderr = "";
      const err = Object.assign(new Writable({ write: (chunk, _e, cb) => ((stderr += String(chunk)), cb()) }), { isTTY: tty });
      const out = Object.assign(new Writable({ write: (_chunk, _e, cb) => cb() }), { isTTY: tty });
      const stdin = new PassThrough();
      stdin.end();
      const env = { ...cli.env(), IR21_API_KEY: key };
      const code = await main(["export", "snapshot", "-o", join(cli.home, `progress-${tty}.json`)], { stdin, stdout: out, stderr: err, env });
      return { code, stderr };
    };
    const terminal = await runWith(true);
    expect(terminal.code).toBe(0);
    expect(terminal.stderr).toMatch(/\r\x1b\[2KDownloading snapshot: [\d.]+ (B|kB)/);
    expect(terminal.stderr).toContain("Wrote");
    const piped = await runWith(false);
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain("Downloading");
  });
});

describe("ir21 operators <id> (lineage)", () => {
  it("shows an operator's successor with reason and date", async () => {
    const next = demoDataset();
    const ee = next.operators.find((o) => o.id === "gb.ee")!;
    next.operators.push({ ...ee, id: "gb.orange", name: "Orange", brand: "Orange", status: "inactive", successor_id: "gb.ee", lineage: { date: "2010-04", reason: "merged", reference: "Orange UK and T-Mobile UK merged into Everything Everywhere (EE)", successors: null } });
    await importDataset(server.deps, next);
    const shown = await cli.run(["operators", "gb.orange"], { env: keyEnv });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^Successor\s+gb\.ee \(merged 2010-04\)$/m);
    const json = await cli.run(["--json", "operators", "gb.orange"], { env: keyEnv });
    expect(json.json()).toMatchObject({ successor_id: "gb.ee", lineage: { reason: "merged" }, listed: true });
  });
});
