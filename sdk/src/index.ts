/**
 * @ir21/sdk: typed clients for the ir21 communications data service. Webhook verification lives in
 * the dependency-free `@ir21/sdk/webhooks` entry.
 */
export {
  createClient,
  EXPORT_RESOURCES,
  type Access,
  type AccessOf,
  type CapabilitiesQuery,
  type ChangesPage,
  type ChangesQuery,
  type DataClient,
  type ExportResource,
  type FieldName,
  type ImsiLookupField,
  type Listing,
  type NetworksQuery,
  type NumberLookupField,
  type NumberRangesQuery,
  type OperatorsQuery,
  type Page,
  type PageParams,
  type Projections,
  type Selected,
  type Snapshot,
  type SnapshotResult,
} from "./data-api/client.ts";
export type { CallOptions, DataClientOptions, DataResult } from "./data-api/http.ts";
export type { DownloadOptions, FileDownload } from "./data-api/files.ts";
export { syncChanges, compareVersions, type SyncChangesOptions, type SyncChangesResult } from "./changes.ts";
export { listenStream, listenStreamUrl, type ListenDelivery, type ListenMessage, type ListenStreamOptions } from "./listen.ts";
export { createConsoleClient, type ConsoleClient, type ConsoleClientOptions, type ConsoleInputs, type ConsoleOutputs, type AppRouter } from "./console.ts";
export { cookieFetch, memoryCookieJar, type SessionCookieJar, type MemoryCookieJar } from "./cookies.ts";
export { Ir21ApiError, isIr21ApiError, type Ir21ErrorCode, type ClientErrorCode, type Ir21ApiErrorInit } from "./errors.ts";
export { DEFAULT_TIMEOUT_MS, type RetryOptions, type FetchLike } from "./transport.ts";
export { AGREEMENT_VERSION } from "./agreement.ts";
export type * from "./wire.ts";
export { EVENT_TYPES } from "./wire.ts";
