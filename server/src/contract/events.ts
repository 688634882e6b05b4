import { z } from "zod";
import { IsoTime } from "./common.ts";

/** The contract's event types, in the contract's order. */
export const EVENT_TYPES = [
  "ir21.number_range.added",
  "ir21.number_range.removed",
  "ir21.number_range.updated",
  "ir21.operator.added",
  "ir21.operator.removed",
  "ir21.operator.updated",
  "ir21.network.added",
  "ir21.network.removed",
  "ir21.network.updated",
  "ir21.capability.changed",
  "ir21.catalog.updated",
] as const;

export const EventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventType>;

/** The global reset: delivered and listed whatever the country/operator/type filters say. */
export const CATALOG_UPDATED = "ir21.catalog.updated" satisfies EventType;

/**
 * The event payload, as POSTed to webhook receivers and listed by /v1/changes.
 * `data` per type (DESIGN.md "Event data"): `*.added` {after}, `*.removed` {before},
 * `*.updated` and `capability.changed` {before, after, changed_fields}, `catalog.updated`
 * {reason, snapshot_url}, test events {summary}.
 */
export const EventPayload = z
  .object({
    id: z.string(),
    type: EventType,
    occurred_at: IsoTime,
    effective_at: IsoTime.nullable(),
    dataset_version: z.string(),
    previous_version: z.string(),
    country_iso2: z.string(),
    operator_id: z.string(),
    data: z.record(z.string(), z.unknown()),
    test: z.boolean(),
  })
  .meta({ id: "EventPayload" });
export type EventPayload = z.infer<typeof EventPayload>;
