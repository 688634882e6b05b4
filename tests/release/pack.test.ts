import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeliveryWorker, ManualClock, randomPhone, startTestServer, type TestServer } from "@ir21/server/testing";
import { deliveryHeaders, generateSecret } from "../../server/src/webhooks/delivery/signing.ts";
import { serveBetterSqlite3Prebuild, writeOfflineProject } from "./offline-install.ts";

/**
 * The release tarballs as people install them. `pnpm release:pack` (scripts/release-pack.js) packs
 * @ir21/sdk, @ir21/cli and @ir21/server into one folder; here the SDK is built first and the CLI bundle
 * is the one `pnpm test` builds before the suite (rebuilding it here would pull it from under the CLI
 * tests running beside this file).
 *
 * SDK: install the tarball with npm into two projects
 * OUTSIDE the workspace, as a user would: `npm install <tarball> --offline` (the SDK has no runtime
 * dependencies, so nothing is fetched). One is an ES module project, one CommonJS. Each consumer is
 * type-checked with `tsc --strict` (skipLibCheck off, NodeNext resolution, so the exports map and the
 * bundled declarations are what is checked; the compiler and @types/node are the consumer's own dev
 * tools, linked in after the install) and run against a live server.
 *
 * CLI: `npm install -g` of the CLI tarball into an empty prefix, run against a live server.
 *
 * Server: the tarball installed with its runtime dependencies into an empty project by pnpm, offline,
 * from the workspace's store and resolution (offline-install.ts says why), then the installed
 * `ir21-server` is started as a process (first start imports the reference data), the installed CLI
 * talks to it, and SIGTERM stops it with exit 0.
 */

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));

const sdkDir = join(root, "sdk");
const consumerSource = fileURLToPath(new URL("./consumer/consumer.ts", import.meta.url));
const cjsConsumerSource = fileURLToPath(new URL("./consumer/consumer-cjs.ts", import.meta.url));
// CPU is shared: building and installing can be slow, but never hangs silently.
const STEP_TIMEOUT_MS = 180_000;
/** The issue's budget for what installing the SDK brings: one package, at most 1 MB unpacked. */
const MAX_INSTALLED_BYTES = 1_000_000;

let work: string;

let consumerDir: string;
let cjsDir: string;
let tarball: string;
let tarballs: string[];
let server: TestServer;
/** What `npm install <tarball>` put in node_modules of the ESM project, before the dev tools were linked. */
let installed: { packages: string[]; bytes: number };

async function sh(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  try {
    return await run(command, args, { cwd, timeout: STEP_TIMEOUT_MS, maxBuffer: 32 * 1024 * 1024, env: { ...process.env, ...env } });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

/** Every package directory under node_modules (scoped ones included), and the bytes of all files there. */
function inventory(modules: string): { packages: string[]; bytes: number } {
  const packages: string[] = [];
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith(".")) continue;
    if (entry.startsWith("@")) for (const scoped of readdirSync(join(modules, entry))) packages.push(`${entry}/${scoped}`);
    else packages.push(entry);
  }
  let bytes = 0;
  for (const entry of readdirSync(modules, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return { packages: packages.sort(), bytes };
}

/** A fresh project with the tarball installed by npm (offline), then the consumer's compiler linked in. */
async function consumerProject(dir: string, type: "module" | "commonjs", source: string, lib: string[]) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `ir21-sdk-consumer-${type}`, private: true, type }, null, 2));
  // --offline: the cache is not consulted for anything, since the tarball declares no dependencies.
  await sh("npm", ["install", tarball, "--offline", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock"], dir);
  const found = inventory(join(dir, "node_modules"));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify(
      {
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib, types: ["node"], strict: true, skipLibCheck: false, outDir: "out", noEmitOnError: true },
        files: ["consumer.ts"],
      },
      null,
      2,
    ),
  );
  copyFileSync(source, join(dir, "consumer.ts"));
  for (const name of ["typescript", "@types/node"]) {
    mkdirSync(dirname(join(dir, "node_modules", name)), { recursive: true });
    symlinkSync(realpathSync(join(root, "node_modules", name)), join(dir, "node_modules", name), "dir");
  }
  return found;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "ir21-sdk-pack-"));
  consumerDir = join(work, "consumer");
  cjsDir = join(work, "consumer-cjs");
  await sh("pnpm", ["run", "build"], sdkDir);
  const { stdout } = await sh(process.execPath, [join(root, "scripts/release-pack.js"), "--skip-build", "--out", join(work, "release")], root);
  tarballs = stdout.trim().split("\n").map((line) => line.split("\t")[0]!);
  tarball = tarballs.find((path) => /ir21-sdk-[\d.]+\.tgz$/.test(path))!;
  // No ESNext.Disposable in lib: the bundled declarations must not need it (README "TypeScript").
  installed = await consumerProject(consumerDir, "module", consumerSource, ["ES2023", "DOM", "DOM.Iterable"]);
  await consumerProject(cjsDir, "commonjs", cjsConsumerSource, ["ES2023"]);
  // The consumer subscribes a receiver on loopback; signatures carry the server clock, so start it at now.
  server = await startTestServer({ dataset: "demo", env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" }, clock: new ManualClock(Date.now()) });
}, 4 * STEP_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the packed @ir21/sdk", () => {
  it("passes publint (strict) on the tarball", async () => {
    const { stdout } = await sh(join(sdkDir, "node_modules/.bin/publint"), ["run", tarball, "--strict"], sdkDir);
    expect(stdout).toContain("All good!");
  });

  it("installs as one package of at most 1 MB, with no dependencies, no peers and nothing but dist and the README's examples", async () => {
    expect(installed.packages).toEqual(["@ir21/sdk"]);
    expect(installed.bytes).toBeLessThanOrEqual(MAX_INSTALLED_BYTES);
    const { stdout } = await sh("tar", ["tzf", tarball], work);
    const files = stdout.trim().split("\n").sort();
    expect(files.filter((f) => !(f === "package/package.json" || f === "package/README.md" || f === "package/LICENSE" || f.startsWith("package/dist/") || /^package\/examples\/[\w-]+\.ts$/.test(f)))).toEqual([]);
    // The README points at examples/: every file it names is in the package.
    const readme = readFileSync(join(sdkDir, "README.md"), "utf8");
    const named = [...readme.matchAll(/`(examples\/[\w-]+\.ts)`/g)].map((m) => `package/${m[1]}`);
    expect(named.length).toBeGreaterThan(0);
    expect(files).toEqual(expect.arrayContaining(named));
    const manifest = JSON.parse(readFileSync(join(consumerDir, "node_modules/@ir21/sdk/package.json"), "utf8"));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies ?? {}).toEqual({});
    for (const entry of [".", "./webhooks"]) {
      const name = entry === "." ? "index" : "webhooks";
      expect(manifest.exports[entry]).toEqual({
        import: { types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` },
        require: { types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` },
      });
    }
  });

  it("bundles tRPC, superjson and eventsource-parser: its code and declarations import nothing but their own chunks", () => {
    const dist = join(consumerDir, "node_modules/@ir21/sdk/dist");
    for (const file of readdirSync(dist)) {
      const text = readFileSync(join(dist, file), "utf8");
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
      const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
      expect(specifiers.filter((specifier) => !specifier.startsWith("./")), `${file} imports`).toEqual([]);
      // No server code or server-only names inlined either (the type bundle could otherwise carry them).
      expect(code, file).not.toMatch(/server\/src\/|\bKysely\b|\bH3Event\b|\bAppDeps\b|\bZod[A-Z]\w+|\bpino\b/);
    }
  });

  it("type-checks a consumer of every export with tsc --strict, skipLibCheck off", async () => {
    const exported = new Set<string>();
    for (const entry of ["index.d.ts", "webhooks.d.ts"]) {
      const text = readFileSync(join(consumerDir, "node_modules/@ir21/sdk/dist", entry), "utf8");
      const list = /export \{([^}]*)\};\s*$/.exec(text)![1]!;
      for (const item of list.split(",")) exported.add(item.trim().replace(/^type\s+/, "").split(/\s+as\s+/).at(-1)!);
    }
    const consumer = readFileSync(consumerSource, "utf8");
    const unused = [...exported].filter((name) => !new RegExp(`\\b${name}\\b`).test(consumer));
    expect(unused, "exports the consumer fixture does not use").toEqual([]);

    await sh(process.execPath, [join(consumerDir, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], consumerDir);
  }, STEP_TIMEOUT_MS);

  it("type-checks and runs a CommonJS consumer (require of both entries) against a live server", async () => {
    await sh(process.execPath, [join(cjsDir, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], cjsDir);
    const compiled = readFileSync(join(cjsDir, "out/consumer.js"), "utf8");
    expect(compiled).toContain('require("@ir21/sdk")');
    expect(compiled).toContain('require("@ir21/sdk/webhooks")');
    const secret = generateSecret();
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ id: "evt_cjs_1", type: "ir21.operator.updated", occurred_at: "2026-01-01T00:00:00.000Z", effective_at: null, dataset_version: "v2", previous_version: "v1", country_iso2: "CN", operator_id: "op_cn_46000", data: {}, test: false });
    const headers = deliveryHeaders({ eventId: "evt_cjs_1", timestampSeconds: now, rawBody: body, secret, previousSecret: null });
    const { stdout } = await sh(process.execPath, [join(cjsDir, "out/consumer.js")], cjsDir, { IR21_BASE_URL: server.url, IR21_DELIVERY: JSON.stringify({ headers, body, secret, now }) });
    expect(JSON.parse(stdout)).toEqual({
      moduleSystem: "commonjs",
      version: true,
      rangeHolder: "China Mobile",
      denied: 401,
      me: "UNAUTHORIZED",
      event: "ir21.operator.updated",
      tampered: "SIGNATURE_MISMATCH",
    });
  }, STEP_TIMEOUT_MS);

  it("runs the consumer against a live server", async () => {
    const secret = generateSecret();
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({
      id: "evt_consumer_1",
      type: "ir21.catalog.updated",
      occurred_at: "2026-01-01T00:00:00.000Z",
      effective_at: null,
      dataset_version: "v2",
      previous_version: "v1",
      country_iso2: "CN",
      operator_id: "op_cn_46000",
      data: { reason: "import", snapshot_url: "/v1/snapshot" },
      test: false,
    });
    const headers = deliveryHeaders({ eventId: "evt_consumer_1", timestampSeconds: now, rawBody: body, secret, previousSecret: null });
    const phone = randomPhone();
    // The server's delivery worker, as `ir21-server serve` runs it, for the consumer's test event.
    const worker = new DeliveryWorker(server.deps.webhooks, { pollIntervalMs: 50 });
    worker.start();
    const { stdout } = await sh(process.execPath, [join(consumerDir, "out/consumer.js")], consumerDir, {
      IR21_BASE_URL: server.url,
      IR21_PHONE: phone,
      IR21_SMS_OUTBOX: server.deps.config.smsOutboxPath,
      IR21_DELIVERY: JSON.stringify({ headers, body, secret, now }),
    }).finally(() => worker.stop());
    const report = JSON.parse(stdout);
    expect(report.typeChecks).toBe(true);
    expect(report.console).toEqual({
      created: true,
      sameUser: true,
      createdAt: expect.stringMatching(/Z$/),
      sessionSaved: true,
      keyShownOnce: true,
      quota: true,
      rawStatus: 200,
      webhook: { test: true, sameEvent: true, status: "delivered", attempts: [204] },
      listen: { url: true, type: "ir21.operator.updated", test: true, status: "delivered", answer: { headers: { "x-from": "consumer" }, body: "ok", body_truncated: false } },
      afterLogout: { name: "Ir21ApiError", status: 401, code: "UNAUTHORIZED", hasRequestId: true, instance: true },
      constructed: { code: "RATE_LIMITED", retryAfter: 3 },
    });
    expect(report.data).toEqual({
      version: true,
      lookup: ["China Mobile", "e164-86139", "cn.china-unicom", "460-11"],
      fields: ["number,number_type,operator", "id", "range.prefix", "mcc"],
      batch: ["China Mobile", "INVALID_REQUEST"],
      countries: [3, "中国", ["cn.china-mobile", "cn.china-telecom", "cn.china-unicom"]],
      operators: [2, true, 4, 1],
      networks: [3, "460-00", 4],
      ranges: [4, "China Mobile", 7],
      capabilities: [4, 5],
      changes: [1, 1, true],
      csv: [expect.stringMatching(/^ir21-operators-.+\.csv$/), "id,country_iso2,name,name_local,brand,tadig,status,source,dataset_version,territories,successor_id,lineage,listed,register_ids,source_license,source_attribution", true, true],
      snapshot: [true, true, true],
      sync: { version: true, resets: 1, applied: 0, ordered: true },
      anonymous: ["UNAUTHORIZED", "country_iso2,formats,location,number,number_type,operator,ported,range_holder,range_holder_reason,source,time_zones,valid,validation_reason"],
    });
    expect(report.webhooks).toEqual({
      eventId: "evt_consumer_1",
      eventType: "ir21.catalog.updated",
      knownType: true,
      sameEverywhere: true,
      answers: ["200 ir21.catalog.updated", "200 duplicate", "400 SIGNATURE_MISMATCH"],
      tampered: "SIGNATURE_MISMATCH",
      failureCodes: ["MISSING_HEADER", "MALFORMED_SIGNATURE", "INVALID_TIMESTAMP", "TIMESTAMP_OUT_OF_TOLERANCE", "SIGNATURE_MISMATCH", "MALFORMED_BODY", "EVENT_ID_MISMATCH"],
      signatureHeader: "X-IR21-Signature",
    });
  }, STEP_TIMEOUT_MS);
});

describe("the packed @ir21/cli, installed globally into an empty prefix", () => {
  let prefix: string;
  let cliTarball: string;
  const ir21 = (args: string[], env: Record<string, string> = {}) =>
    sh(join(prefix, "bin", "ir21"), args, work, { HOME: join(work, "home"), XDG_CONFIG_HOME: join(work, "home", ".config"), NO_COLOR: "1", ...env });

  beforeAll(async () => {
    cliTarball = tarballs.find((path) => /ir21-cli-[\d.]+\.tgz$/.test(path))!;
    prefix = join(work, "prefix");
    mkdirSync(prefix);
    // As a user would: `npm install -g`, offline (the CLI declares no dependencies), into an empty prefix.
    await sh("npm", ["install", "-g", cliTarball, tarball, "--prefix", prefix, "--offline", "--no-audit", "--no-fund"], work);
  }, STEP_TIMEOUT_MS);

  it("writes the three tarballs to one folder", () => {
    expect(tarballs.map((path) => path.split("/").at(-1)!.replace(/-[\d.]+\.tgz$/, "")).sort()).toEqual(["ir21-cli", "ir21-sdk", "ir21-server"]);
    expect(new Set(tarballs.map((path) => dirname(path))).size).toBe(1);
  });

  it("is one bundled file with no dependencies: nothing but Node is needed to run it", async () => {
    const { stdout } = await sh("tar", ["tzf", cliTarball], work);
    expect(stdout.trim().split("\n").sort()).toEqual(["package/LICENSE", "package/README.md", "package/dist/ir21.mjs", "package/package.json"]);
    const modules = join(prefix, "lib", "node_modules");
    expect(inventory(modules).packages).toEqual(["@ir21/cli", "@ir21/sdk"]);
    const manifest = JSON.parse(readFileSync(join(modules, "@ir21/cli/package.json"), "utf8"));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.bin).toEqual({ ir21: "./dist/ir21.mjs" });
    const bundle = readFileSync(join(modules, "@ir21/cli/dist/ir21.mjs"), "utf8");
    expect(bundle.startsWith("#!/usr/bin/env node\n")).toBe(true);
    const code = bundle.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
    expect(specifiers.filter((specifier) => !specifier.startsWith("node:"))).toEqual([]);
    expect(code).not.toMatch(/\btsx\b|esbuild/);
  });

  it("runs against a live server: --version, completion bash, api /v1/meta", async () => {
    const version = JSON.parse(readFileSync(join(root, "cli/package.json"), "utf8")).version;
    expect((await ir21(["--version"])).stdout).toBe(`${version}\n`);
    const completion = (await ir21(["completion", "bash"])).stdout;
    expect(completion).toContain("complete -F _ir21 ir21");
    const bash = await sh("bash", ["-c", `source /dev/stdin <<'EOF'\n${completion}\nEOF\nCOMP_WORDS=(ir21 ne); COMP_CWORD=1; _ir21; echo "\${COMPREPLY[@]}"`], work);
    expect(bash.stdout.trim()).toBe("networks");
    const meta = JSON.parse((await ir21(["api", "/v1/meta"], { IR21_BASE_URL: server.url })).stdout);
    const direct = await server.json("/v1/meta");
    expect(meta.data.dataset_version).toBe(direct.body.data.dataset_version);
    // Bare `ir21` introduces itself on stdout.
    expect((await ir21([])).stdout).toContain("USAGE");
  }, STEP_TIMEOUT_MS);

  describe("with the packed @ir21/server installed (with its dependencies, offline) into an empty project", () => {
    let project: string;
    let serverInstalled: { packages: string[]; bytes: number };
    const serverVersion = JSON.parse(readFileSync(join(root, "server/package.json"), "utf8")).version as string;

    beforeAll(async () => {
      const serverTarball = tarballs.find((path) => /ir21-server-[\d.]+\.tgz$/.test(path))!;
      project = join(work, "server-project");
      mkdirSync(project);
      const local = join(project, serverTarball.split("/").at(-1)!);
      copyFileSync(serverTarball, local);
      writeOfflineProject(project, local, join(root, "pnpm-lock.yaml"), "server", serverVersion, ["better-sqlite3"]);
      const { stdout: storeDir } = await sh("pnpm", ["store", "path"], root);
      // A fresh cache dir: no registry metadata to read, so any resolution beyond the lockfile would fail.
      // On a Node the store has no better-sqlite3 build for, its addon comes from a loopback mirror.
      const prebuild = await serveBetterSqlite3Prebuild(root);
      try {
        await sh("pnpm", ["install", "--frozen-lockfile", "--offline", "--ignore-workspace", "--store-dir", storeDir.trim(), "--cache-dir", join(work, "pnpm-cache")], project, prebuild.env);
      } finally {
        await prebuild.close();
      }
      // pnpm's virtual store: one folder per package version, `name@version[_peers]` with `/` as `+`.
      const virtualStore = join(project, "node_modules", ".pnpm");
      const packages = readdirSync(virtualStore).filter((entry) => !entry.startsWith(".") && entry !== "node_modules" && entry !== "lock.yaml");
      serverInstalled = { packages: packages.map((entry) => /^(@?[^@]+)@/.exec(entry)![1]!.replace("+", "/")).sort(), bytes: inventory(virtualStore).bytes };
    }, STEP_TIMEOUT_MS);

    it("installs the bundle and the declared dependencies only (no sources, no build tools), and answers --version", async () => {
      const installedDir = join(project, "node_modules/@ir21/server");
      const manifest = JSON.parse(readFileSync(join(installedDir, "package.json"), "utf8"));
      expect(manifest.version).toBe(serverVersion);
      // (node_modules there is pnpm's: the package's own .bin.)
      // data/: the national registers the server embeds (server/data/registers, compressed, with their manifest).
      expect(readdirSync(installedDir).filter((entry) => entry !== "node_modules").sort()).toEqual(["LICENSE", "bin", "data", "dist", "package.json"]);
      expect(readdirSync(join(installedDir, "data/registers")).sort()).toEqual(readdirSync(new URL("../../server/data/registers/", import.meta.url)).sort());
      const names = serverInstalled.packages;
      expect(names).toEqual(expect.arrayContaining(Object.keys(manifest.dependencies)));
      expect(names.filter((name) => /^(tsx|esbuild|tsdown|vitest|redoc|@types\/better-sqlite3)$/.test(name))).toEqual([]);
      const { stdout } = await sh(join(project, "node_modules/.bin/ir21-server"), ["--version"], project);
      expect(stdout).toMatch(new RegExp(`^ir21-server ${serverVersion.replace(/\./g, "\\.")}( \\(commit [0-9a-f]{7,12}\\))?\n$`));
      process.stderr.write(`installed @ir21/server: ${serverInstalled.packages.length} packages in node_modules/.pnpm, ${(serverInstalled.bytes / 1e6).toFixed(1)} MB\n`);
    }, STEP_TIMEOUT_MS);

    it("runs the libphonenumber-js the workspace tested: the patched code bundled, none of the registry's copy loaded", async () => {
      // The workspace patches libphonenumber-js (package.json pnpm.patchedDependencies); a registry
      // install of the dependency alone would run it unpatched. What the patch adds, read from the patch
      // file itself: its new top-level functions and variables must be in the installed bundle.
      const workspace = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { pnpm: { patchedDependencies: Record<string, string> } };
      const [spec, patchFile] = Object.entries(workspace.pnpm.patchedDependencies).find(([name]) => name.startsWith("libphonenumber-js@"))!;
      const patch = readFileSync(join(root, patchFile), "utf8");
      const added = [...new Set([...patch.matchAll(/^\+(?:var|function) (\w+)/gm)].map((m) => m[1]!))];
      expect(added.length).toBeGreaterThan(2);
      const installedDir = join(project, "node_modules/@ir21/server");
      const bundle = readFileSync(join(installedDir, "dist/main.mjs"), "utf8");
      expect(added.filter((name) => !new RegExp(`\\b${name}\\b`).test(bundle))).toEqual([]);
      const info = JSON.parse(readFileSync(join(installedDir, "dist/build-info.json"), "utf8")) as { bundled: Record<string, { version: string; patch: string }> };
      expect(info.bundled["libphonenumber-js"]).toEqual({ version: spec.slice(spec.lastIndexOf("@") + 1), patch: createHash("sha256").update(patch).digest("hex") });
      // And at run time: every module the installed server loads while answering a lookup is recorded
      // (a module hook, node:module register); none is the registry copy's code.
      const data = join(work, "server-data-modules");
      mkdirSync(data);
      const loaded = join(work, "loaded-modules.txt");
      const hooks = join(work, "record-modules.mjs");
      writeFileSync(
        hooks,
        `import { register } from "node:module";\nregister("data:text/javascript," + encodeURIComponent(${JSON.stringify(
          `import { appendFileSync } from "node:fs"; export async function load(url, context, next) { appendFileSync(${JSON.stringify(loaded)}, url + "\\n"); return next(url, context); }`,
        )}));\n`,
      );
      const child = spawn(process.execPath, ["--import", hooks, join(installedDir, "bin/ir21-server.js"), "serve"], {
        cwd: project,
        env: { PATH: process.env.PATH ?? "", HOME: join(work, "home"), SESSION_SECRET: "s".repeat(48), OTP_PEPPER: "p".repeat(48), HOST: "127.0.0.1", PORT: "0", DATA_DIR: data, DATABASE_URL: `file:${join(data, "ir21.sqlite")}`, LOG_LEVEL: "info" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout!.on("data", (chunk) => (output += chunk));
      child.stderr!.on("data", (chunk) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      try {
        const deadline = Date.now() + STEP_TIMEOUT_MS - 30_000;
        let url: string | undefined;
        let ready = 0;
        while (Date.now() < deadline && ready !== 200) {
          if (child.exitCode !== null) throw new Error(`ir21-server exited ${child.exitCode}:\n${output}`);
          const line = output.split("\n").find((l) => l.includes('"ir21 server listening"'));
          if (line) url ??= (JSON.parse(line) as { url: string }).url;
          if (url) ready = await fetch(`${url}/readyz`).then((r) => r.status, () => 0);
          if (ready !== 200) await new Promise((r) => setTimeout(r, 200));
        }
        expect(ready, output).toBe(200);
        const lookup = (await (await fetch(`${url}/v1/lookup?number=%2B8613912345678`)).json()) as { data: { country_iso2: string; number_type: string } };
        expect(lookup.data.country_iso2).toBe("CN");
      } finally {
        child.kill("SIGTERM");
      }
      expect(await exited, output).toBe(0);
      const urls = readFileSync(loaded, "utf8").trim().split("\n");
      expect(urls.some((u) => u.endsWith("/dist/main.mjs"))).toBe(true);
      expect(urls.filter((u) => u.includes("/libphonenumber-js/") && !u.endsWith(".json"))).toEqual([]);
    }, STEP_TIMEOUT_MS);

    it("serves: first start imports the reference data, /readyz turns 200, the installed CLI reads /v1/meta, SIGTERM exits 0", async () => {
      const data = join(work, "server-data");
      mkdirSync(data);
      const child = spawn(join(project, "node_modules/.bin/ir21-server"), ["serve"], {
        cwd: project,
        env: { PATH: process.env.PATH ?? "", HOME: join(work, "home"), NODE_ENV: "production", SESSION_SECRET: "s".repeat(48), OTP_PEPPER: "p".repeat(48), PUBLIC_ORIGIN: "https://ir21.example", HOST: "127.0.0.1", PORT: "0", DATA_DIR: data, DATABASE_URL: `file:${join(data, "ir21.sqlite")}`, LOG_LEVEL: "info" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout!.on("data", (chunk) => (output += chunk));
      child.stderr!.on("data", (chunk) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      try {
        const deadline = Date.now() + STEP_TIMEOUT_MS - 30_000;
        let url: string | undefined;
        let ready = 0;
        while (Date.now() < deadline && ready !== 200) {
          if (child.exitCode !== null) throw new Error(`ir21-server exited ${child.exitCode}:\n${output}`);
          const line = output.split("\n").find((l) => l.includes('"ir21 server listening"'));
          if (line) url ??= (JSON.parse(line) as { url: string }).url;
          if (url) ready = await fetch(`${url}/readyz`).then((r) => r.status, () => 0);
          if (ready !== 200) await new Promise((r) => setTimeout(r, 200));
        }
        expect(ready, output).toBe(200);
        expect(output).toContain("reference data imported");
        const health = await fetch(`${url}/healthz`);
        expect(health.headers.get("x-ir21-version")).toMatch(new RegExp(`^${serverVersion.replace(/\./g, "\\.")}(\\+[0-9a-f]{7,40})?$`));
        const direct = (await (await fetch(`${url}/v1/meta`)).json()) as { data: { dataset_version: string } };
        expect(direct.data.dataset_version).toMatch(/\S/);
        const meta = JSON.parse((await ir21(["api", "/v1/meta"], { IR21_BASE_URL: url! })).stdout);
        expect(meta.data.dataset_version).toBe(direct.data.dataset_version);
        // A lookup answered from the imported reference data (libphonenumber through the installed dependencies).
        const lookup = JSON.parse((await ir21(["api", "/v1/lookup?number=%2B8613912345678"], { IR21_BASE_URL: url! })).stdout);
        expect(lookup.data.country_iso2).toBe("CN");
      } finally {
        child.kill("SIGTERM");
      }
      expect(await exited, output).toBe(0);
    }, STEP_TIMEOUT_MS);
  });
});
