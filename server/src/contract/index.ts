/**
 * The wire contract: zod schemas for the envelope, the error body, resources, event types and limits.
 * Procedures' `.types.ts` files and the OpenAPI document are built from these; nothing else defines a
 * wire shape.
 */
export * from "./api-keys.ts";
export * from "./auth.ts";
export * from "./catalog.ts";
export * from "./common.ts";
export * from "./console.ts";
export * from "./envelope.ts";
export * from "./errors.ts";
export * from "./events.ts";
export * from "./limits.ts";
export * from "./listen.ts";
export * from "./text.ts";
export * from "./webhooks.ts";
// catalog.ts and webhooks.ts both name a CountryCode and an OperatorId schema: the public names are the
// catalogue's id formats (the webhook filters' lenient variants stay internal to webhooks/).
export { CountryCode, OperatorId } from "./catalog.ts";
