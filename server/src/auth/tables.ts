/** Accounts: users, their accepted agreements, SMS challenges and login sessions (migration 0200). */
export interface UserTable {
  id: string;
  /** E.164, `+86` and 11 digits; unique. */
  phone: string;
  name: string | null;
  /** A plan id of console/plans.ts; operators change it with `ir21-server accounts set-plan`. */
  plan: string;
  created_at: number;
}

/** Append-only evidence of consent (PIPL): one row per user, document and version accepted. */
export interface UserAgreementTable {
  user_id: string;
  document: "terms" | "privacy";
  version: string;
  accepted_at: number;
  ip: string | null;
  user_agent: string | null;
}

export interface SmsChallengeTable {
  id: string;
  phone: string;
  /** HMAC-SHA256(OTP_PEPPER, id:phone:code), hex; the code itself is never stored. */
  code_mac: string;
  attempts: number;
  created_at: number;
  expires_at: number;
  consumed_at: number | null;
  /** Set when a newer code was sent to the same phone. */
  superseded_at: number | null;
  /** Set when the provider refused the SMS: the challenge can never be verified and counts for no cap. */
  send_failed_at: number | null;
  ip: string | null;
  terms_version: string;
  privacy_version: string;
}

/** One row per phone: the earliest time another code may be sent (the atomic 60 s gate). */
export interface SmsThrottleTable {
  phone: string;
  next_send_at: number;
}

/** One row per client address that asked for a code: locked while its per-address caps are checked and charged. */
export interface SmsAddressGateTable {
  ip: string;
}

export interface SessionTable {
  /** Public half of the cookie token (`ses_…`); listed and revoked by this id. */
  id: string;
  user_id: string;
  /** SHA-256 of the secret half, hex. */
  secret_hash: string;
  created_at: number;
  last_seen_at: number;
  /** When the session ends if unused: min(last_seen_at + idle, absolute_expires_at). */
  expires_at: number;
  absolute_expires_at: number;
  revoked_at: number | null;
  ip: string | null;
  user_agent: string | null;
}

export interface AuthTables {
  users: UserTable;
  user_agreements: UserAgreementTable;
  sms_challenges: SmsChallengeTable;
  sms_throttle: SmsThrottleTable;
  sms_address_gate: SmsAddressGateTable;
  sessions: SessionTable;
}
