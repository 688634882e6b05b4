/**
 * compose.yaml and the Dockerfile, checked where no container engine runs (docs/operations.md
 * "Container"): the compose file against the Compose Specification's JSON schema and best-practice
 * rules by dclint (a maintained linter that bundles the schema), and what the topology relies on
 * against the server's own configuration reference. `pnpm test:container` (tests/container/check.ts)
 * builds and runs the image itself; compose cannot run here.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { environmentReference } from "../../server/src/config-reference.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const dclint = fileURLToPath(new URL("../node_modules/.bin/dclint", import.meta.url));
const composeText = readFileSync(join(root, "compose.yaml"), "utf8");
const work = mkdtempSync(join(tmpdir(), "ir21-compose-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface LintMessage {
  rule: string;
  type: "error" | "warning";
  message: string;
}

/**
 * dclint's findings on a compose file. Rules about key order and quote style are off: the file orders
 * keys by meaning (what a service is, then how it starts, then what it waits for) and quotes ports
 * with double quotes, as the rest of the repository's YAML does.
 */
async function lint(text: string): Promise<LintMessage[]> {
  const file = join(work, `compose-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  const style = ["service-keys-order", "services-alphabetical-order", "top-level-properties-order", "require-quotes-in-ports"];
  const args = [file, "--formatter", "json", "--color", "false", ...style.flatMap((rule) => ["--disable-rule", rule])];
  const { stdout } = await promisify(execFile)(dclint, args).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "[]" }));
  return (JSON.parse(stdout) as Array<{ messages: LintMessage[] }>).flatMap((report) => report.messages);
}

/** `${NAME}`, `${NAME:-default}` and `${NAME:?message}` filled in as compose does; `$$` is a literal `$`. */
function interpolate(text: string, values: Record<string, string>): string {
  return text.replace(/\$\$|\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (whole, name: string | undefined, kind: string | undefined, rest: string | undefined) => {
    if (whole === "$$") return "$";
    const value = values[name!];
    if (value !== undefined && value !== "") return value;
    if (kind === "-") return rest!;
    throw new Error(`${name} is required: ${rest ?? "no default"}`);
  });
}

const values = {
  MARIADB_PASSWORD: "compose-check-password",
  PUBLIC_ORIGIN: "https://console.example.test",
  SESSION_SECRET: "s".repeat(32),
  OTP_PEPPER: "p".repeat(32),
  WEBHOOK_SECRETS_KEY: "k".repeat(32),
};
const compose = parse(interpolate(composeText, values), { merge: true }) as {
  services: Record<string, { image?: string; command?: string[]; entrypoint?: string[]; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }>; healthcheck?: { disable?: boolean }; stop_grace_period?: string; ports?: string[] }>;
};
const serverServices = ["setup", "api", "worker"] as const;

describe("compose.yaml", () => {
  it("follows the Compose Specification's schema and dclint's rules", async () => {
    expect(await lint(composeText)).toEqual([]);
  }, 60_000);

  it("the check fails on a file the schema refuses (a misspelt key in the shared server block)", async () => {
    const broken = composeText.replace("stop_grace_period: 20s", "stop_grace_perod: 20s");
    expect(broken).not.toBe(composeText);
    expect((await lint(broken)).map((m) => m.rule)).toContain("invalid-schema");
  }, 60_000);

  it("refuses to start without the secrets and the database password (required variables)", () => {
    for (const name of Object.keys(values)) {
      expect(() => interpolate(composeText, { ...values, [name]: "" }), name).toThrow(name);
    }
  });

  it("MariaDB, Redis, a one-shot setup, the API without deliveries and a worker, on one image", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["api", "mariadb", "redis", "setup", "worker"]);
    const images = new Set(serverServices.map((name) => compose.services[name]!.image));
    expect(images.size).toBe(1);
    expect(compose.services.api!.command).toEqual(["serve", "--no-webhook-worker"]);
    expect(compose.services.worker!.command).toEqual(["worker"]);
    // docs/operations.md: on MySQL an operator migrates, then imports once; the SQLite default does both itself.
    const setup = [...(compose.services.setup!.entrypoint ?? []), ...(compose.services.setup!.command ?? [])].join(" ");
    expect(setup).toMatch(/^sh -c ir21-server migrate && .*ir21-server import reference/);
    for (const name of ["api", "worker"]) expect(compose.services[name]!.depends_on).toEqual({ setup: { condition: "service_completed_successfully" } });
    expect(compose.services.setup!.depends_on).toEqual({ mariadb: { condition: "service_healthy" }, redis: { condition: "service_healthy" } });
    // The worker serves no HTTP: the image's /readyz health check must not mark it unhealthy.
    expect(compose.services.worker!.healthcheck).toEqual({ disable: true });
    expect(compose.services.api!.healthcheck).toBeUndefined();
  });

  it("gives the server only variables it reads, and the database URL the MariaDB service's credentials", () => {
    const known = new Set(environmentReference().flatMap((group) => group.variables.map((v) => v.name)));
    for (const name of serverServices) {
      const env = compose.services[name]!.environment!;
      expect(Object.keys(env).filter((key) => !known.has(key)), name).toEqual([]);
      expect(env.NODE_ENV).toBe("production");
      expect(env.REDIS_URL).toBe("redis://redis:6379");
      const url = new URL(env.DATABASE_URL!);
      const db = compose.services.mariadb!.environment!;
      expect([url.protocol, url.username, url.password, url.hostname, url.port, url.pathname]).toEqual(["mysql:", db.MARIADB_USER, db.MARIADB_PASSWORD, "mariadb", "3306", `/${db.MARIADB_DATABASE}`]);
    }
  });

  it("lets a stop drain: the grace period covers SHUTDOWN_DRAIN_SECONDS (5 in production) and SHUTDOWN_TIMEOUT_MS", () => {
    const reference = new Map(environmentReference().flatMap((group) => group.variables.map((v) => [v.name, v] as const)));
    const timeoutSeconds = Number(reference.get("SHUTDOWN_TIMEOUT_MS")!.defaultValue) / 1000;
    for (const name of serverServices) {
      const grace = compose.services[name]!.stop_grace_period!;
      expect(grace).toMatch(/^\d+s$/);
      expect(Number.parseInt(grace, 10)).toBeGreaterThanOrEqual(5 + timeoutSeconds);
    }
  });
});

describe("Dockerfile", () => {
  const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8").replace(/\\\n/g, " ");
  const instructions = dockerfile.split("\n").filter((line) => /^[A-Z]+\s/.test(line));
  const last = (keyword: string) => instructions.filter((line) => line.startsWith(`${keyword} `)).at(-1)?.slice(keyword.length + 1).trim() ?? "";

  it("builds on bases given as arguments, with a standard Node image as the default", () => {
    expect(instructions.filter((line) => line.startsWith("FROM "))).toEqual(["FROM ${BUILD_BASE} AS build", "FROM ${BASE}"]);
    expect(dockerfile).toMatch(/^ARG BASE=node:22-bookworm-slim$/m);
    expect(dockerfile).toMatch(/^ARG BUILD_BASE=node:22-bookworm$/m);
  });

  it("runs node itself as PID 1 (exec form), as an unprivileged user, with /data a volume and a /readyz health check", () => {
    expect(JSON.parse(last("ENTRYPOINT"))[0]).toBe("node");
    expect(JSON.parse(last("CMD"))).toEqual(["serve"]);
    expect(last("USER")).not.toMatch(/^(root|0)(:|$)/);
    expect(last("VOLUME")).toBe('["/data"]');
    expect(last("HEALTHCHECK")).toContain("/readyz");
  });
});
