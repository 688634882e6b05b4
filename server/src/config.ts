import { z } from "zod";
import { keyValueList, type TracingSettings } from "./observability/tracing.ts";

/**
 * Environment variables the server reads, validated once at start.
 * Every variable is listed in README.md "Configuration"; names are fixed by DESIGN.md "Running it".
 */
const commaList = z
  .string()
  .transform((s) =>
    s
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean),
  );

const origin = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === value.replace(/\/$/, "");
  } catch {
    return false;
  }
}, "must be an origin such as https://console.example.com (scheme, host, optional port; no path)");

const httpUrl = z.string().refine((value) => {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, "must be an http:// or https:// URL");

const otlpProtocol = z.enum(["http/protobuf", "http/json"], { message: "must be http/protobuf or http/json (gRPC is not supported)" });

export const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATABASE_URL: z
    .string()
    .regex(/^(file:|mysql:\/\/|mariadb:\/\/)/, "must start with file: (SQLite) or mysql:// (MySQL/MariaDB)")
    .default("file:data/ir21.sqlite"),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional(),
  // Redis Cluster: seed nodes (host:port, comma-separated); the client discovers the rest. Wins over REDIS_URL.
  REDIS_CLUSTER_NODES: commaList.pipe(z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, "every node must be host:port")).min(1, "needs at least one host:port")).optional(),
  // How long a Redis command may take, and how long Redis is left alone after it failed (docs/operations.md "Redis unavailable").
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  REDIS_CIRCUIT_OPEN_MS: z.coerce.number().int().min(100).max(600_000).default(1_000),
  PUBLIC_ORIGIN: commaList.pipe(z.array(origin).min(1, "needs at least one origin")).default(["http://localhost:8787"]),
  SMS_PROVIDER: z.enum(["aliyun", "tencent", "dev", "none"]).optional(),
  IR21_SMS_OUTBOX: z.string().min(1).default("data/sms-outbox.jsonl"),
  WEBHOOK_ALLOW_HOSTS: commaList.optional(),
  WEBHOOK_SECRETS_KEY: z.string().min(32, "must be at least 32 characters").optional(),
  WEBHOOK_SECRETS_PREVIOUS_KEYS: commaList.pipe(z.array(z.string().min(32, "every key must be at least 32 characters"))).optional(),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
  DATA_DIR: z.string().min(1).default("data"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10 * 1024 * 1024).default(64 * 1024),
  TRUST_PROXY: z
    .enum(["true", "false", "1", "0"])
    .transform((v) => v === "true" || v === "1")
    .default(false),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  SHUTDOWN_DRAIN_SECONDS: z.coerce.number().min(0).max(300).optional(),
  SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  OTP_PEPPER: z.string().min(32, "must be at least 32 characters").optional(),
  TERMS_VERSION: z.string().min(1).default("2026-09-08"),
  PRIVACY_VERSION: z.string().min(1).default("2026-09-08"),
  WEB_DIST_DIR: z.string().min(1).optional(),
  // Metrics and traces (docs/operations.md "Metrics and traces"): Prometheus on a listener of its own,
  // OpenTelemetry traces by the standard OTEL_* variables.
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  OTEL_SDK_DISABLED: z.enum(["true", "false"]).optional(),
  OTEL_TRACES_EXPORTER: z.enum(["otlp", "none"], { message: "must be otlp or none (this server exports traces over OTLP/HTTP only)" }).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl.optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional(),
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: z.string().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default("ir21-server"),
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
  OTEL_TRACES_SAMPLER: z
    .enum(["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"])
    .default("parentbased_always_on"),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
});

export type Env = z.input<typeof EnvSchema>;

export interface Config {
  production: boolean;
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | null;
  /** Redis Cluster seed nodes (REDIS_CLUSTER_NODES), or null for one Redis (REDIS_URL) or none. */
  redisClusterNodes: Array<{ host: string; port: number }> | null;
  /** REDIS_COMMAND_TIMEOUT_MS and REDIS_CIRCUIT_OPEN_MS (storage/redis-connection.ts). */
  redisLimits: { commandTimeoutMs: number; circuitOpenMs: number };
  /** Origins allowed to make cookie-authenticated writes; the first one is the canonical console origin. */
  publicOrigins: string[];
  /** Cookies get `Secure` and the `__Host-` prefix when the console is served over HTTPS. */
  secureCookies: boolean;
  smsProvider: "aliyun" | "tencent" | "dev" | null;
  smsOutboxPath: string;
  webhookAllowHosts: string[];
  /**
   * Seal webhook signing secrets at rest (docs/webhooks.md "Secrets at rest"): `current` seals and
   * opens (null: the SESSION_SECRET-derived key, as before the variable existed); `previous` only opens.
   */
  webhookSecretsKeys: { current: string | null; previous: string[] };
  /** Webhook deliveries in flight per subscription across all workers (docs/webhooks.md "Fairness"). */
  webhookEndpointConcurrency: number;
  dataDir: string;
  logLevel: z.infer<typeof EnvSchema>["LOG_LEVEL"];
  bodyLimitBytes: number;
  trustProxy: boolean;
  shutdownTimeoutMs: number;
  /**
   * After SIGTERM/SIGINT, how long /readyz answers 503 while the listener still serves, so a load
   * balancer stops routing here before connections are refused (docs/operations.md "Signals").
   */
  shutdownDrainMs: number;
  /** Null when not given: the embedded default generates them into DATA_DIR (see secrets.ts). */
  secrets: { session: string | null; otpPepper: string | null };
  agreement: { termsVersion: string; privacyVersion: string };
  /** The web console's build (web/dist of the checkout when null; docs/console.md "Web console"). */
  webDistDir: string | null;
  /** METRICS_PORT and METRICS_HOST: Prometheus's listener, or port null (the default): no metrics. */
  metrics: { port: number | null; host: string };
  /** The OTEL_* variables: where traces go, or null (the default): no tracing. */
  tracing: TracingSettings | null;
  /** The raw environment, for domain settings that parse their own variables. */
  env: Readonly<Record<string, string | undefined>>;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/**
 * Parses the environment into a {@link Config}, or throws a {@link ConfigError} naming every bad variable.
 * @example
 * const config = loadConfig(process.env);
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable means "not set", as in most twelve-factor tooling.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join(".") || "(env)"}: ${issue.message}`));
  }
  const e = parsed.data;
  const production = e.NODE_ENV === "production";
  const problems: string[] = [];
  if (production && e.SMS_PROVIDER === "dev") problems.push("SMS_PROVIDER: dev is refused when NODE_ENV=production");
  if (production && e.WEBHOOK_ALLOW_HOSTS?.length) problems.push("WEBHOOK_ALLOW_HOSTS: the test-only allowlist is refused when NODE_ENV=production");
  if (production && !e.SESSION_SECRET) problems.push("SESSION_SECRET: required when NODE_ENV=production");
  if (production && !e.OTP_PEPPER) problems.push("OTP_PEPPER: required when NODE_ENV=production");
  // The session cookie is Secure and __Host- only over https; a plain cookie is for local development.
  if (production && !e.PUBLIC_ORIGIN[0]!.startsWith("https:")) problems.push("PUBLIC_ORIGIN: must be https when NODE_ENV=production (session cookies are Secure)");
  if (problems.length) throw new ConfigError(problems);

  const smsProvider = e.SMS_PROVIDER === "none" ? null : (e.SMS_PROVIDER ?? (production ? null : "dev"));
  const publicOrigins = e.PUBLIC_ORIGIN.map((o) => o.replace(/\/$/, ""));
  return {
    production,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL ?? null,
    redisClusterNodes: e.REDIS_CLUSTER_NODES?.map((node) => ({ host: node.slice(0, node.lastIndexOf(":")), port: Number(node.slice(node.lastIndexOf(":") + 1)) })) ?? null,
    redisLimits: { commandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS, circuitOpenMs: e.REDIS_CIRCUIT_OPEN_MS },
    publicOrigins,
    secureCookies: publicOrigins[0]!.startsWith("https:"),
    smsProvider,
    smsOutboxPath: e.IR21_SMS_OUTBOX,
    webhookAllowHosts: e.WEBHOOK_ALLOW_HOSTS ?? [],
    webhookEndpointConcurrency: e.WEBHOOK_ENDPOINT_CONCURRENCY,
    webhookSecretsKeys: { current: e.WEBHOOK_SECRETS_KEY ?? null, previous: e.WEBHOOK_SECRETS_PREVIOUS_KEYS ?? [] },
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    trustProxy: e.TRUST_PROXY,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    // 5 s in production (a few readiness probes), none in development: Ctrl-C stops at once.
    shutdownDrainMs: Math.round((e.SHUTDOWN_DRAIN_SECONDS ?? (production ? 5 : 0)) * 1000),
    secrets: { session: e.SESSION_SECRET ?? null, otpPepper: e.OTP_PEPPER ?? null },
    agreement: { termsVersion: e.TERMS_VERSION, privacyVersion: e.PRIVACY_VERSION },
    webDistDir: e.WEB_DIST_DIR ?? null,
    metrics: { port: e.METRICS_PORT ?? null, host: e.METRICS_HOST },
    tracing: tracingSettings(e),
    env: { ...env },
  };
}

/**
 * Traces are on when an OTLP endpoint is given (OTEL_EXPORTER_OTLP_ENDPOINT alone is enough), unless
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, as the OpenTelemetry specification has it:
 * the generic endpoint gets `/v1/traces` appended, the traces-only one is used as it is; protocol
 * http/protobuf unless http/json is asked for; the traces-only variables win over the generic ones.
 */
function tracingSettings(e: z.infer<typeof EnvSchema>): TracingSettings | null {
  if (e.OTEL_SDK_DISABLED === "true" || e.OTEL_TRACES_EXPORTER === "none") return null;
  const url = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (e.OTEL_EXPORTER_OTLP_ENDPOINT ? `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces` : null);
  if (!url) return null;
  return {
    url,
    protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf",
    headers: { ...keyValueList(e.OTEL_EXPORTER_OTLP_HEADERS), ...keyValueList(e.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    serviceName: e.OTEL_SERVICE_NAME,
    resourceAttributes: keyValueList(e.OTEL_RESOURCE_ATTRIBUTES),
    sampler: { name: e.OTEL_TRACES_SAMPLER, ratio: e.OTEL_TRACES_SAMPLER_ARG ?? 1 },
  };
}

/**
 * Whole-number settings a domain reads from the environment (1 to 1,000,000,000), each with its
 * default; the variables that do not parse are named in one {@link ConfigError}.
 * @example
 * const { API_KEYS_PER_ACCOUNT } = wholeNumberSettings(config, { API_KEYS_PER_ACCOUNT: 20 });
 */
export function wholeNumberSettings<K extends string>(config: Pick<Config, "env">, defaults: Record<K, number>): Record<K, number> {
  const problems: string[] = [];
  const values = {} as Record<K, number>;
  for (const name of Object.keys(defaults) as K[]) {
    const raw = config.env[name];
    const parsed = raw === undefined || raw === "" ? null : Number(raw);
    const valid = parsed !== null && Number.isInteger(parsed) && parsed >= 1 && parsed <= 1_000_000_000;
    if (parsed !== null && !valid) problems.push(`${name}: must be a whole number from 1 to 1000000000`);
    values[name] = valid ? parsed : defaults[name];
  }
  if (problems.length) throw new ConfigError(problems);
  return values;
}
