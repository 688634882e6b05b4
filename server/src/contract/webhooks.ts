import { z } from "zod";
import { Cursor, IsoTime, idOf } from "./common.ts";
import { EventPayload, EventType } from "./events.ts";
import { LIMITS } from "./limits.ts";
import { plainText } from "./text.ts";

/** Delivery statuses (docs/webhooks.md "Delivery states"). */
export const DELIVERY_STATUSES = ["pending", "delivered", "failed", "cancelled"] as const;
export const DeliveryStatus = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

export const SubscriptionId = idOf("whk");
export const DeliveryId = idOf("dlv");
export const EventId = idOf("evt");

/** An ISO 3166-1 alpha-2 code; lower case is accepted and stored upper case. */
export const CountryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "must be a two-letter country code")
  .meta({ example: "CN" })
  .transform((s) => s.toUpperCase());
/** An operator id as the catalogue names it. */
export const OperatorId = z.string().min(1).max(64).regex(/^[A-Za-z0-9_.:-]+$/, "must be an operator id from the catalogue");

const unique = <T>(items: T[]) => [...new Set(items)];

/** The writable fields, shared by create and update. Empty or omitted filter lists mean "all". */
export const SubscriptionEvents = z.array(EventType).min(1, "must name at least one event type").max(50).transform(unique);
export const SubscriptionCountries = z.array(CountryCode).max(300).transform(unique);
export const SubscriptionOperators = z.array(OperatorId).max(1000).transform(unique);
/** The URL parser would silently drop tabs and line breaks: refuse them (and the rest) instead. */
export const WebhookUrl = z.string().min(1).max(2048).check(plainText());

/** A subscription as the console shows it; the secret is never part of it. */
export const WebhookSubscription = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(EventType),
    countries: z.array(z.string()),
    operators: z.array(z.string()),
    enabled: z.boolean(),
    /** While a rotation grace period runs: when the previous secret stops signing. */
    previous_secret_expires_at: IsoTime.nullable(),
    created_at: IsoTime,
    updated_at: IsoTime,
  })
  .meta({ id: "WebhookSubscription" });
export type WebhookSubscription = z.infer<typeof WebhookSubscription>;

export const WebhookDelivery = z
  .object({
    id: z.string(),
    event_id: z.string(),
    event_type: EventType,
    status: DeliveryStatus,
    attempts: z.number().int(),
    response_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: IsoTime,
    next_attempt_at: IsoTime.nullable(),
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/**
 * What the receiver answered to one attempt (docs/webhooks.md "What the receiver answered"): its
 * headers (credentials redacted) and the first 4 KiB of its body (signing secrets masked).
 */
export const WebhookAttemptResponse = z
  .object({
    headers: z.record(z.string(), z.string()),
    body: z.string(),
    /** True when the body went on past the 4 KiB kept. */
    body_truncated: z.boolean(),
  })
  .meta({ id: "WebhookAttemptResponse" });
export type WebhookAttemptResponse = z.infer<typeof WebhookAttemptResponse>;

export const WebhookAttempt = z
  .object({
    id: z.string(),
    attempted_at: IsoTime,
    response_status: z.number().int().nullable(),
    error: z.string().nullable(),
    /** Additive: how long the attempt took, from send to the end of what was read. */
    duration_ms: z.number().int(),
    /** Additive: the receiver's answer; null when no response arrived (timeout, connection error). */
    response: WebhookAttemptResponse.nullable(),
  })
  .meta({ id: "WebhookAttempt" });
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

export const DeliveryListQuery = z.object({
  cursor: Cursor.optional(),
  limit: z.coerce.number().int().min(LIMITS.deliveryListLimit.min).max(LIMITS.deliveryListLimit.max).default(50),
  status: DeliveryStatus.optional(),
  event_id: z.string().max(64).optional(),
});


/** An event type, in the long form (`ir21.operator.updated`) the contract names. */
export const TestEventRequest = z.object({ event_type: EventType.optional() });

export const ListenSessionId = idOf("lsn");

/**
 * A listen session as its account sees it (docs/webhooks.md "Listen sessions"): a subscription that
 * lives as long as a stream, with the same filters. Its secret is shown once, on the stream.
 */
export const ListenSession = z
  .object({
    id: z.string(),
    status: z.enum(["open", "ended"]),
    events: z.array(EventType),
    countries: z.array(z.string()),
    operators: z.array(z.string()),
    /** Where the forwarder said it forwards (informational: the server never connects to it). */
    forward_to: z.string().nullable(),
    created_at: IsoTime,
    /** When the current (or last) stream attached. */
    connected_at: IsoTime,
    ended_at: IsoTime.nullable(),
    /** Why it ended: stream_closed, ended (by the account), shutdown, lease_expired, idle, replaced. */
    end_reason: z.string().nullable(),
  })
  .meta({ id: "ListenSession" });
export type ListenSession = z.infer<typeof ListenSession>;

/** Requests and answers of the webhook procedures (webhooks/subscriptions, webhooks/delivery-log). */

// get-delivery
export const GetDeliveryRequest = z.strictObject({ id: z.string().max(64), deliveryId: z.string().max(64) });
export const GetDeliveryResponse = z.object({ item: WebhookDelivery, attempts: z.array(WebhookAttempt), event: EventPayload });

// list-deliveries
export const ListDeliveriesRequest = z.strictObject({ id: z.string().max(64), ...DeliveryListQuery.shape });
export const ListDeliveriesResponse = z.object({ items: z.array(WebhookDelivery), total: z.number().int(), next_cursor: z.string().nullable() });

// retry-deliveries
export const RetryDeliveriesRequest = z.strictObject({
  id: z.string().max(64),
  delivery_ids: z.array(z.string().max(64)).min(LIMITS.retryBatchIds.min).max(LIMITS.retryBatchIds.max),
});
export const RetryDeliveriesResponse = z.object({ queued: z.number().int(), delivery_ids: z.array(z.string()) });

// retry-delivery
export const RetryDeliveryRequest = z.strictObject({ id: z.string().max(64), deliveryId: z.string().max(64) });
export const RetryDeliveryResponse = z.object({ queued: z.literal(true) });

// send-test-event
/** The contract's call has no body; `event_type` (additive) asks for a sample of that type. */
export const SendTestEventRequest = z.strictObject({ id: z.string().max(64), ...TestEventRequest.shape });
/** Queued only means queued: the delivery's status tells whether the receiver accepted it. */
export const SendTestEventResponse = z.object({ delivery_id: z.string(), queued: z.literal(true) });

// create-subscription
export const CreateSubscriptionRequest = z.strictObject({
  url: WebhookUrl,
  events: SubscriptionEvents,
  countries: SubscriptionCountries.optional(),
  operators: SubscriptionOperators.optional(),
});
/** The secret is shown here and at rotation only. */
export const CreateSubscriptionResponse = z.object({ item: WebhookSubscription, secret: z.string() });

// delete-subscription
export const DeleteSubscriptionRequest = z.strictObject({ id: z.string().max(64) });
export const DeleteSubscriptionResponse = z.object({ deleted: z.literal(true) });

// list-subscriptions
export const ListSubscriptionsRequest = z.strictObject({}).optional();
export const ListSubscriptionsResponse = z.object({ items: z.array(WebhookSubscription) });

// revoke-previous-secret
export const RevokePreviousSecretRequest = z.strictObject({ id: z.string().max(64) });
export const RevokePreviousSecretResponse = z.object({ revoked: z.literal(true) });

// rotate-secret
export const RotateSecretRequest = z.strictObject({
  id: z.string().max(64),
  grace_seconds: z.number().int().min(LIMITS.graceSeconds.min).max(LIMITS.graceSeconds.max).default(LIMITS.graceSeconds.default),
});
export const RotateSecretResponse = z.object({ item: WebhookSubscription, secret: z.string(), previous_secret_expires_at: IsoTime.nullable() });

// update-subscription
export const UpdateSubscriptionRequest = z.strictObject({
  id: z.string().max(64),
  url: WebhookUrl.optional(),
  events: SubscriptionEvents.optional(),
  countries: SubscriptionCountries.optional(),
  operators: SubscriptionOperators.optional(),
  enabled: z.boolean().optional(),
});
export const UpdateSubscriptionResponse = z.object({ item: WebhookSubscription });
