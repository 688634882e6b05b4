import type { H3Event } from "h3";
import { newId } from "../ids.ts";

declare module "h3" {
  interface H3EventContext {
    requestId?: string;
    startedAt?: number;
  }
}

/**
 * The request's id, created on first use. Always server-generated (never taken from the client), so it
 * can carry no secret and cannot be forged into someone else's log trail.
 */
export function requestIdOf(event: H3Event): string {
  event.context.requestId ??= newId("req");
  return event.context.requestId;
}
