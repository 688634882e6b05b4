import { z } from "zod";
import { EnvSchema } from "./config.ts";

/**
 * Every environment variable ir21-server reads, with its default and a one-line meaning: the source of
 * `.env.example` (`pnpm env:example` writes it; config-reference.test.ts fails when it is stale).
 *
 * The core variables are config.ts's EnvSchema: their defaults are read from the schema itself, and
 * the type below makes a meaning compulsory for each. The domains parse their own variables from the
 * raw environment (auth/settings.ts, console/plans.ts, webhooks/listen/settings.ts,
 * catalog/settings.ts); their defaults are written here and the test checks each against its parser.
 */
export interface EnvVariable {
  name: string;
  meaning: string;
  /** The value the server uses when the variable is unset, as it would be written in the file; null: none. */
  defaultValue: string | null;
  /** When the default depends on other settings, what it is (the variable is then shown unset). */
  defaultNote?: string;
}

type CoreName = keyof z.input<typeof EnvSchema>;
type Described = { meaning: string; defaultNote?: string };

/** config.ts's variables. A variable added to EnvSchema without a line here fails the type check. */
const CORE: Record<CoreName, Described> = {
  NODE_ENV: { meaning: "production turns off the dev SMS provider and the test-only allowlist, and requires the secrets, an https PUBLIC_ORIGIN" },
  PORT: { meaning: "listen port (0: any free port)" },
  HOST: { meaning: "listen address (0.0.0.0: every interface, as in a container)" },
  DATABASE_URL: { meaning: "file:<path> for SQLite, or mysql://user:pass@host:port/db for MySQL 8 / MariaDB 10.6+" },
  REDIS_URL: { meaning: "shared cache and counters, redis:// or rediss://; unset means in-process (one instance)" },
  REDIS_CLUSTER_NODES: { meaning: "a Redis Cluster instead: seed nodes host:port,host:port,… (wins over REDIS_URL)" },
  REDIS_COMMAND_TIMEOUT_MS: { meaning: "a Redis command not answered within this fails; its caller goes on without Redis (docs/operations.md \"Redis unavailable\")" },
  REDIS_CIRCUIT_OPEN_MS: { meaning: "after Redis failed, how long no command tries it (then one probes; a reconnect probes at once)" },
  PUBLIC_ORIGIN: { meaning: "the console's origin(s), comma-separated: cross-site checks, Secure/__Host- cookies when https" },
  SMS_PROVIDER: { meaning: "aliyun, tencent, dev (codes written to IR21_SMS_OUTBOX) or none (SMS endpoints answer 503)", defaultNote: "dev outside production, none in production" },
  IR21_SMS_OUTBOX: { meaning: "the dev SMS provider appends one JSON line {phone, code, sent_at} per message here" },
  WEBHOOK_ALLOW_HOSTS: { meaning: "test-only allowlist (e.g. 127.0.0.1,localhost) letting deliveries reach a local receiver; refused in production" },
  WEBHOOK_SECRETS_KEY: { meaning: "key (>= 32 characters) sealing webhook signing secrets at rest; then run `ir21-server webhooks rekey`", defaultNote: "a key derived from SESSION_SECRET" },
  WEBHOOK_SECRETS_PREVIOUS_KEYS: { meaning: "older webhook secrets keys, comma-separated, tried to open secrets during a key rotation" },
  WEBHOOK_ENDPOINT_CONCURRENCY: { meaning: "webhook deliveries in flight per subscription over all workers (1 to 100)" },
  DATA_DIR: { meaning: "where the embedded default keeps generated secrets and other local files" },
  LOG_LEVEL: { meaning: "fatal, error, warn, info, debug, trace or silent; JSON lines on stdout" },
  BODY_LIMIT_BYTES: { meaning: "largest accepted request body" },
  TRUST_PROXY: { meaning: "true behind one reverse proxy you run: the client address is the last X-Forwarded-For entry" },
  SHUTDOWN_TIMEOUT_MS: { meaning: "how long a graceful stop waits for requests in flight" },
  SHUTDOWN_DRAIN_SECONDS: { meaning: "after SIGTERM/SIGINT, how long /readyz answers 503 while requests are still served", defaultNote: "5 in production, 0 otherwise" },
  SESSION_SECRET: { meaning: "server secret (>= 32 characters); required in production", defaultNote: "generated into DATA_DIR/secrets.json outside production" },
  OTP_PEPPER: { meaning: "server secret (>= 32 characters) for SMS codes; required in production", defaultNote: "generated into DATA_DIR/secrets.json outside production" },
  TERMS_VERSION: { meaning: "the current terms version clients must accept (GET /auth/agreement)" },
  PRIVACY_VERSION: { meaning: "the current privacy policy version clients must accept" },
  WEB_DIST_DIR: { meaning: "the built web console served at / and /app/*", defaultNote: "the build next to the server bundle, else web/dist of the checkout" },
  METRICS_PORT: { meaning: "Prometheus metrics at GET /metrics on a listener of their own on this port (0: any free port); unset: no metrics" },
  METRICS_HOST: { meaning: "the metrics listener's address (keep it private: 0.0.0.0 only where the network is)" },
  OTEL_EXPORTER_OTLP_ENDPOINT: { meaning: "OpenTelemetry traces over OTLP/HTTP to this base URL (/v1/traces appended); setting it alone turns traces on" },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: { meaning: "the full traces URL instead (wins over OTEL_EXPORTER_OTLP_ENDPOINT; also turns traces on)" },
  OTEL_EXPORTER_OTLP_PROTOCOL: { meaning: "http/protobuf or http/json (gRPC is not supported)", defaultNote: "http/protobuf" },
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: { meaning: "the protocol for traces only (wins over OTEL_EXPORTER_OTLP_PROTOCOL)" },
  OTEL_EXPORTER_OTLP_HEADERS: { meaning: "headers for the exporter's requests, key=value,key=value (values percent-encoded), e.g. an API key" },
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: { meaning: "headers for traces only, merged over OTEL_EXPORTER_OTLP_HEADERS" },
  OTEL_SERVICE_NAME: { meaning: "the service.name of every span" },
  OTEL_RESOURCE_ATTRIBUTES: { meaning: "more resource attributes, key=value,key=value (e.g. deployment.environment.name=prod)" },
  OTEL_TRACES_SAMPLER: { meaning: "always_on, always_off, traceidratio or their parentbased_ forms" },
  OTEL_TRACES_SAMPLER_ARG: { meaning: "the ratio of traces kept (0 to 1) for the traceidratio samplers", defaultNote: "1" },
  OTEL_TRACES_EXPORTER: { meaning: "none turns traces off whatever the endpoint (otlp: the default, the only exporter)" },
  OTEL_SDK_DISABLED: { meaning: "true turns traces off whatever the endpoint" },
};

/** The domains' variables, in the order of README.md's table; defaults checked by config-reference.test.ts. */
const DOMAINS: Array<{ title: string; variables: Array<[name: string, defaultValue: string | null, meaning: string, defaultNote?: string]> }> = [
  {
    title: "Webhooks: listen sessions (`ir21 listen`)",
    variables: [
      ["WEBHOOK_LISTEN_SESSIONS_PER_ACCOUNT", "5", "open listen sessions per account (1 to 100)"],
      ["WEBHOOK_LISTEN_BUFFER", "32", "deliveries a listen session may have on its stream without a report (1 to 1000)"],
      ["WEBHOOK_LISTEN_PING_SECONDS", "15", "keep-alive comment on listen streams, under proxies' idle timeouts (1 to 300)"],
    ],
  },
  {
    title: "Sign-in: SMS codes, logins and sessions",
    variables: [
      ["SMS_RESEND_INTERVAL_SECONDS", "60", "seconds between codes to one phone (>= 60)"],
      ["SMS_PHONE_HOURLY_LIMIT", "5", "codes per phone per hour"],
      ["SMS_PHONE_DAILY_LIMIT", "10", "codes per phone per 24 h"],
      ["SMS_IP_HOURLY_LIMIT", "10", "codes per client address per hour"],
      ["SMS_IP_DAILY_LIMIT", "30", "codes per client address per 24 h"],
      ["SMS_GLOBAL_DAILY_LIMIT", "10000", "codes the whole service sends per 24 h"],
      ["LOGIN_IP_LIMIT", "30", "POST /auth/login attempts per client address per window"],
      ["LOGIN_IP_WINDOW_SECONDS", "600", "the window of LOGIN_IP_LIMIT"],
      ["LOGIN_PHONE_FAILURE_LIMIT", "10", "wrong codes per phone that lock its sign-in for the rest of the window"],
      ["LOGIN_PHONE_FAILURE_WINDOW_SECONDS", "3600", "the rolling window of LOGIN_PHONE_FAILURE_LIMIT"],
      ["SMS_PROVIDER_TIMEOUT_MS", "5000", "deadline of one SMS provider request"],
      ["SESSION_IDLE_DAYS", "30", "session idle expiry (sliding)"],
      ["SESSION_ABSOLUTE_DAYS", "90", "session absolute expiry"],
      ["CREDENTIAL_CACHE_SECONDS", "10", "how long an instance may answer from memory for a resolved API key or session (0 to 300)"],
    ],
  },
  {
    title: "SMS providers",
    variables: [
      ["ALIYUN_ACCESS_KEY_ID", null, "Aliyun SMS access key id"],
      ["ALIYUN_ACCESS_KEY_SECRET", null, "Aliyun SMS access key secret"],
      ["ALIYUN_SMS_SIGN_NAME", null, "Aliyun SMS signature"],
      ["ALIYUN_SMS_TEMPLATE_CODE", null, "Aliyun SMS template"],
      ["ALIYUN_SMS_ENDPOINT", "https://dysmsapi.aliyuncs.com", "Aliyun SMS endpoint"],
      ["TENCENT_SECRET_ID", null, "Tencent Cloud secret id"],
      ["TENCENT_SECRET_KEY", null, "Tencent Cloud secret key"],
      ["TENCENT_SMS_SDK_APP_ID", null, "Tencent Cloud SMS application id"],
      ["TENCENT_SMS_SIGN_NAME", null, "Tencent Cloud SMS signature"],
      ["TENCENT_SMS_TEMPLATE_ID", null, "Tencent Cloud SMS template"],
      ["TENCENT_SMS_REGION", "ap-guangzhou", "Tencent Cloud SMS region"],
      ["TENCENT_SMS_ENDPOINT", "https://sms.tencentcloudapi.com", "Tencent Cloud SMS endpoint"],
    ],
  },
  {
    title: "Plans, quotas and limits",
    variables: [
      ["PLAN_FREE_MONTHLY_QUOTA", "10000", "requests per month on the free plan"],
      ["PLAN_FREE_RATE_LIMIT_PER_MINUTE", "60", "requests per minute on the free plan"],
      ["PLAN_DEVELOPER_MONTHLY_QUOTA", "200000", "requests per month on the developer plan"],
      ["PLAN_DEVELOPER_RATE_LIMIT_PER_MINUTE", "300", "requests per minute on the developer plan"],
      ["PLAN_BUSINESS_MONTHLY_QUOTA", "2000000", "requests per month on the business plan"],
      ["PLAN_BUSINESS_RATE_LIMIT_PER_MINUTE", "1200", "requests per minute on the business plan"],
      ["PLAN_ENTERPRISE_MONTHLY_QUOTA", "20000000", "requests per month on the enterprise plan"],
      ["PLAN_ENTERPRISE_RATE_LIMIT_PER_MINUTE", "6000", "requests per minute on the enterprise plan"],
      ["ANONYMOUS_RATE_LIMIT_PER_MINUTE", "30", "data requests per minute per anonymous client address"],
      ["API_KEYS_PER_ACCOUNT", "20", "active API keys an account may hold"],
      ["CONTACT_IP_HOURLY_LIMIT", "10", "POST /contact per client address per hour"],
      ["USAGE_FLUSH_INTERVAL_MS", "1000", "how often an instance writes its buffered usage counts and re-reads account totals"],
    ],
  },
  {
    title: "Catalogue imports",
    variables: [
      ["CATALOG_IMPORT_ON_START", null, "import the reference data at start when the database has no dataset yet (true/false)", "true on SQLite, false on MySQL"],
      ["CATALOG_IMPORT_SCHEDULE", null, "cron expression (UTC) for scheduled re-imports; unset: off"],
      ["CATALOG_IMPORT_MODE", "reference", "what the schedule imports: reference, ir21 or mixed"],
      ["CATALOG_IMPORT_FOLDER", null, "folder of IR.21 documents for scheduled ir21 and mixed imports"],
      ["CATALOG_CHANGES_RETENTION_DAYS", "90", "how long /v1/changes keeps a version's events after the next version superseded it"],
    ],
  },
  {
    title: "The launcher (server/bin/ir21-server.js)",
    variables: [
      ["IR21_ENV_FILE", null, "the environment file to load before the configuration is read; a missing one is an error; /dev/null: none", ".env in the working directory, when there is one"],
      ["IR21_DEV", null, "1: run the TypeScript sources through tsx even when a current build exists"],
    ],
  },
];

/** The core groups, in the order of README.md's table. */
const CORE_GROUPS: Array<{ title: string; names: CoreName[] }> = [
  { title: "Listening, database and shared state", names: ["PORT", "HOST", "DATABASE_URL", "REDIS_URL", "REDIS_CLUSTER_NODES", "REDIS_COMMAND_TIMEOUT_MS", "REDIS_CIRCUIT_OPEN_MS", "PUBLIC_ORIGIN"] },
  { title: "SMS", names: ["SMS_PROVIDER", "IR21_SMS_OUTBOX"] },
  { title: "Webhooks", names: ["WEBHOOK_ALLOW_HOSTS", "WEBHOOK_ENDPOINT_CONCURRENCY", "WEBHOOK_SECRETS_KEY", "WEBHOOK_SECRETS_PREVIOUS_KEYS"] },
  { title: "Production, secrets and files", names: ["NODE_ENV", "SESSION_SECRET", "OTP_PEPPER", "DATA_DIR", "TERMS_VERSION", "PRIVACY_VERSION", "WEB_DIST_DIR"] },
  { title: "Logs, requests and stopping", names: ["LOG_LEVEL", "BODY_LIMIT_BYTES", "TRUST_PROXY", "SHUTDOWN_TIMEOUT_MS", "SHUTDOWN_DRAIN_SECONDS"] },
  {
    title: "Metrics and traces (docs/operations.md \"Metrics and traces\")",
    names: [
      "METRICS_PORT",
      "METRICS_HOST",
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
      "OTEL_EXPORTER_OTLP_PROTOCOL",
      "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
      "OTEL_EXPORTER_OTLP_HEADERS",
      "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
      "OTEL_SERVICE_NAME",
      "OTEL_RESOURCE_ATTRIBUTES",
      "OTEL_TRACES_SAMPLER",
      "OTEL_TRACES_SAMPLER_ARG",
      "OTEL_TRACES_EXPORTER",
      "OTEL_SDK_DISABLED",
    ],
  },
];

/** A schema default as it would be written in the environment (lists comma-separated). */
function written(value: unknown): string {
  return Array.isArray(value) ? value.join(",") : String(value);
}

function coreVariable(name: CoreName): EnvVariable {
  const field = EnvSchema.shape[name];
  const defaultValue = field instanceof z.ZodDefault ? written(field.def.defaultValue) : null;
  const { meaning, defaultNote } = CORE[name];
  return { name, meaning, defaultValue, ...(defaultNote ? { defaultNote } : {}) };
}

/** Every variable, grouped as `.env.example` shows them. */
export function environmentReference(): Array<{ title: string; variables: EnvVariable[] }> {
  return [
    ...CORE_GROUPS.map(({ title, names }) => ({ title, variables: names.map(coreVariable) })),
    ...DOMAINS.map(({ title, variables }) => ({
      title,
      variables: variables.map(([name, defaultValue, meaning, defaultNote]) => ({ name, meaning, defaultValue, ...(defaultNote ? { defaultNote } : {}) })),
    })),
  ];
}

/** The text of `.env.example`: every variable commented out at its default, so a copy changes nothing. */
export function renderEnvExample(): string {
  const lines = [
    "# ir21-server configuration: every environment variable it reads, at its default (README.md",
    '# "Configuration" explains each). Generated from server/src/config-reference.ts by',
    "# `pnpm env:example`: edit that file, not this one.",
    "#",
    "# ir21-server loads `.env` from its working directory (or the file IR21_ENV_FILE names) before it",
    "# reads its configuration; a variable already set in the environment, even empty, wins over the file.",
    "# Copy this file to .env and uncomment what you change.",
  ];
  for (const group of environmentReference()) {
    lines.push("", `# --- ${group.title}`);
    for (const v of group.variables) {
      lines.push(`# ${v.meaning}${v.defaultNote ? ` (default: ${v.defaultNote})` : ""}`);
      lines.push(`# ${v.name}=${v.defaultValue ?? ""}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
