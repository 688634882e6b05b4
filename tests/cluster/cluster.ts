/**
 * `pnpm cluster up|down|status`: the scale-out topology of docs/operations.md on one machine, on
 * loopback — a three-node MariaDB Galera cluster, a Redis Cluster of three masters and three replicas,
 * three `ir21-server serve --no-webhook-worker` instances behind haproxy, two `ir21-server worker`
 * processes — with all state in one folder (IR21_CLUSTER_DIR) and ports from IR21_CLUSTER_BASE_PORT.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { alive, launch, pidOf, relaunch, started, stop, waitFor, type LaunchSpec } from "./processes.ts";
import { apiUrl, databaseUrl, REPO, redisNodes, sharedSecrets, topology, type Topology } from "./topology.ts";

const requireFromServer = createRequire(join(REPO, "server/package.json"));
// mysql2 is the server's dependency; the harness borrows it (only the few calls typed here).
interface MysqlConnection {
  query(sql: string): Promise<[unknown, unknown]>;
  end(): Promise<void>;
}
const mysql = requireFromServer("mysql2/promise") as { createConnection(options: Record<string, unknown>): Promise<MysqlConnection> };

const GALERA_LIB = "/usr/lib/galera/libgalera_smm.so";

/** Program → the Debian package that has it. */
const NEEDED: Array<[string, string]> = [
  ["/usr/sbin/mariadbd", "mariadb-server"],
  ["mariadb", "mariadb-client"],
  [GALERA_LIB, "galera-4"],
  ["redis-server", "redis-server"],
  ["redis-cli", "redis-tools"],
  ["haproxy", "haproxy"],
  ["rsync", "rsync"],
  ["openssl", "openssl"],
  // wsrep_sst_rsync waits for its rsync daemon to listen by looking with ss or lsof.
  ["lsof", "lsof"],
];

function have(program: string): boolean {
  if (program.startsWith("/")) return existsSync(program);
  try {
    execFileSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Installs what is missing when root; otherwise names the packages and fails. */
export function ensurePackages(): void {
  const missing = [...new Set(NEEDED.filter(([program]) => !have(program)).map(([, pkg]) => pkg))];
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) throw new Error(`Missing Debian packages; install them with:\n  sudo apt-get install -y ${missing.join(" ")}`);
  console.log(`installing ${missing.join(" ")}`);
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
}

// ---------------------------------------------------------------- Galera

const galeraDir = (t: Topology, name: string) => join(t.dir, name);
const socketOf = (t: Topology, name: string) => join(galeraDir(t, name), "mysqld.sock");

function galeraConfig(t: Topology, node: Topology["galera"][number]): string {
  const dir = galeraDir(t, node.name);
  const members = t.galera.map((g) => `127.0.0.1:${g.gcomm}`).join(",");
  return `[mysqld]
datadir=${dir}/data
socket=${socketOf(t, node.name)}
pid-file=${dir}/mysqld.pid
port=${node.port}
bind-address=127.0.0.1
${process.getuid?.() === 0 ? "user=mysql\n" : ""}skip-name-resolve
performance_schema=OFF
innodb_buffer_pool_size=96M
innodb_log_file_size=48M
# Durability comes from the other nodes holding every commit; no fsync per transaction here.
innodb_flush_log_at_trx_commit=2
max_connections=400
character-set-server=utf8mb4
collation-server=utf8mb4_bin
# What Galera requires: row-based replication, InnoDB, interleaved auto-increment locks.
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
wsrep_on=ON
wsrep_provider=${GALERA_LIB}
wsrep_cluster_name=ir21
wsrep_cluster_address=gcomm://${members}
wsrep_node_name=${node.name}
wsrep_node_address=127.0.0.1:${node.gcomm}
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:${node.gcomm};ist.recv_addr=127.0.0.1:${node.ist};gcache.size=128M;evs.suspect_timeout=PT3S;evs.inactive_timeout=PT6S;evs.install_timeout=PT4S"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:${node.sst}
# Refuse tables without a primary key (Galera cannot certify their rows) instead of replicating them badly.
wsrep_mode=REQUIRED_PRIMARY_KEY
# Reads wait until this node has applied every write committed anywhere before them: a request that
# wrote through one node and reads through another sees its own write (docs/operations.md "Galera").
wsrep_sync_wait=1
# An autocommit statement that loses certification is retried by the node itself.
wsrep_retry_autocommit=3
wsrep_slave_threads=2
`;
}

function startGalera(t: Topology, node: Topology["galera"][number], bootstrap: boolean): void {
  const cnf = join(galeraDir(t, node.name), "my.cnf");
  launch(t, { name: node.name, command: "/usr/sbin/mariadbd", args: [`--defaults-file=${cnf}`, ...(bootstrap ? ["--wsrep-new-cluster"] : [])], env: {} });
}

/** wsrep status of one node through its socket, or null when it does not answer. */
export async function galeraStatus(t: Topology, name: string): Promise<Record<string, string> | null> {
  let connection: MysqlConnection | undefined;
  try {
    connection = await mysql.createConnection({ socketPath: socketOf(t, name), user: "root", connectTimeout: 1500 });
    const [rows] = await connection.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state', 'wsrep_local_state_comment', 'wsrep_ready', 'wsrep_cluster_size', 'wsrep_cluster_status', 'wsrep_local_cert_failures', 'wsrep_local_bf_aborts')");
    return Object.fromEntries((rows as Array<{ Variable_name: string; Value: string }>).map((r) => [r.Variable_name, r.Value]));
  } catch {
    return null;
  } finally {
    await connection?.end().catch(() => undefined);
  }
}

/** Synced (4), ready, in the primary component: the node may take application traffic. */
export const isSynced = (s: Record<string, string> | null) => s?.wsrep_local_state === "4" && s.wsrep_ready === "ON" && s.wsrep_cluster_status === "Primary";

export async function waitSynced(t: Topology, name: string, size: number, timeoutMs = 180_000): Promise<void> {
  await waitFor(`${name} synced in a cluster of ${size}`, async () => {
    if (!alive(t, name)) throw new Error(`${name} exited; see ${join(t.dir, "log", `${name}.log`)}`);
    const s = await galeraStatus(t, name);
    return isSynced(s) && Number(s!.wsrep_cluster_size) >= size;
  }, timeoutMs, 500);
}

async function bootstrapGalera(t: Topology): Promise<void> {
  for (const node of t.galera) {
    mkdirSync(join(galeraDir(t, node.name), "data"), { recursive: true });
    writeFileSync(join(galeraDir(t, node.name), "my.cnf"), galeraConfig(t, node));
  }
  const first = t.galera[0]!;
  // As root the nodes run as Debian's mysql user, as the packaged server does: the rsync daemon of a
  // state transfer, started by the node, must own what it writes.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) for (const node of t.galera) execFileSync("chown", ["-R", "mysql:mysql", galeraDir(t, node.name)]);
  execFileSync("mariadb-install-db", ["--no-defaults", `--datadir=${galeraDir(t, first.name)}/data`, "--auth-root-authentication-method=normal", "--skip-test-db", ...(asRoot ? ["--user=mysql"] : [])], { stdio: "ignore" });
  startGalera(t, first, true);
  await waitSynced(t, first.name, 1);
  // The instances connect over TCP as root without a password (loopback only); DCL replicates to the joiners.
  execFileSync("mariadb", [`--socket=${socketOf(t, first.name)}`, "-uroot", "-e", "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''; GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION; CREATE DATABASE IF NOT EXISTS ir21 CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;"]);
  // Joiners one at a time: each takes a full state transfer (rsync) from a donor.
  for (const [i, node] of t.galera.slice(1).entries()) {
    startGalera(t, node, false);
    await waitSynced(t, node.name, i + 2);
  }
}

/** Starts a crashed node again; it rejoins (IST from a donor's gcache, or a full rsync SST). */
export function restartGalera(t: Topology, name: string): void {
  const node = t.galera.find((g) => g.name === name)!;
  startGalera(t, node, false);
}

// ---------------------------------------------------------------- Redis Cluster

export function redisCli(port: number, ...args: string[]): string {
  return execFileSync("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args], { encoding: "utf8", timeout: 5_000 }).trim();
}

export function redisSpec(t: Topology, node: Topology["redis"][number]): LaunchSpec {
  const dir = join(t.dir, node.name);
  mkdirSync(dir, { recursive: true });
  return {
    name: node.name,
    command: "redis-server",
    args: [
      "--port", String(node.port), "--bind", "127.0.0.1", "--protected-mode", "no", "--daemonize", "no",
      "--dir", dir, "--save", "", "--appendonly", "no",
      "--cluster-enabled", "yes", "--cluster-config-file", join(dir, "nodes.conf"),
      // The bus port inside the cluster's range (the default would be port + 10000).
      "--cluster-port", String(node.bus), "--cluster-announce-ip", "127.0.0.1",
      // A master unreachable for 2 s is failed over to its replica.
      "--cluster-node-timeout", "2000",
    ],
    env: {},
  };
}

async function startRedisCluster(t: Topology): Promise<void> {
  for (const node of t.redis) launch(t, redisSpec(t, node));
  for (const node of t.redis) await waitFor(`${node.name} to answer`, () => redisCli(node.port, "ping") === "PONG", 20_000);
  execFileSync("redis-cli", ["--cluster", "create", ...t.redis.map((r) => `127.0.0.1:${r.port}`), "--cluster-replicas", "1", "--cluster-yes"], { stdio: "ignore", timeout: 60_000 });
  await waitRedisHealthy(t, 60_000);
}

/** Every node answers cluster_state:ok and three masters each have a replica. */
export async function waitRedisHealthy(t: Topology, timeoutMs: number): Promise<void> {
  await waitFor("the Redis Cluster to be ok with 3 masters and 3 replicas", () => {
    for (const node of t.redis) if (!redisCli(node.port, "cluster", "info").includes("cluster_state:ok")) return false;
    const roles = t.redis.map((n) => redisRole(n.port));
    return roles.filter((r) => r === "master").length === 3 && roles.filter((r) => r === "slave").length === 3;
  }, timeoutMs, 500);
}

export function redisRole(port: number): string {
  try {
    return redisCli(port, "role").split("\n")[0]!;
  } catch {
    return "down";
  }
}

// ---------------------------------------------------------------- ir21 and haproxy

/** The environment every ir21 process of the cluster shares. */
export function ir21Env(t: Topology, name: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...sharedSecrets(t),
    DATABASE_URL: databaseUrl(t),
    REDIS_CLUSTER_NODES: redisNodes(t),
    REDIS_URL: "",
    HOST: "127.0.0.1",
    PUBLIC_ORIGIN: apiUrl(t),
    TRUST_PROXY: "true",
    SMS_PROVIDER: "dev",
    IR21_SMS_OUTBOX: join(t.dir, "sms-outbox.jsonl"),
    DATA_DIR: join(t.dir, "data", name),
    // The chaos suite's receiver: https://localhost with the cluster's self-signed certificate.
    WEBHOOK_ALLOW_HOSTS: "localhost",
    NODE_EXTRA_CA_CERTS: join(t.dir, "tls", "cert.pem"),
    LOG_LEVEL: process.env.IR21_CLUSTER_LOG_LEVEL ?? "warn",
    // Every client of the load is 127.0.0.1: per-address caps would throttle the load itself.
    SMS_IP_HOURLY_LIMIT: "1000000",
    SMS_IP_DAILY_LIMIT: "1000000",
    SMS_DAILY_LIMIT: "1000000",
    ANONYMOUS_RATE_LIMIT_PER_MINUTE: "1000000",
    PLAN_FREE_RATE_LIMIT_PER_MINUTE: "1000000",
    PLAN_FREE_MONTHLY_QUOTA: "100000000",
    CONTACT_IP_HOURLY_LIMIT: "1000000",
    LOGIN_IP_LIMIT: "1000000",
    // The quota case of the chaos suite: a developer-plan account with a small quota.
    PLAN_DEVELOPER_MONTHLY_QUOTA: "400",
    PLAN_DEVELOPER_RATE_LIMIT_PER_MINUTE: "1000000",
    SHUTDOWN_TIMEOUT_MS: "5000",
    ...extra,
  };
}

const serverBin = () => join(REPO, "server/bin/ir21-server.js");

export function apiSpec(t: Topology, node: Topology["api"][number]): LaunchSpec {
  return { name: node.name, command: process.execPath, args: [serverBin(), "serve", "--no-webhook-worker"], env: ir21Env(t, node.name, { PORT: String(node.port) }), cwd: REPO };
}

export function workerSpec(t: Topology, name: string): LaunchSpec {
  return { name, command: process.execPath, args: [serverBin(), "worker"], env: ir21Env(t, name), cwd: REPO };
}

/** Runs a one-shot `ir21-server` command with the cluster's environment. */
export function ir21(t: Topology, args: string[], extra: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [serverBin(), ...args], { cwd: REPO, env: { ...process.env, ...ir21Env(t, "cli", extra) } });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

function haproxyConfig(t: Topology): string {
  const apis = t.api.map((a) => `  server ${a.name} 127.0.0.1:${a.port} check`).join("\n");
  const nodes = t.galera.map((g) => `  server ${g.name} 127.0.0.1:${g.port} check port ${g.health}`).join("\n");
  return `global
  maxconn 8192
  stats socket ${join(t.dir, "haproxy.sock")} mode 600 level admin

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  # The listen stream (SSE) stays open: no idle timeout on tunnels shorter than its heartbeats.
  timeout tunnel 1h
  # A connection that could not be opened is tried on another server; a request already sent is
  # never replayed (it may have had an effect), so a killed instance's in-flight requests get 502.
  retries 2
  option redispatch
  retry-on conn-failure
  option forwardfor
  option http-server-close

frontend api
  bind 127.0.0.1:${t.haproxy.api}
  default_backend ir21

backend ir21
  balance roundrobin
  # /readyz is 503 while an instance shuts down (docs/operations.md "Drain") or lacks the database or Redis.
  option httpchk GET /readyz
  http-check expect status 200
  # A Galera node's failure stalls the cluster's commits (and reads with wsrep_sync_wait) for a few
  # seconds until the others evict it: a slow /readyz then is the database pausing for every instance,
  # not one instance failing, so the check waits that out instead of taking every instance down at once.
  timeout check 6s
  default-server inter 1s fastinter 500ms downinter 1s fall 2 rise 2 on-marked-down shutdown-sessions
${apis}

listen galera
  bind 127.0.0.1:${t.haproxy.galera}
  mode tcp
  balance leastconn
  timeout client 1h
  timeout server 1h
  # Health from the node's wsrep state (Synced and Primary), served by the cluster's galera-health agent.
  option httpchk GET /
  # A node taken out because it donates state to a rejoining one keeps its open connections (an
  # incremental transfer does not block it); a crashed node's connections die with it anyway.
  default-server inter 1s fastinter 500ms downinter 1s fall 2 rise 2
${nodes}

listen stats
  bind 127.0.0.1:${t.haproxy.stats}
  stats enable
  stats uri /
  stats refresh 2s
`;
}

/** haproxy's view of one backend: server name → status (UP, DOWN, MAINT, DRAIN, ...). */
export async function haproxyServers(t: Topology, backend: string): Promise<Record<string, string>> {
  return haproxyServerColumn(t, backend, "status");
}

/**
 * One column of haproxy's statistics (its CSV, named by the header line: `status`, `hrsp_2xx` …) for
 * each server of a backend: server name → value.
 */
export async function haproxyServerColumn(t: Topology, backend: string, column: string): Promise<Record<string, string>> {
  const [header, ...lines] = (await (await fetch(`http://127.0.0.1:${t.haproxy.stats}/;csv`)).text()).split("\n");
  const at = header!.replace(/^# /, "").split(",").indexOf(column);
  if (at < 0) throw new Error(`haproxy's statistics have no column ${column}`);
  const result: Record<string, string> = {};
  for (const line of lines) {
    const cells = line.split(",");
    if (cells[0] === backend && cells[1] !== "FRONTEND" && cells[1] !== "BACKEND" && cells[1]) result[cells[1]] = cells[at]!;
  }
  return result;
}

/** Everything up and healthy: the chaos suite's "back to full health by itself". */
export async function fullHealth(t: Topology): Promise<string[]> {
  const problems: string[] = [];
  for (const g of t.galera) {
    const s = await galeraStatus(t, g.name);
    if (!isSynced(s) || Number(s!.wsrep_cluster_size) !== t.galera.length) problems.push(`${g.name}: ${s ? `${s.wsrep_local_state_comment}, cluster size ${s.wsrep_cluster_size}` : "down"}`);
  }
  const roles = t.redis.map((r) => redisRole(r.port));
  if (roles.filter((r) => r === "master").length !== 3 || roles.filter((r) => r === "slave").length !== 3) problems.push(`redis roles: ${roles.join(" ")}`);
  for (const r of t.redis) {
    try {
      if (!redisCli(r.port, "cluster", "info").includes("cluster_state:ok")) problems.push(`${r.name}: cluster_state not ok`);
    } catch {
      problems.push(`${r.name}: down`);
    }
  }
  try {
    const apis = await haproxyServers(t, "ir21");
    for (const a of t.api) if (apis[a.name] !== "UP") problems.push(`haproxy ${a.name}: ${apis[a.name]}`);
    const nodes = await haproxyServers(t, "galera");
    for (const g of t.galera) if (nodes[g.name] !== "UP") problems.push(`haproxy ${g.name}: ${nodes[g.name]}`);
  } catch {
    problems.push("haproxy: stats not answering");
  }
  for (const w of t.workers) if (!alive(t, w.name)) problems.push(`${w.name}: not running`);
  return problems;
}

// ---------------------------------------------------------------- commands

export async function up(t: Topology): Promise<void> {
  try {
    await bringUp(t);
  } catch (error) {
    // Leave nothing half-started behind; the logs stay for a look.
    console.error(`cluster up failed; stopping what it started (logs in ${join(t.dir, "log")})`);
    await down(t).catch(() => undefined);
    throw error;
  }
}

async function bringUp(t: Topology): Promise<void> {
  const started0 = Date.now();
  ensurePackages();
  const running = started(t).filter((name) => alive(t, name));
  if (running.length) throw new Error(`A cluster is already running in ${t.dir} (${running.join(", ")}); pnpm cluster down first`);
  rmSync(t.dir, { recursive: true, force: true });
  mkdirSync(join(t.dir, "tls"), { recursive: true });
  const secret = () => randomBytes(32).toString("hex");
  writeFileSync(join(t.dir, "secrets.json"), JSON.stringify({ SESSION_SECRET: secret(), OTP_PEPPER: secret(), WEBHOOK_SECRETS_KEY: secret() }));
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", join(t.dir, "tls", "key.pem"), "-out", join(t.dir, "tls", "cert.pem")], { stdio: "ignore" });
  const step = (what: string) => console.log(`[${((Date.now() - started0) / 1000).toFixed(1)} s] ${what}`);

  step("Redis Cluster and Galera");
  await Promise.all([startRedisCluster(t).then(() => step("Redis Cluster: 3 masters, 3 replicas")), bootstrapGalera(t).then(() => step("Galera: 3 nodes synced"))]);
  launch(t, { name: "galera-health", command: process.execPath, args: ["--import", "tsx", join(REPO, "tests/cluster/cli.ts"), "galera-health"], env: { IR21_CLUSTER_DIR: t.dir, IR21_CLUSTER_BASE_PORT: String(t.base) }, cwd: join(REPO, "tests") });
  writeFileSync(join(t.dir, "haproxy.cfg"), haproxyConfig(t));
  launch(t, { name: "haproxy", command: "haproxy", args: ["-f", join(t.dir, "haproxy.cfg"), "-db"], env: {} });
  await waitFor("haproxy to see the Galera nodes", async () => Object.values(await haproxyServers(t, "galera")).filter((s) => s === "UP").length === 3, 30_000);

  // Migrations run once through any node: three runs at once, each through a different node; the
  // lease row lets one apply everything and the others find nothing to do.
  step("migrate (three runs at once, one per node)");
  const runs = await Promise.all(t.galera.map((g) => ir21(t, ["migrate"], { DATABASE_URL: databaseUrl(t, g.port) })));
  for (const run of runs) if (run.code !== 0) throw new Error(`migrate failed:\n${run.output}`);
  const applied = runs.flatMap((r) => r.output.split("\n").filter((l) => l.endsWith(": Success")));
  if (new Set(applied).size !== applied.length) throw new Error(`a migration was applied twice:\n${applied.join("\n")}`);
  writeFileSync(join(t.dir, "migrations.txt"), runs.map((r, i) => `# through ${t.galera[i]!.name}\n${r.output}`).join("\n"));
  step(`migrations: ${applied.length} applied once (${runs.map((r) => r.output.split("\n").filter((l) => l.endsWith(": Success")).length).join(" + ")})`);

  step("catalogue import (demo)");
  const imported = await ir21(t, ["import", "demo"]);
  if (imported.code !== 0) throw new Error(`import failed:\n${imported.output}`);

  step("ir21 instances and workers");
  for (const a of t.api) launch(t, apiSpec(t, a));
  for (const w of t.workers) launch(t, workerSpec(t, w.name));
  await waitFor("haproxy to see the three ir21 instances ready", async () => {
    for (const a of t.api) if (!alive(t, a.name)) throw new Error(`${a.name} exited; see ${join(t.dir, "log", `${a.name}.log`)}`);
    return Object.values(await haproxyServers(t, "ir21")).filter((s) => s === "UP").length === 3;
  }, 120_000, 500);
  step(`up: ${apiUrl(t)}`);
  await status(t);
}

export async function down(t: Topology): Promise<void> {
  const order = [...t.workers.map((w) => w.name), ...t.api.map((a) => a.name), "haproxy", "galera-health", ...t.galera.map((g) => g.name).reverse(), ...t.redis.map((r) => r.name)];
  const names = started(t);
  const running = names.filter((n) => alive(t, n));
  const rest = names.filter((n) => !order.includes(n));
  await Promise.all([...order, ...rest].filter((n) => names.includes(n)).map((n) => stop(t, n, "SIGTERM", n.startsWith("galera") ? 30_000 : 10_000)));
  const left = names.filter((n) => alive(t, n));
  if (left.length) throw new Error(`still running: ${left.join(", ")}`);
  console.log(`stopped ${running.length} processes; state and logs kept in ${t.dir}`);
}

export async function status(t: Topology): Promise<void> {
  const line = (name: string, what: string, state: string) => console.log(`${name.padEnd(14)} ${String(pidOf(t, name) ?? "-").padEnd(8)} ${what.padEnd(34)} ${state}`);
  console.log(`state: ${t.dir}\n${"process".padEnd(14)} ${"pid".padEnd(8)} ${"address".padEnd(34)} state`);
  const apis = await haproxyServers(t, "ir21").catch(() => ({}) as Record<string, string>);
  const nodes = await haproxyServers(t, "galera").catch(() => ({}) as Record<string, string>);
  line("haproxy", `http://127.0.0.1:${t.haproxy.api} (stats :${t.haproxy.stats})`, alive(t, "haproxy") ? `running; galera via :${t.haproxy.galera}` : "stopped");
  for (const a of t.api) line(a.name, `127.0.0.1:${a.port}`, alive(t, a.name) ? `running; haproxy ${apis[a.name] ?? "?"}` : "stopped");
  for (const w of t.workers) line(w.name, "-", alive(t, w.name) ? "running" : "stopped");
  for (const g of t.galera) {
    const s = alive(t, g.name) ? await galeraStatus(t, g.name) : null;
    line(g.name, `127.0.0.1:${g.port} gcomm :${g.gcomm}`, alive(t, g.name) ? `${s?.wsrep_local_state_comment ?? "starting"} (cluster size ${s?.wsrep_cluster_size ?? "?"}); haproxy ${nodes[g.name] ?? "?"}` : "stopped");
  }
  line("galera-health", `:${t.galera.map((g) => g.health).join(",:")}`, alive(t, "galera-health") ? "running" : "stopped");
  for (const r of t.redis) line(r.name, `127.0.0.1:${r.port} bus :${r.bus}`, alive(t, r.name) ? redisRole(r.port) : "stopped");
}

/**
 * The galera-health agent: one HTTP port per node answering 200 when the node is Synced and in the
 * primary component, 503 otherwise — haproxy's check for the Galera backend (the role clustercheck
 * plays in Galera deployments: a node that accepts connections may still be joining or donating).
 */
export async function galeraHealth(t: Topology): Promise<void> {
  const { createServer } = await import("node:http");
  for (const node of t.galera) {
    createServer((_req, res) => {
      galeraStatus(t, node.name).then((s) => {
        res.writeHead(isSynced(s) ? 200 : 503, { "content-type": "text/plain" }).end(`${s?.wsrep_local_state_comment ?? "down"}\n`);
      });
    }).listen(node.health, "127.0.0.1");
  }
}

export { relaunch, topology };
