/** Console: API keys and usage counters (migration 0300). */
export interface ApiKeyTable {
  id: string;
  user_id: string;
  name: string;
  /** The key's first characters, for people to recognise it (`ir21_AbC1234`). */
  prefix: string;
  /** SHA-256 of the full key, hex; unique. The key itself is never stored. */
  key_hash: string;
  created_at: number;
  revoked_at: number | null;
  /** Written at most once a minute per key. */
  last_used_at: number | null;
}

/**
 * Data queries per account, day (Asia/Shanghai, `YYYY-MM-DD`) and endpoint: successes are charged
 * against the monthly quota, failures (4xx/5xx, refusals) are only reported.
 */
export interface UsageDailyTable {
  user_id: string;
  day: string;
  endpoint: string;
  successes: number;
  failures: number;
}

export interface ConsoleTables {
  api_keys: ApiKeyTable;
  usage_daily: UsageDailyTable;
}
