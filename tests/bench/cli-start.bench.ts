// The installed CLI's start (issue 16): `ir21 --version` and `ir21 --help` from the packed tarball,
// installed with `npm install -g` into a temporary prefix, started as a user's shell would start it
// (the bin link). The goal: `ir21 --version` median ≤ 0.15 s. The baseline is `node -e 0` started the
// same way in the same run, alternating with the CLI, so the ratio says what the CLI adds to a bare
// Node start on this machine (a loaded machine stretches both). Run `pnpm -F @ir21/cli build` first.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROUNDS = 21;
const GOAL_VERSION_S = 0.15;
const root = fileURLToPath(new URL("../../", import.meta.url));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Wall seconds of one start of `command`, from spawn to exit. */
function timeOnce(command: string, args: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, { stdio: "ignore" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

export async function run() {
  const work = mkdtempSync(join(tmpdir(), "ir21-cli-start-"));
  try {
    execFileSync(process.execPath, [join(root, "scripts/release-pack.js"), "--skip-build", "--out", work], { stdio: ["ignore", "ignore", "inherit"] });
    const tarball = join(work, readdirSync(work).find((f) => /^ir21-cli-.*\.tgz$/.test(f))!);
    const prefix = join(work, "prefix");
    mkdirSync(prefix);
    execFileSync("npm", ["install", "-g", tarball, "--prefix", prefix, "--offline", "--no-audit", "--no-fund"], { stdio: "ignore" });
    const ir21 = join(prefix, "bin", "ir21");

    const samples = { baseline: [] as number[], version: [] as number[], help: [] as number[] };
    timeOnce(ir21, ["--version"]); // warm the file cache
    for (let round = 0; round < ROUNDS; round++) {
      samples.baseline.push(timeOnce(process.execPath, ["-e", "0"]));
      samples.version.push(timeOnce(ir21, ["--version"]));
      samples.help.push(timeOnce(ir21, ["--help"]));
    }
    const baseline = median(samples.baseline);
    const version = median(samples.version);
    const help = median(samples.help);
    return {
      rounds: ROUNDS,
      median_s: { node_baseline: +baseline.toFixed(3), version: +version.toFixed(3), help: +help.toFixed(3) },
      ratio_to_node: { version: +(version / baseline).toFixed(2), help: +(help / baseline).toFixed(2) },
      goal_version_s: GOAL_VERSION_S,
      version_within_goal: version <= GOAL_VERSION_S,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
