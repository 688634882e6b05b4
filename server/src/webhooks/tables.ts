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
  response_excerpt: string | null;
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
  webhook_workers: WebhookWorkerTable;
}
