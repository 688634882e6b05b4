import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { authSettings } from "./auth/settings.ts";
import { catalogSettings } from "./catalog/settings.ts";
import { EnvSchema, loadConfig } from "./config.ts";
import { environmentReference, renderEnvExample } from "./config-reference.ts";
import { consoleSettings } from "./console/env.ts";
import { contactSettings } from "./contact/env.ts";
import { meteringSettings } from "./metering/plans.ts";
import { listenSettings } from "./webhooks/listen/settings.ts";

const example = readFileSync(new URL("../../.env.example", import.meta.url), "utf8");
const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** `.env.example` with every `# NAME=value` line uncommented, read by node's own .env parser. */
const exampleValues = parseEnv(
  example
    .split("\n")
    .filter((line) => /^# [A-Z][A-Z0-9_]*=/.test(line))
    .map((line) => line.slice(2))
    .join("\n"),
);
const exampleNames = Object.keys(exampleValues);

/** What the server makes of an environment: the core configuration and every domain's settings. */
function settingsOf(env: Record<string, string | undefined>) {
  const { env: _raw, ...config } = loadConfig(env);
  const withEnv = { env };
  return {
    config,
    auth: authSettings(loadConfig(env)),
    metering: meteringSettings(withEnv),
    console: consoleSettings(withEnv),
    contact: contactSettings(withEnv),
    listen: listenSettings(withEnv),
    catalog: catalogSettings(env),
  };
}

describe(".env.example", () => {
  it("is what `pnpm env:example` writes (regenerate it after changing the configuration)", () => {
    expect(example).toBe(renderEnvExample());
  });

  it("names every variable of config.ts's schema", () => {
    const missing = Object.keys(EnvSchema.shape).filter((name) => !exampleNames.includes(name));
    expect(missing).toEqual([]);
  });

  it("names every variable of README.md's configuration table, and no other", () => {
    const table = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## Running on MySQL"));
    const documented = new Set<string>();
    for (const row of table.split("\n").filter((line) => line.startsWith("| `"))) {
      const cell = row.split("|")[1]!;
      for (const [, name] of cell.matchAll(/`([A-Z][A-Z0-9_<>]*)`/g)) {
        // PLAN_<ID>_… stands for one variable per plan.
        if (name!.includes("<ID>")) for (const id of ["FREE", "DEVELOPER", "BUSINESS", "ENTERPRISE"]) documented.add(name!.replace("<ID>", id));
        else documented.add(name!);
      }
    }
    expect([...documented].filter((name) => !exampleNames.includes(name)).sort()).toEqual([]);
    expect(exampleNames.filter((name) => !documented.has(name)).sort()).toEqual([]);
  });

  it("copied as it is, or uncommented, changes nothing: every value shown is the server's own default", () => {
    expect(settingsOf(exampleValues)).toEqual(settingsOf({}));
  });

  it("every numeric variable shown is read under that name (one more than its default changes the settings)", () => {
    const defaults = settingsOf({});
    const numeric = environmentReference()
      .flatMap((group) => group.variables)
      .filter((v) => v.defaultValue !== null && /^\d+$/.test(v.defaultValue));
    expect(numeric.length).toBeGreaterThan(30);
    const unread = numeric.filter((v) => JSON.stringify(settingsOf({ [v.name]: String(Number(v.defaultValue) + 1) })) === JSON.stringify(defaults));
    expect(unread.map((v) => v.name)).toEqual([]);
  });
});
