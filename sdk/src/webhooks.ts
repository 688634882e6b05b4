/**
 * @ir21/sdk/webhooks: verify signed ir21 webhook deliveries, by ir21's X-IR21-* headers or the Standard
 * Webhooks headers each delivery also carries. No runtime dependencies; Web Crypto only, so it runs in
 * Node 20+, Deno, Bun, Cloudflare Workers and browsers.
 */
export {
  verifyWebhook,
  WEBHOOK_HEADERS,
  STANDARD_WEBHOOK_HEADERS,
  DEFAULT_TOLERANCE_SECONDS,
  type VerifyWebhookInput,
  type WebhookHeaders,
  type WebhookScheme,
} from "./webhooks/verify.ts";
export { WebhookVerificationError, isWebhookVerificationError, WEBHOOK_FAILURE_CODES, type WebhookFailureCode } from "./webhooks/errors.ts";
export {
  verifyRequest,
  verifyNodeRequest,
  verifyH3Event,
  verifyExpressRequest,
  type VerifyRequestOptions,
  type FetchRequestLike,
  type NodeRequestLike,
  type H3EventLike,
  type ExpressRequestLike,
} from "./webhooks/adapters.ts";
export {
  createEventDeduplicator,
  MemoryIdempotencyStore,
  DEFAULT_DEDUPLICATION_TTL_SECONDS,
  type IdempotencyStore,
  type MemoryIdempotencyStoreOptions,
  type EventDeduplicator,
  type EventDeduplicatorOptions,
  type DeduplicatedOutcome,
} from "./webhooks/idempotency.ts";
export type { EventPayload, EventType } from "./wire.ts";
export { EVENT_TYPES } from "./wire.ts";
