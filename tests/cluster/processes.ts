/**
 * The cluster's processes, each started detached with its pid in run/<name>.pid and how to start it
 * again in run/<name>.json, so `cluster down` stops exactly what `cluster up` started (by pid, never
 * by name) and the chaos suite can kill -9 one and start it again the same way.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, closeSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Topology } from "./topology.ts";

export interface LaunchSpec {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

const runDir = (t: Topology) => join(t.dir, "run");
export const logPath = (t: Topology, name: string) => join(t.dir, "log", `${name}.log`);

/** Starts `spec` detached (its own process group), output appended to log/<name>.log. */
export function launch(t: Topology, spec: LaunchSpec): number {
  mkdirSync(runDir(t), { recursive: true });
  mkdirSync(join(t.dir, "log"), { recursive: true });
  const out = openSync(logPath(t, spec.name), "a");
  const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: { ...process.env, ...spec.env }, detached: true, stdio: ["ignore", out, out] });
  closeSync(out);
  if (child.pid === undefined) throw new Error(`could not start ${spec.name} (${spec.command})`);
  child.unref();
  writeFileSync(join(runDir(t), `${spec.name}.pid`), String(child.pid));
  writeFileSync(join(runDir(t), `${spec.name}.json`), JSON.stringify(spec, null, 2));
  return child.pid;
}

export function pidOf(t: Topology, name: string): number | null {
  const path = join(runDir(t), `${name}.pid`);
  if (!existsSync(path)) return null;
  const pid = Number(readFileSync(path, "utf8").trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

export function isAlive(pid: number | null): boolean {
  if (pid === null) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (killed, not yet reaped by its parent) still answers signal 0.
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

export const alive = (t: Topology, name: string) => isAlive(pidOf(t, name));

/** Names of every process with a pid file, in start order of their kind. */
export function started(t: Topology): string[] {
  if (!existsSync(runDir(t))) return [];
  return readdirSync(runDir(t))
    .filter((f) => f.endsWith(".pid"))
    .map((f) => f.slice(0, -4));
}

/** Sends `signal` to the process; resolves once it is gone (SIGKILL after `graceMs`). */
export async function stop(t: Topology, name: string, signal: NodeJS.Signals = "SIGTERM", graceMs = 15_000): Promise<void> {
  const pid = pidOf(t, name);
  if (!isAlive(pid)) return;
  try {
    process.kill(pid!, signal);
  } catch {
    return;
  }
  const until = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < until) await sleep(100);
  if (isAlive(pid)) {
    try {
      process.kill(pid!, "SIGKILL");
    } catch {
      /* gone meanwhile */
    }
    while (isAlive(pid)) await sleep(50);
  }
}

/** kill -9, as a crash: no graceful stop. */
export async function crash(t: Topology, name: string): Promise<void> {
  await stop(t, name, "SIGKILL", 0);
}

/** Starts the process again exactly as it was started the last time. */
export function relaunch(t: Topology, name: string, change: (spec: LaunchSpec) => LaunchSpec = (s) => s): number {
  const spec = JSON.parse(readFileSync(join(runDir(t), `${name}.json`), "utf8")) as LaunchSpec;
  return launch(t, change(spec));
}

export function forget(t: Topology, name: string): void {
  rmSync(join(runDir(t), `${name}.pid`), { force: true });
}

/** Polls `check` until it returns true (or a value), failing with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | false | null | undefined> | T | false | null | undefined, timeoutMs = 60_000, everyMs = 250): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const result = await check();
      if (result) return result as T;
    } catch (error) {
      last = error;
    }
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message ?? last}` : ""}`);
    await sleep(everyMs);
  }
}
