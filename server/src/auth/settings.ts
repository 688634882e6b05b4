import { z } from "zod";
import type { Config } from "../config.ts";
import { ConfigError } from "../config.ts";

/**
 * The accounts domain's own settings: numbers the contract leaves open (SMS caps, session lifetimes)
 * and the SMS providers' credentials. Defaults are documented in docs/auth.md; every variable is in
 * README.md's configuration table.
 */
const count = (fallback: number) => z.coerce.number().int().min(1).max(10_000_000).default(fallback);

const AuthEnv = z.object({
  SMS_RESEND_INTERVAL_SECONDS: z.coerce.number().int().min(60).max(3600).default(60),
  SMS_PHONE_HOURLY_LIMIT: count(5),
  SMS_PHONE_DAILY_LIMIT: count(10),
  SMS_IP_HOURLY_LIMIT: count(10),
  SMS_IP_DAILY_LIMIT: count(30),
  SMS_GLOBAL_DAILY_LIMIT: count(10_000),
  LOGIN_IP_LIMIT: count(30),
  LOGIN_IP_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600),
  LOGIN_PHONE_FAILURE_LIMIT: count(10),
  LOGIN_PHONE_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(60).max(7 * 86_400).default(3600),
  SESSION_IDLE_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  SESSION_ABSOLUTE_DAYS: z.coerce.number().int().min(1).max(400).default(90),
  SMS_PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  CREDENTIAL_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),

  ALIYUN_ACCESS_KEY_ID: z.string().min(1).optional(),
  ALIYUN_ACCESS_KEY_SECRET: z.string().min(1).optional(),
  ALIYUN_SMS_SIGN_NAME: z.string().min(1).optional(),
  ALIYUN_SMS_TEMPLATE_CODE: z.string().min(1).optional(),
  ALIYUN_SMS_ENDPOINT: z.url().default("https://dysmsapi.aliyuncs.com"),

  TENCENT_SECRET_ID: z.string().min(1).optional(),
  TENCENT_SECRET_KEY: z.string().min(1).optional(),
  TENCENT_SMS_SDK_APP_ID: z.string().min(1).optional(),
  TENCENT_SMS_SIGN_NAME: z.string().min(1).optional(),
  TENCENT_SMS_TEMPLATE_ID: z.string().min(1).optional(),
  TENCENT_SMS_REGION: z.string().min(1).default("ap-guangzhou"),
  TENCENT_SMS_ENDPOINT: z.url().default("https://sms.tencentcloudapi.com"),
});

export interface AliyunSmsSettings {
  accessKeyId: string;
  accessKeySecret: string;
  signName: string;
  templateCode: string;
  endpoint: string;
}

export interface TencentSmsSettings {
  secretId: string;
  secretKey: string;
  sdkAppId: string;
  signName: string;
  templateId: string;
  region: string;
  endpoint: string;
}

export type SmsSettings =
  | { provider: "dev"; outboxPath: string }
  | { provider: "aliyun"; aliyun: AliyunSmsSettings }
  | { provider: "tencent"; tencent: TencentSmsSettings }
  /** Not configured (unset, `none`, or a provider with credentials missing): SMS endpoints answer 503. */
  | { provider: null; missing: string[] };

export interface SendLimits {
  resendIntervalMs: number;
  phonePerHour: number;
  phonePerDay: number;
  ipPerHour: number;
  ipPerDay: number;
  globalPerDay: number;
}

/** Brute-force limits on POST /auth/login beyond the contract's five attempts per challenge. */
export interface LoginLimits {
  /** Login attempts per client address per window (every attempt counts, right or wrong). */
  ipAttempts: number;
  ipWindowSeconds: number;
  /** Wrong codes per phone, across its challenges, that lock its sign-in for the rest of the window. */
  phoneFailures: number;
  phoneWindowMs: number;
}

export interface AuthSettings {
  sms: SmsSettings;
  smsTimeoutMs: number;
  sendLimits: SendLimits;
  loginLimits: LoginLimits;
  session: { idleMs: number; absoluteMs: number; refreshIntervalMs: number };
  /** How long a resolved API key or session may be served from memory (0: never); docs/auth.md "Revocation". */
  credentialCacheMs: number;
  agreement: { termsVersion: string; privacyVersion: string };
  /** Origins allowed to make cookie-authenticated writes. */
  allowedOrigins: string[];
}

const DAY_MS = 86_400_000;

/** Reads the accounts settings from the configuration; a bad value is a {@link ConfigError}. */
export function authSettings(config: Config): AuthSettings {
  const present = Object.fromEntries(Object.entries(config.env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = AuthEnv.safeParse(present);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  const e = parsed.data;
  if (e.SESSION_ABSOLUTE_DAYS < e.SESSION_IDLE_DAYS) {
    throw new ConfigError(["SESSION_ABSOLUTE_DAYS: must be at least SESSION_IDLE_DAYS"]);
  }
  return {
    sms: smsSettings(config, e),
    smsTimeoutMs: e.SMS_PROVIDER_TIMEOUT_MS,
    sendLimits: {
      resendIntervalMs: e.SMS_RESEND_INTERVAL_SECONDS * 1000,
      phonePerHour: e.SMS_PHONE_HOURLY_LIMIT,
      phonePerDay: e.SMS_PHONE_DAILY_LIMIT,
      ipPerHour: e.SMS_IP_HOURLY_LIMIT,
      ipPerDay: e.SMS_IP_DAILY_LIMIT,
      globalPerDay: e.SMS_GLOBAL_DAILY_LIMIT,
    },
    loginLimits: {
      ipAttempts: e.LOGIN_IP_LIMIT,
      ipWindowSeconds: e.LOGIN_IP_WINDOW_SECONDS,
      phoneFailures: e.LOGIN_PHONE_FAILURE_LIMIT,
      phoneWindowMs: e.LOGIN_PHONE_FAILURE_WINDOW_SECONDS * 1000,
    },
    session: { idleMs: e.SESSION_IDLE_DAYS * DAY_MS, absoluteMs: e.SESSION_ABSOLUTE_DAYS * DAY_MS, refreshIntervalMs: 3_600_000 },
    credentialCacheMs: e.CREDENTIAL_CACHE_SECONDS * 1000,
    agreement: config.agreement,
    allowedOrigins: config.publicOrigins,
  };
}

function smsSettings(config: Config, e: z.infer<typeof AuthEnv>): SmsSettings {
  const missing = (values: Record<string, string | undefined>) => Object.entries(values).filter(([, v]) => !v).map(([k]) => k);
  switch (config.smsProvider) {
    case "dev":
      return { provider: "dev", outboxPath: config.smsOutboxPath };
    case "aliyun": {
      const values = {
        ALIYUN_ACCESS_KEY_ID: e.ALIYUN_ACCESS_KEY_ID,
        ALIYUN_ACCESS_KEY_SECRET: e.ALIYUN_ACCESS_KEY_SECRET,
        ALIYUN_SMS_SIGN_NAME: e.ALIYUN_SMS_SIGN_NAME,
        ALIYUN_SMS_TEMPLATE_CODE: e.ALIYUN_SMS_TEMPLATE_CODE,
      };
      const absent = missing(values);
      if (absent.length) return { provider: null, missing: absent };
      return {
        provider: "aliyun",
        aliyun: {
          accessKeyId: e.ALIYUN_ACCESS_KEY_ID!,
          accessKeySecret: e.ALIYUN_ACCESS_KEY_SECRET!,
          signName: e.ALIYUN_SMS_SIGN_NAME!,
          templateCode: e.ALIYUN_SMS_TEMPLATE_CODE!,
          endpoint: e.ALIYUN_SMS_ENDPOINT,
        },
      };
    }
    case "tencent": {
      const values = {
        TENCENT_SECRET_ID: e.TENCENT_SECRET_ID,
        TENCENT_SECRET_KEY: e.TENCENT_SECRET_KEY,
        TENCENT_SMS_SDK_APP_ID: e.TENCENT_SMS_SDK_APP_ID,
        TENCENT_SMS_SIGN_NAME: e.TENCENT_SMS_SIGN_NAME,
        TENCENT_SMS_TEMPLATE_ID: e.TENCENT_SMS_TEMPLATE_ID,
      };
      const absent = missing(values);
      if (absent.length) return { provider: null, missing: absent };
      return {
        provider: "tencent",
        tencent: {
          secretId: e.TENCENT_SECRET_ID!,
          secretKey: e.TENCENT_SECRET_KEY!,
          sdkAppId: e.TENCENT_SMS_SDK_APP_ID!,
          signName: e.TENCENT_SMS_SIGN_NAME!,
          templateId: e.TENCENT_SMS_TEMPLATE_ID!,
          region: e.TENCENT_SMS_REGION,
          endpoint: e.TENCENT_SMS_ENDPOINT,
        },
      };
    }
    default:
      return { provider: null, missing: ["SMS_PROVIDER"] };
  }
}
