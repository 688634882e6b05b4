import { z } from "zod";
import { EventType } from "../../contract/events.ts";
import { CountryCode, ListenSessionId, OperatorId } from "../../contract/webhooks.ts";

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
export const ZOpenStreamQuery = z.strictObject({
  events: list(EventType, 50).optional(),
  countries: list(CountryCode, 300).optional(),
  operators: list(OperatorId, 1000).optional(),
  /** Where the forwarder says it forwards, shown in the listing; the server never connects to it. */
  forward_to: z.string().min(1).max(2048).optional(),
  resume: ListenSessionId.optional(),
});
