/**
 * The environment file (docs/operations.md "Configuration files"): ir21-server loads `.env` from its
 * working directory, or the file IR21_ENV_FILE names, before it reads its configuration; variables
 * already set win. Checked on the loader itself and on the real launcher, started as a process.
 */
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { EnvFileError, loadEnvFile } from "../../server/bin/env-file.js";

const bin = fileURLToPath(new URL("../../server/bin/ir21-server.js", import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function folder(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "ir21-env-file-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("loadEnvFile", () => {
  it("fills in the variables that are not set; a set one wins, even empty", () => {
    const cwd = folder({ ".env": "PORT=9100\nHOST=0.0.0.0\nLOG_LEVEL=debug\n" });
    const env: Record<string, string | undefined> = { HOST: "127.0.0.2", LOG_LEVEL: "" };
    expect(loadEnvFile({ env, cwd })).toBe(join(cwd, ".env"));
    expect(env).toEqual({ HOST: "127.0.0.2", LOG_LEVEL: "", PORT: "9100" });
  });

  it("reads the .env syntax: comments, quotes, export, a # inside quotes, \\n in double quotes", () => {
    const cwd = folder({
      ".env": ["# a comment", "export A=exported", "B='single # kept'", 'C="two\\nlines"', "D=plain # comment", "E=", ""].join("\n"),
    });
    const env: Record<string, string | undefined> = {};
    loadEnvFile({ env, cwd });
    expect(env).toEqual({ A: "exported", B: "single # kept", C: "two\nlines", D: "plain", E: "" });
  });

  it("without IR21_ENV_FILE and without .env there is nothing to load", () => {
    const env: Record<string, string | undefined> = { KEEP: "1" };
    expect(loadEnvFile({ env, cwd: folder() })).toBeNull();
    expect(env).toEqual({ KEEP: "1" });
  });

  it("IR21_ENV_FILE names the file instead (relative to the working directory); /dev/null loads nothing", () => {
    const cwd = folder({ ".env": "FROM=dotenv\n" });
    mkdirSync(join(cwd, "conf"));
    writeFileSync(join(cwd, "conf/prod.env"), "FROM=named\n");
    const env: Record<string, string | undefined> = { IR21_ENV_FILE: "conf/prod.env" };
    expect(loadEnvFile({ env, cwd })).toBe(join(cwd, "conf/prod.env"));
    expect(env.FROM).toBe("named");
    const none: Record<string, string | undefined> = { IR21_ENV_FILE: "/dev/null" };
    loadEnvFile({ env: none, cwd });
    expect(none).toEqual({ IR21_ENV_FILE: "/dev/null" });
  });

  it("a named file that is missing, or a folder, is an error naming it", () => {
    const cwd = folder();
    expect(() => loadEnvFile({ env: { IR21_ENV_FILE: "missing.env" }, cwd })).toThrow(EnvFileError);
    expect(() => loadEnvFile({ env: { IR21_ENV_FILE: "missing.env" }, cwd })).toThrow(`IR21_ENV_FILE: ${join(cwd, "missing.env")} does not exist`);
    mkdirSync(join(cwd, ".env"));
    expect(() => loadEnvFile({ env: {}, cwd })).toThrow(/\.env cannot be read/);
  });
});

/** The launcher's environment without anything a developer's shell or CI could add. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH!, HOME: process.env.HOME ?? "/tmp", NODE_ENV: "development", CATALOG_IMPORT_ON_START: "false", ...extra };
}

function launch(cwd: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, env: cleanEnv(env), timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe("ir21-server with a .env", () => {
  it("serves with the file's settings under the environment's: port and terms from the file, the privacy version from the environment", async () => {
    const port = await freePort();
    const cwd = folder();
    writeFileSync(join(cwd, ".env"), [`PORT=${port}`, "HOST=127.0.0.1", `DATABASE_URL=file:${join(cwd, "db.sqlite")}`, `DATA_DIR=${cwd}`, "TERMS_VERSION=2030-01-01", "PRIVACY_VERSION=2030-01-01", ""].join("\n"));
    const child = spawn(process.execPath, [bin, "serve"], { cwd, env: cleanEnv({ PRIVACY_VERSION: "2031-02-02" }), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const deadline = Date.now() + 90_000;
      while (!output.includes('"ir21 server listening"') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      expect(output, output).toContain(`"url":"http://127.0.0.1:${port}"`);
      const agreement = (await (await fetch(`http://127.0.0.1:${port}/auth/agreement`)).json()) as { data: { terms_version: string; privacy_version: string } };
      expect(agreement.data).toMatchObject({ terms_version: "2030-01-01", privacy_version: "2031-02-02" });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  }, 120_000);

  it("a bad value in the file stops the start like a bad variable (78, naming it)", async () => {
    const cwd = folder({ ".env": "PORT=eighty\n" });
    const result = await launch(cwd, ["migrate"], { DATA_DIR: cwd, DATABASE_URL: `file:${join(cwd, "db.sqlite")}` });
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/PORT/);
  }, 120_000);

  it("IR21_ENV_FILE naming a missing file stops it (78) before anything runs", async () => {
    const cwd = folder();
    const result = await launch(cwd, ["migrate"], { IR21_ENV_FILE: "nowhere.env", DATA_DIR: cwd, DATABASE_URL: `file:${join(cwd, "db.sqlite")}` });
    expect(result.code).toBe(78);
    expect(result.stderr).toContain(`ir21-server: IR21_ENV_FILE: ${join(cwd, "nowhere.env")} does not exist`);
  }, 120_000);
});
