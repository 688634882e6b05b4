import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeliveryWorker, ManualClock, randomPhone, startTestServer, webhookEnv, type TestServer } from "@ir21/server/testing";
import { deliveryHeaders, generateSecret } from "../../server/src/webhooks/delivery/signing.ts";

/**
 * Pack and consume: build the SDK, `pnpm pack` it, install the tarball into a project OUTSIDE the
 * workspace (offline, from the workspace's installed packages; see the install step), type-check a consumer that uses
 * every export with `tsc --strict` (skipLibCheck off, NodeNext resolution, so the exports map and the
 * bundled declarations are what is checked), then run it against a live server.
 */

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
const sdkDir = join(root, "sdk");
const consumerSource = fileURLToPath(new URL("./consumer/consumer.ts", import.meta.url));
// CPU is shared: building and installing can be slow, but never hangs silently.
const STEP_TIMEOUT_MS = 180_000;

let work: string;
let consumerDir: string;
let tarball: string;
let server: TestServer;

async function sh(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  try {
    return await run(command, args, { cwd, timeout: STEP_TIMEOUT_MS, maxBuffer: 32 * 1024 * 1024, env: { ...process.env, ...env } });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "ir21-sdk-pack-"));
  consumerDir = join(work, "consumer");
  await sh("pnpm", ["run", "build"], sdkDir);
  await sh("pnpm", ["pack", "--pack-destination", work], sdkDir);
  tarball = join(work, readdirSync(work).find((f) => f.endsWith(".tgz"))!);

  // What a consumer's manifest would say; the install below provides exactly these.
  const versionOf = (name: string) => JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version as string;
  await sh("mkdir", ["-p", consumerDir], work);
  writeFileSync(
    join(consumerDir, "package.json"),
    JSON.stringify({ name: "ir21-sdk-consumer", private: true, type: "module", dependencies: { "@ir21/sdk": `file:${tarball}` }, devDependencies: { "@types/node": versionOf("@types/node"), typescript: versionOf("typescript") } }, null, 2),
  );
  writeFileSync(
    join(consumerDir, "tsconfig.json"),
    JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          // The SDK README's consumer note: @trpc/server's types use Disposable.
          lib: ["ES2023", "DOM", "DOM.Iterable", "ESNext.Disposable"],
          types: ["node"],
          strict: true,
          skipLibCheck: false,
          outDir: "out",
          noEmitOnError: true,
        },
        files: ["consumer.ts"],
      },
      null,
      2,
    ),
  );
  copyFileSync(consumerSource, join(consumerDir, "consumer.ts"));
  // Install as npm would, but offline (tests talk only to loopback): unpack the tarball into
  // node_modules and give it exactly the packages it declares (dependencies and peers), plus the
  // compiler, from the workspace's installed copies. Their real paths sit in pnpm's store layout, so
  // their own dependencies resolve there, and nothing else of the workspace is reachable.
  const modules = join(consumerDir, "node_modules");
  mkdirSync(join(modules, "@ir21", "sdk"), { recursive: true });
  await sh("tar", ["xzf", tarball, "-C", join(modules, "@ir21", "sdk"), "--strip-components=1"], work);
  const packed = JSON.parse(readFileSync(join(modules, "@ir21", "sdk", "package.json"), "utf8")) as { dependencies?: object; peerDependencies?: object };
  const needed = [...Object.keys(packed.dependencies ?? {}), ...Object.keys(packed.peerDependencies ?? {}), "typescript", "@types/node"];
  for (const name of needed) {
    const installed = [join(sdkDir, "node_modules", name), join(root, "node_modules", name)].find((path) => existsSync(path));
    if (!installed) throw new Error(`${name} is not installed in the workspace`);
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(realpathSync(installed), join(modules, name), "dir");
  }
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

  it("ships only dist, pointing its exports map at it, with no server code and no dependency beyond tRPC, superjson and eventsource-parser", async () => {
    const { stdout } = await sh("tar", ["tzf", tarball], work);
    const files = stdout.trim().split("\n").sort();
    expect(files.every((f) => f === "package/package.json" || f === "package/README.md" || f.startsWith("package/dist/"))).toBe(true);
    const installed = join(consumerDir, "node_modules/@ir21/sdk");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    expect(manifest.exports["."]).toEqual({ types: "./dist/index.d.ts", import: "./dist/index.js" });
    expect(manifest.exports["./webhooks"]).toEqual({ types: "./dist/webhooks.d.ts", import: "./dist/webhooks.js" });
    // eventsource-parser reads the listen stream (listen.ts): zero dependencies, a few KiB.
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["@trpc/client", "eventsource-parser", "superjson"]);
    expect(Object.keys(manifest.peerDependencies)).toEqual(["@trpc/server"]);

    for (const file of readdirSync(join(installed, "dist"))) {
      const text = readFileSync(join(installed, "dist", file), "utf8");
      const imports = [...text.matchAll(/^(?:import|export)[^;]*?from\s+"([^"]+)"/gm)].map((m) => m[1]!);
      const external = imports.filter((specifier) => !specifier.startsWith("./"));
      const allowed = file.startsWith("webhooks") ? [] : ["@trpc/client", "@trpc/server", "superjson", "eventsource-parser"];
      expect(external.filter((specifier) => !allowed.includes(specifier)), `${file} imports`).toEqual([]);
      // No server code or server-only names inlined either (the type bundle could otherwise carry them).
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
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
    const worker = new DeliveryWorker(webhookEnv(server.deps), { pollIntervalMs: 50 });
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
      batch: ["China Mobile", "INVALID_REQUEST"],
      countries: [3, "中国"],
      operators: [2, true, 4, 1],
      networks: [3, "460-00", 4],
      ranges: [4, "China Mobile", 7],
      capabilities: [4, 5],
      changes: [1, 1, true],
      csv: [expect.stringMatching(/^ir21-operators-.+\.csv$/), "id,country_iso2,name,name_local,brand,tadig,status,source,dataset_version,source_license,source_attribution", true, true],
      snapshot: [true, true, true],
      sync: { version: true, resets: 1, applied: 0, ordered: true },
      anonymous: ["UNAUTHORIZED", "country_iso2,number,operator,range_holder,valid"],
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
