import { EVENT_TYPES, type DeliveryStatus, type EventType, type WebhookSubscription } from "@ir21/sdk";
import { useQuery } from "@tanstack/react-query";
import { api } from "../../api.ts";
import type { MessageKey } from "../../i18n/en.ts";

export const WEBHOOKS = ["webhooks", "list"] as const;
export const deliveriesKey = (id: string) => ["webhooks", id, "deliveries"] as const;
export const deliveryKey = (id: string, deliveryId: string) => ["webhooks", id, "deliveries", deliveryId] as const;
export const LISTEN_SESSIONS = ["webhooks", "listen"] as const;
export const listenDeliveriesKey = (sessionId: string) => ["webhooks", "listen", sessionId, "deliveries"] as const;
export const listenDeliveryKey = (sessionId: string, deliveryId: string) => ["webhooks", "listen", sessionId, "deliveries", deliveryId] as const;

/** The account's listen sessions (open, and ended within 30 days; at most 100, newest first). */
export const useListenSessions = () => useQuery({ queryKey: LISTEN_SESSIONS, queryFn: () => api.webhooks.listen.list.query(), refetchInterval: 10_000 });

/** The command a developer runs to open a listen session (docs/webhooks.md "Listen sessions"). */
export const LISTEN_COMMAND = "ir21 listen --forward-to http://localhost:3000/webhooks";

/** Every subscription of the account (at most 20, so one list serves the detail pages too). */
export const useWebhooks = () => useQuery({ queryKey: WEBHOOKS, queryFn: () => api.webhooks.list.query() });

/** One subscription, from the account's list; undefined while loading, null when it does not exist. */
export function useWebhook(id: string): { item: WebhookSubscription | null | undefined; query: ReturnType<typeof useWebhooks> } {
  const query = useWebhooks();
  const item = query.data ? (query.data.items.find((w) => w.id === id) ?? null) : undefined;
  return { item, query };
}

export { EVENT_TYPES, type EventType };

/** The UI text describing an event type in one line. */
export const eventDescription = (type: EventType): MessageKey => `event.${type}` as MessageKey;

export const DELIVERY_STATUSES = ["pending", "delivered", "failed", "cancelled"] as const satisfies readonly DeliveryStatus[];
