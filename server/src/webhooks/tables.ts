import type { DeliveryStatus } from "../contract/webhooks.ts";

export interface WebhookSubscriptionTable {
  id: string;
  user_id: string;
  url: string;
  /** JSON array of event types (at least one). */
  events: string;
  /** JSON array of ISO 3166-1 alpha-2 codes; empty means every country. */
  countries: string;
  /** JSON array of operator ids; empty means every operator. */
  operators: string;
  enabled: number;
  /** The signing secret, sealed with the server key (secret-box.ts); never stored in clear. */
  secret_sealed: string;
  previous_secret_sealed: string | null;
  /** The previous secret signs X-IR21-Signature-Previous strictly before this instant. */
  previous_secret_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

/** The events deliveries carry: the exact JSON body sent, shared by every subscription's delivery. */
export interface WebhookEventTable {
  id: string;
  type: string;
  payload: string;
  /** The catalogue change-log sequence this event came from; null for test events. */
  source_seq: number | null;
  /** Set for test events, which belong to one subscription. */
  subscription_id: string | null;
  created_at: number;
}

/** One row per (subscription, event): the job the workers claim. */
export interface WebhookDeliveryTable {
  id: string;
  subscription_id: string;
  user_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  /** Attempts allowed in total: the schedule's length, or attempts + 1 after a manual retry. */
  max_attempts: number;
  /** 1 after a manual retry: the next attempt is the manual one. */
  manual_retry: number;
  next_attempt_at: number | null;
  response_status: number | null;
  last_error: string | null;
  lease_owner: string | null;
  lease_until: number | null;
  /** Fencing token: bumped by every claim; a result is written only with the token of the current claim. */
  lease_token: number;
  created_at: number;
  updated_at: number;
}

export interface WebhookAttemptTable {
  id: string;
  delivery_id: string;
  attempt_no: number;
  /** scheduled | manual */
  kind: string;
  attempted_at: number;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
  /** The first 4 KiB of the receiver's response body (secrets redacted). */
  response_excerpt: string | null;
  /** JSON object of the receiver's response headers (credentials redacted); null when none arrived or before 0410. */
  response_headers: string | null;
  /** 1 when the body was longer than the excerpt; null when unknown (before 0410). */
  response_body_truncated: number | null;
}

/** A listen session (docs/webhooks.md "Listen sessions"): a developer's stream, open while it is attached. */
export interface WebhookListenSessionTable {
  id: string;
  user_id: string;
  /** JSON arrays, as on a subscription; empty events means every type. */
  events: string;
  countries: string;
  operators: string;
  /** Where the CLI says it forwards (informational; the server never connects to it). */
  forward_to: string | null;
  /** Sealed like a subscription's secret (secret-box.ts), with the session id as associated data. */
  secret_sealed: string;
  /** open: a stream is attached (or its holder's lease has not expired yet); ended otherwise. */
  status: "open" | "ended";
  end_reason: string | null;
  /** The process holding the stream; only it sends this session's deliveries. */
  holder: string | null;
  /** The holder renews this while the stream is attached; past it the session counts as ended. */
  lease_until: number | null;
  /** The catalogue change-log sequence fanned out to this session so far (set to the head when it (re)attaches). */
  last_seq: number;
  created_at: number;
  /** When the current stream attached (a resume moves it). */
  connected_at: number;
  ended_at: number | null;
  updated_at: number;
}

/** One event sent to one listen session, with the exact body sent (sessions have no shared event rows). */
export interface WebhookListenDeliveryTable {
  id: string;
  session_id: string;
  user_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  /** Set while the current attempt is on the stream and its report has not come back. */
  sent_at: number | null;
  response_status: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** How far fan-out has read a change log (by sequence), advanced in the transaction that writes its deliveries. */
export interface WebhookFanoutCursorTable {
  name: string;
  last_seq: number;
  updated_at: number;
}

/** A delivery worker's heartbeat: it counts as alive (its leases count towards the in-flight cap) until `alive_until`. */
export interface WebhookWorkerTable {
  owner: string;
  alive_until: number;
  started_at: number;
}

export interface WebhookTables {
  webhook_subscriptions: WebhookSubscriptionTable;
  webhook_events: WebhookEventTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  webhook_fanout_cursors: WebhookFanoutCursorTable;
  webhook_listen_sessions: WebhookListenSessionTable;
  webhook_listen_deliveries: WebhookListenDeliveryTable;
  webhook_workers: WebhookWorkerTable;
}
