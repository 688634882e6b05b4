import { EventPayload, EventType } from "./events.ts";
import { CountryCode, DeliveryListQuery, ListenSession, ListenSessionId, OperatorId, WebhookAttempt, WebhookDelivery } from "./webhooks.ts";
import { z } from "zod";

/** Listen sessions on the wire: requests and answers of the listen procedures (webhooks/listen), the stream's query. */

// end-session
export const EndListenSessionRequest = z.strictObject({ id: z.string().max(64) });
export const EndListenSessionResponse = z.object({ ended: z.literal(true) });

// get-delivery
export const GetListenDeliveryRequest = z.strictObject({ id: z.string().max(64), deliveryId: z.string().max(64) });
export const GetListenDeliveryResponse = z.object({ item: WebhookDelivery, attempts: z.array(WebhookAttempt), event: EventPayload });

// list-deliveries
export const ListListenDeliveriesRequest = z.strictObject({ id: z.string().max(64), ...DeliveryListQuery.shape });
export const ListListenDeliveriesResponse = z.object({ items: z.array(WebhookDelivery), total: z.number().int(), next_cursor: z.string().nullable() });

// list-sessions
export const ListListenSessionsRequest = z.strictObject({}).optional();
export const ListListenSessionsResponse = z.object({ items: z.array(ListenSession) });

// open-stream
/** A query list: repeated (`?events=a&events=b`) or comma-separated (`?events=a,b`). */
const list = <T extends z.ZodType<unknown, string>>(item: T, max: number) =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean))
    .pipe(z.array(item).max(max))
    .transform((items) => [...new Set(items)] as z.output<T>[]);

/**
 * GET /console/listen-sessions/stream: the filters of a new session (as a subscription's; none means
 * every event type, country and operator), or `resume` to reattach to a session of the account.
 */
export const OpenListenStreamQuery = z.strictObject({
  events: list(EventType, 50).optional(),
  countries: list(CountryCode, 300).optional(),
  operators: list(OperatorId, 1000).optional(),
  /** Where the forwarder says it forwards, shown in the listing; the server never connects to it. */
  forward_to: z.string().min(1).max(2048).optional(),
  resume: ListenSessionId.optional(),
});

// report-delivery
/**
 * What the forwarder saw when it POSTed a delivery to the local receiver: its status (or null and an
 * error when no answer came), how long it took, its headers and the start of its body. The server
 * keeps at most 4 KiB of body and redacts credentials (docs/webhooks.md "What the receiver answered").
 */
export const ReportListenDeliveryRequest = z.strictObject({
  id: z.string().max(64),
  deliveryId: z.string().max(64),
  status: z.number().int().min(100).max(599).nullable(),
  duration_ms: z.number().int().min(0).max(3_600_000),
  headers: z.record(z.string().max(256), z.string().max(8192)).optional(),
  body: z.string().max(16_384).optional(),
  body_truncated: z.boolean().optional(),
  error: z.string().max(2048).nullable().optional(),
});
export const ReportListenDeliveryResponse = z.object({ recorded: z.literal(true), status: z.enum(["delivered", "failed"]) });

// trigger-event
export const TriggerListenEventRequest = z.strictObject({ event_type: EventType });
export const TriggerListenEventResponse = z.object({
  event_id: z.string(),
  event_type: EventType,
  /** One delivery per open session of the account. */
  deliveries: z.array(z.object({ session_id: z.string(), delivery_id: z.string() })),
  /** Queued only means queued: each delivery's record says what the local receiver answered. */
  queued: z.literal(true),
});
