import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/**
 * The CLI as a person installs it: `scripts/release-pack.js` (what `pnpm release:pack` runs) packs the
 * built bundle into `ir21-cli-<version>.tgz`, and `npm install -g <tgz> --prefix <empty dir> --offline`
 * installs it (the package has no dependencies, so nothing is fetched), leaving `<prefix>/bin/ir21`.
 * The pack skips the build (`--skip-build`): `pnpm test` builds the bundle before the suite, and
 * rebuilding it here would pull it from under the other CLI test files running at the same time.
 *
 * IR21_TEST_CLI_TARBALL=<path> installs that tarball instead of packing, e.g. a release packed from
 * main, to see which of these tests the older grammar fails.
 */

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
/** Packing and installing on a loaded machine can be slow, but never hangs silently. */
export const INSTALL_TIMEOUT_MS = 180_000;

async function sh(command: string, args: string[], cwd: string): Promise<string> {
  try {
    return (await run(command, args, { cwd, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

/**
 * Packs (or takes IR21_TEST_CLI_TARBALL) and installs the CLI under `work`; returns the installed
 * `ir21` and the tarball it came from.
 */
export async function installPackedCli(work: string): Promise<{ bin: string; tarball: string; prefix: string }> {
  let tarball = process.env.IR21_TEST_CLI_TARBALL ? resolve(process.env.IR21_TEST_CLI_TARBALL) : undefined;
  if (!tarball) {
    const out = join(work, "release");
    await sh(process.execPath, [join(root, "scripts/release-pack.js"), "--skip-build", "--out", out], root);
    const name = readdirSync(out).find((file) => /^ir21-cli-[\d.]+\.tgz$/.test(file));
    if (!name) throw new Error(`release-pack wrote no ir21-cli tarball to ${out}`);
    tarball = join(out, name);
  }
  const prefix = join(work, "prefix");
  mkdirSync(prefix, { recursive: true });
  await sh("npm", ["install", "-g", tarball, "--prefix", prefix, "--offline", "--no-audit", "--no-fund"], work);
  const bin = join(prefix, "bin", "ir21");
  if (!existsSync(bin)) throw new Error(`npm install -g put no bin/ir21 in ${prefix}`);
  return { bin, tarball, prefix };
}
