import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configDir, ProfileStore } from "./config.ts";
import { UsageError } from "./errors.ts";

const root = mkdtempSync(join(tmpdir(), "ir21-config-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o777;

describe("configDir", () => {
  it("uses an absolute XDG_CONFIG_HOME, else ~/.config", () => {
    expect(configDir({ XDG_CONFIG_HOME: "/x/cfg", HOME: "/home/u" })).toBe("/x/cfg/ir21");
    // XDG: a relative value is invalid and ignored.
    expect(configDir({ XDG_CONFIG_HOME: "relative/cfg", HOME: "/home/u" })).toBe("/home/u/.config/ir21");
    expect(configDir({ HOME: "/home/u" })).toBe("/home/u/.config/ir21");
  });
});

describe("ProfileStore", () => {
  it("writes 0600 files in 0700 directories, atomically, and tightens what it finds", () => {
    const dir = join(root, "a", "ir21");
    const store = new ProfileStore(dir, "work");
    expect(store.read()).toEqual({});
    store.update((p) => ({ ...p, base_url: "https://ir21.example.com" }));
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, "profiles"))).toBe(0o700);
    expect(mode(store.path)).toBe(0o600);
    expect(store.read()).toEqual({ base_url: "https://ir21.example.com" });
    expect(readdirSync(join(dir, "profiles"))).toEqual(["work.json"]);

    chmodSync(store.path, 0o666);
    chmodSync(dir, 0o777);
    store.update((p) => ({ ...p, api_key: { key: "ir21_x", base_url: "https://ir21.example.com" } }));
    expect(mode(store.path)).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
    expect(readdirSync(join(dir, "profiles"))).toEqual(["work.json"]);
  });

  it("removes the file when nothing is left in it, and lists profiles by name", () => {
    const dir = join(root, "b", "ir21");
    const a = new ProfileStore(dir, "a");
    const b = new ProfileStore(dir, "b");
    a.update(() => ({ base_url: "http://a" }));
    b.update(() => ({ base_url: "http://b" }));
    mkdirSync(join(dir, "profiles", "stray"), { recursive: true });
    writeFileSync(join(dir, "profiles", "not a profile.json"), "{}");
    expect(a.list()).toEqual(["a", "b"]);
    a.update(() => ({ base_url: undefined }));
    expect(a.list()).toEqual(["b"]);
  });

  it("refuses names that could leave the directory", () => {
    for (const name of ["../x", "a/b", "..", "", "a b", "x".repeat(65), "a\u0000b"]) {
      expect(() => new ProfileStore(root, name), name).toThrow(UsageError);
    }
  });

  it("reports a file that is not a JSON object as a usage error", () => {
    const store = new ProfileStore(join(root, "c"), "default");
    store.update(() => ({ base_url: "http://c" }));
    writeFileSync(store.path, "[1, 2]");
    expect(() => store.read()).toThrow(/not valid JSON/);
  });
});
