import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      production: false,
      port: 8787,
      host: "127.0.0.1",
      databaseUrl: "file:data/ir21.sqlite",
      redisUrl: null,
      publicOrigins: ["http://localhost:8787"],
      secureCookies: false,
      smsProvider: "dev",
      smsOutboxPath: "data/sms-outbox.jsonl",
      webhookAllowHosts: [],
      webhookEndpointConcurrency: 2,
      webhookSecretsKeys: { current: null, previous: [] },
      agreement: { termsVersion: "2026-09-08", privacyVersion: "2026-09-08" },
    });
  });

  it("lists every bad variable at once", () => {
    let error: unknown;
    try {
      loadConfig({ PORT: "eighty", DATABASE_URL: "postgres://x", PUBLIC_ORIGIN: "https://a.example/path", REDIS_URL: "localhost" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join("\n");
    for (const name of ["PORT", "DATABASE_URL", "PUBLIC_ORIGIN", "REDIS_URL"]) expect(problems).toContain(name);
    expect(() => loadConfig({ WEBHOOK_ENDPOINT_CONCURRENCY: "0" })).toThrow(/WEBHOOK_ENDPOINT_CONCURRENCY/);
    expect((error as ConfigError).message).toMatch(/^Invalid configuration:/);
  });

  it("refuses the dev SMS provider, the webhook allowlist and missing secrets in production", () => {
    expect(() => loadConfig({ NODE_ENV: "production", SMS_PROVIDER: "dev", WEBHOOK_ALLOW_HOSTS: "127.0.0.1" })).toThrow(ConfigError);
    try {
      loadConfig({ NODE_ENV: "production", SMS_PROVIDER: "dev", WEBHOOK_ALLOW_HOSTS: "127.0.0.1" });
    } catch (e) {
      const problems = (e as ConfigError).problems.join("\n");
      expect(problems).toContain("SMS_PROVIDER");
      expect(problems).toContain("WEBHOOK_ALLOW_HOSTS");
      expect(problems).toContain("SESSION_SECRET");
      expect(problems).toContain("OTP_PEPPER");
      expect(problems).toContain("PUBLIC_ORIGIN: must be https");
    }
  });

  it("has no SMS provider in production unless one is configured, and none when told so", () => {
    const secrets = { SESSION_SECRET: "s".repeat(32), OTP_PEPPER: "p".repeat(32), PUBLIC_ORIGIN: "https://console.ir21.example" };
    expect(loadConfig({ NODE_ENV: "production", ...secrets }).smsProvider).toBeNull();
    expect(loadConfig({ SMS_PROVIDER: "none" }).smsProvider).toBeNull();
  });

  it("uses secure cookies when the console origin is https, and splits origin lists", () => {
    const config = loadConfig({ PUBLIC_ORIGIN: "https://console.ir21.example, https://ir21.example/" });
    expect(config.publicOrigins).toEqual(["https://console.ir21.example", "https://ir21.example"]);
    expect(config.secureCookies).toBe(true);
  });

  it("treats empty variables as unset", () => {
    expect(loadConfig({ PORT: "", REDIS_URL: "" })).toMatchObject({ port: 8787, redisUrl: null });
  });

  it("reads REDIS_CLUSTER_NODES as host:port seed nodes and refuses anything else", () => {
    expect(loadConfig({}).redisClusterNodes).toBeNull();
    expect(loadConfig({ REDIS_CLUSTER_NODES: "10.0.0.1:7000, redis-b.internal:7001" }).redisClusterNodes).toEqual([
      { host: "10.0.0.1", port: 7000 },
      { host: "redis-b.internal", port: 7001 },
    ]);
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: "10.0.0.1" })).toThrow(/REDIS_CLUSTER_NODES.*host:port/);
  });

  it("bounds how long Redis is waited for: a command timeout and the circuit's open interval", () => {
    expect(loadConfig({}).redisLimits).toEqual({ commandTimeoutMs: 500, circuitOpenMs: 1000 });
    expect(loadConfig({ REDIS_COMMAND_TIMEOUT_MS: "200", REDIS_CIRCUIT_OPEN_MS: "5000" }).redisLimits).toEqual({ commandTimeoutMs: 200, circuitOpenMs: 5000 });
    expect(() => loadConfig({ REDIS_COMMAND_TIMEOUT_MS: "0" })).toThrow(/REDIS_COMMAND_TIMEOUT_MS/);
    expect(() => loadConfig({ REDIS_CIRCUIT_OPEN_MS: "soon" })).toThrow(/REDIS_CIRCUIT_OPEN_MS/);
  });
});
