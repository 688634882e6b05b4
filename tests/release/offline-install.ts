/**
 * Installs the packed @ir21/server tarball into an empty project without the network.
 *
 * Why this way: the tarball's runtime dependencies (kysely, h3, better-sqlite3, mysql2 …) must be
 * resolved, and neither npm (its cache lacks them) nor pnpm (`--offline` resolution needs registry
 * metadata, which a frozen-lockfile install never caches) can resolve them offline. The workspace's own
 * lockfile already holds the resolution of exactly these dependencies, and the workspace's pnpm store
 * holds their files (and better-sqlite3 built, in its side-effects cache). So the project gets a lockfile
 * derived from the workspace's: the tarball as its one dependency (`file:`, with the tarball's integrity),
 * whose dependencies are the versions the workspace resolved for server/, plus the transitive closure of
 * their entries. Then `pnpm install --frozen-lockfile --offline` against the workspace store installs
 * the tarball as a user's `pnpm add ./ir21-server-x.tgz` would, with no request (a fresh cache dir proves
 * no registry metadata is read).
 *
 * The workspace's patch of libphonenumber-js (pnpm patchedDependencies) is left out: a user installing
 * the package from a registry does not get it either, so the installed server runs the upstream code.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parse, stringify } from "yaml";

interface Snapshot {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
interface Lockfile {
  lockfileVersion: string;
  settings?: Record<string, unknown>;
  importers: Record<string, { dependencies?: Record<string, { specifier: string; version: string }> }>;
  packages: Record<string, Record<string, unknown>>;
  snapshots: Record<string, Snapshot>;
}

/** `name@version(peers…)` of a dependency entry: the value is a version, or `other-name@version` for an alias. */
function snapshotKey(name: string, version: string): string | null {
  if (version.startsWith("link:") || version.startsWith("file:")) return null;
  return /^@?[^@(]+@/.test(version) ? version : `${name}@${version}`;
}

/** The `packages` key of a snapshot: without its peer suffix. */
const packageKey = (key: string) => key.replace(/\(.*$/, "");

/**
 * Writes package.json and pnpm-lock.yaml into `dir` (empty) for a project whose one dependency is
 * `tarball` (copied into `dir` by the caller), resolved as `importer` of `workspaceLockfile` resolves it.
 */
export function writeOfflineProject(dir: string, tarball: string, workspaceLockfile: string, importer: string, version: string, buildable: string[]) {
  // Patches are dropped (see above): their hashes leave the keys.
  const text = readFileSync(workspaceLockfile, "utf8").replace(/\(patch_hash=[0-9a-f]+\)/g, "");
  const lock = parse(text) as Lockfile;
  const deps = lock.importers[importer]?.dependencies ?? {};

  const snapshots: Record<string, Snapshot> = {};
  const packages: Record<string, Record<string, unknown>> = {};
  const queue = Object.entries(deps).map(([name, { version }]) => snapshotKey(name, version)).filter((k): k is string => k !== null);
  while (queue.length > 0) {
    const key = queue.pop()!;
    if (snapshots[key]) continue;
    const snapshot = lock.snapshots[key];
    const pkg = lock.packages[packageKey(key)];
    if (!snapshot || !pkg) throw new Error(`the workspace lockfile has no entry for ${key}`);
    snapshots[key] = snapshot;
    packages[packageKey(key)] = pkg;
    for (const [name, version] of Object.entries({ ...snapshot.dependencies, ...snapshot.optionalDependencies })) {
      const next = snapshotKey(name, version);
      if (next) queue.push(next);
    }
  }

  const file = `file:${basename(tarball)}`;
  const bytes = readFileSync(tarball);
  const integrity = `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
  const selfKey = `@ir21/server@${file}`;
  packages[selfKey] = { resolution: { integrity, tarball: file }, version, hasBin: true };
  snapshots[selfKey] = { dependencies: Object.fromEntries(Object.entries(deps).map(([name, { version }]) => [name, version])) };

  const project = { name: "ir21-server-release-install", private: true, dependencies: { "@ir21/server": file }, pnpm: { onlyBuiltDependencies: buildable } };
  writeFileSync(join(dir, "package.json"), JSON.stringify(project, null, 2));
  const out = {
    lockfileVersion: lock.lockfileVersion,
    settings: lock.settings,
    importers: { ".": { dependencies: { "@ir21/server": { specifier: file, version: file } } } },
    packages,
    snapshots,
  };
  writeFileSync(join(dir, "pnpm-lock.yaml"), stringify(out));
}

/**
 * better-sqlite3's addon as the running Node loads it, served on loopback in prebuild-install's layout
 * (`v<version>/better-sqlite3-v<version>-node-v<abi>-linux-x64.tar.gz`); `env` points an install at it.
 * pnpm's store keeps better-sqlite3 built per Node major: on the runtime the workspace was installed
 * with, the install takes it from there and never asks; on another one (CI's Node 22 and 24 runs) its
 * install script runs, and prebuild-install fetches this instead of compiling SQLite offline (minutes).
 */
export async function serveBetterSqlite3Prebuild(workspaceRoot: string): Promise<{ env: Record<string, string>; close: () => Promise<void> }> {
  const pkgDir = realpathSync(join(workspaceRoot, "server/node_modules/better-sqlite3"));
  const version = (JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version: string }).version;
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const dir = mkdtempSync(join(tmpdir(), "ir21-prebuild-"));
  mkdirSync(join(dir, "build/Release"), { recursive: true });
  copyFileSync(join(pkgDir, "build/Release/better_sqlite3.node"), join(dir, "build/Release/better_sqlite3.node"));
  execFileSync("tar", ["-czf", join(dir, name), "-C", dir, "build"]);
  const tarball = readFileSync(join(dir, name));
  rmSync(dir, { recursive: true, force: true });
  const server = createServer((req, res) => {
    if (req.url === `/v${version}/${name}`) res.writeHead(200, { "content-length": tarball.length }).end(tarball);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { env: { npm_config_better_sqlite3_binary_host: `http://127.0.0.1:${port}` }, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
