import type { H3Event } from "h3";
import { AppError } from "../errors.ts";

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Reads a JSON request body: undefined when empty, 415 when a body is not declared JSON, 400 when it
 * does not parse. The size limit is enforced while reading (see the app's onRequest hook), so an
 * oversized body fails with 413 before it is buffered.
 */
export async function readJsonBody(event: H3Event): Promise<unknown> {
  if (!event.req.body) return undefined;
  const text = await event.req.text();
  if (text.trim() === "") return undefined;
  if (!JSON_TYPE.test(event.req.headers.get("content-type") ?? "")) {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the body as JSON with Content-Type: application/json");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError("MALFORMED_JSON", "The request body is not valid JSON");
  }
}
