/**
 * @ir21/sdk: typed clients for the ir21 communications data service. Webhook verification lives in
 * the dependency-free `@ir21/sdk/webhooks` entry.
 */
export { createConsoleClient, type ConsoleClient, type ConsoleClientOptions, type ConsoleInputs, type ConsoleOutputs, type AppRouter } from "./console.ts";
export { cookieFetch, memoryCookieJar, type SessionCookieJar, type MemoryCookieJar } from "./cookies.ts";
export { Ir21ApiError, isIr21ApiError, type Ir21ErrorCode, type ClientErrorCode, type Ir21ApiErrorInit } from "./errors.ts";
export type { RetryOptions, FetchLike } from "./transport.ts";
export { AGREEMENT_VERSION } from "./agreement.ts";
export type { EnvelopeMeta, ErrorBody, ErrorCode, EventPayload, EventType, SourceMode, User } from "./wire.ts";
