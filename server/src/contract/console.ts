import { z } from "zod";
import { idOf, IsoDate, IsoTime } from "./common.ts";
import { plainText } from "./text.ts";

/** Console resources on the wire (contract "Console endpoints"; docs/console.md). */
export const ApiKeySummary = z
  .object({
    id: z.string(),
    name: z.string(),
    /** The key's first 12 characters, e.g. `ir21_AbC1234`; never the key. */
    prefix: z.string(),
    created_at: IsoTime,
    revoked_at: IsoTime.nullable(),
    last_used_at: IsoTime.nullable(),
  })
  .strict()
  .meta({ id: "ApiKeySummary" });
export type ApiKeySummary = z.infer<typeof ApiKeySummary>;

export const API_KEY_NAME_BOUNDS = { min: 1, max: 64 } as const;

/** Inputs of routes that take none: unknown query or body fields are a 400, not silently ignored. */
export const NoInput = z.strictObject({}).optional();

export const CreateApiKeyRequest = z
  .strictObject({ name: z.string().trim().min(API_KEY_NAME_BOUNDS.min).max(API_KEY_NAME_BOUNDS.max).check(plainText()) })
  .meta({ id: "CreateApiKeyRequest" });
export const CreateApiKeyResponse = z
  .object({
    /** The full key: shown in this response only. */
    key: z.string(),
    item: ApiKeySummary,
  })
  .meta({ id: "CreateApiKeyResponse" });
export const ApiKeyList = z.object({ items: z.array(ApiKeySummary) }).meta({ id: "ApiKeyList" });
export const ApiKeyIdInput = z.strictObject({ id: idOf("key") });
export const RevokedResponse = z.object({ revoked: z.literal(true) });

export const SessionItem = z
  .object({ id: z.string(), created_at: IsoTime, expires_at: IsoTime, current: z.boolean() })
  .strict()
  .meta({ id: "SessionItem" });
export const SessionList = z.object({ items: z.array(SessionItem) }).meta({ id: "SessionList" });
export const SessionIdInput = z.strictObject({ id: idOf("ses") });
export const RevokeSessionResponse = z.object({ revoked: z.literal(true), current: z.boolean() });
export const RevokeOthersResponse = z.object({ revoked: z.number().int().min(0) });

/** The quota period: a calendar month in Asia/Shanghai; `end` (= `resets_at`) is exclusive. */
export const UsagePeriod = z.object({ start: IsoTime, end: IsoTime, resets_at: IsoTime }).meta({ id: "UsagePeriod" });
export const Usage = z
  .object({
    period: UsagePeriod,
    /** Successful data queries this period (what the quota counts). */
    used: z.number().int(),
    quota: z.number().int(),
    by_endpoint: z.array(z.object({ endpoint: z.string(), count: z.number().int() })),
    /** Every day of the period up to today (Asia/Shanghai), zero-filled. */
    daily: z.array(z.object({ date: IsoDate, count: z.number().int() })),
    /** Business failures this period: data queries answered 4xx/5xx, never charged. */
    failures: z.number().int(),
    /** When the quota is next restored (the next period's start). */
    resets_at: IsoTime,
  })
  .meta({ id: "Usage" });

export const PlanRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    monthly_quota: z.number().int(),
    rate_limit_per_minute: z.number().int(),
    price: z.object({ amount: z.number(), currency: z.literal("CNY"), interval: z.literal("month") }).nullable(),
    provisional: z.literal(true),
  })
  .meta({ id: "PlanRecord" });
export const PlanInfo = z
  .object({
    current_plan: z.string(),
    pricing_is_provisional: z.literal(true),
    payment_enabled: z.literal(false),
    plans: z.array(PlanRecord),
  })
  .meta({ id: "PlanInfo" });
export const Billing = z.object({ items: z.array(z.never()).meta({ example: [] }), payment_enabled: z.literal(false) }).meta({ id: "Billing" });
