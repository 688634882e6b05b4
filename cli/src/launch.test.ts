import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bundleIsCurrent } from "../bin/launch.js";
import { VERSION } from "./main.ts";

describe("bundleIsCurrent: the bundle runs only when no input is newer", () => {
  let root: string;
  const at = (path: string) => join(root, path);
  /** Writes a file with a fixed modification time (seconds since the epoch). */
  const file = (path: string, mtime: number) => {
    mkdirSync(join(at(path), ".."), { recursive: true });
    writeFileSync(at(path), "");
    utimesSync(at(path), mtime, mtime);
  };
  const inputs = () => ({ sourceDirs: [at("cli/src"), at("sdk/src")], files: [at("cli/package.json")] });

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "ir21-launch-"));
    file("cli/src/main.ts", 1000);
    file("cli/src/commands/data.ts", 1000);
    file("sdk/src/index.ts", 1000);
    file("cli/package.json", 1000);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("is current when built after every input", () => {
    file("cli/dist/main.mjs", 2000);
    expect(bundleIsCurrent(at("cli/dist/main.mjs"), inputs())).toBe(true);
  });

  it("is not current without a bundle", () => {
    expect(bundleIsCurrent(at("cli/dist/main.mjs"), inputs())).toBe(false);
  });

  it("is stale when a source file, in a subdirectory or in the SDK, or package.json changed after the build", () => {
    file("cli/dist/main.mjs", 2000);
    file("cli/src/commands/data.ts", 3000);
    expect(bundleIsCurrent(at("cli/dist/main.mjs"), inputs())).toBe(false);
    file("cli/src/commands/data.ts", 1000);
    file("sdk/src/index.ts", 3000);
    expect(bundleIsCurrent(at("cli/dist/main.mjs"), inputs())).toBe(false);
    file("sdk/src/index.ts", 1000);
    file("cli/package.json", 3000);
    expect(bundleIsCurrent(at("cli/dist/main.mjs"), inputs())).toBe(false);
  });

  it("ignores tests, which are not in the bundle", () => {
    file("cli/dist/main.mjs", 2000);
    file("cli/src/main.test.ts", 3000);
    expect(bundleIsCurrent(at("cli/dist/main.mjs"), inputs())).toBe(true);
  });

  it("is current where the sources are absent (an installed package ships the bundle only)", () => {
    rmSync(at("cli/src"), { recursive: true });
    rmSync(at("sdk"), { recursive: true });
    file("cli/dist/main.mjs", 2000);
    expect(bundleIsCurrent(at("cli/dist/main.mjs"), inputs())).toBe(true);
  });
});

describe("bin/ir21.js runs the same CLI from the bundle and from source", () => {
  const bin = fileURLToPath(new URL("../bin/ir21.js", import.meta.url));
  const run = (env: Record<string, string>) => spawnSync(process.execPath, [bin, "--version"], { env: { PATH: process.env.PATH, ...env }, encoding: "utf8" });

  it("answers --version both ways", () => {
    const fromSource = run({ IR21_CLI_FROM_SOURCE: "1" });
    const either = run({});
    expect(fromSource.status).toBe(0);
    expect(fromSource.stdout.trim()).toBe(VERSION);
    expect(either.status).toBe(0);
    expect(either.stdout.trim()).toBe(VERSION);
  });
});
