/**
 * Test helpers for the server and everything built on it (`@ir21/server/testing`): the real server on
 * an ephemeral port with a fresh database (server.ts), accounts, the catalogue, webhook receivers.
 * Not part of the product: nothing under server/src imports this folder.
 */
export { startTestServer, type TestServer, type TestServerOptions } from "./server.ts";
export { ManualClock } from "../src/clock.ts";
export { createTestDatabase, testTarget, type TestTarget } from "./databases.ts";
export { captureLogs, type LogCapture } from "./log-capture.ts";
export { startPrivateRedis, type PrivateRedis } from "./private-redis.ts";
export {
  agreementOf,
  createApiKey,
  databaseText,
  ensureAccount,
  lastSmsCode,
  randomPhone,
  readOutbox,
  signIn,
  type CreatedApiKey,
  type OutboxMessage,
  type SignedIn,
} from "./accounts.ts";
export { startDataProbe, type DataProbe } from "./data-probe.ts";
// The catalogue, for tests that need versions and change events (e.g. webhook fan-out):
// importDataset(server.deps, demoDataset()), then a modified demoDataset() as version B.
export { importDataset, type ImportResult } from "../src/catalog/import/import.ts";
export { demoDataset, type MaterialisedDataset } from "../src/catalog/import/importers/demo.ts";
export { readChangesAfter, lastChangeSeq, type LoggedEvent } from "../src/catalog/changes/changes.ts";
export { startTestReceiver, type Behaviour, type ReceivedRequest, type TestReceiver } from "./webhook-receiver.ts";
/** Webhook delivery internals, for end-to-end tests and benchmarks that drive the queue themselves. */
export { DEFAULT_ENDPOINT_CONCURRENCY, DeliveryWorker, type DeliveryWorkerOptions } from "../src/webhooks/delivery/worker.ts";
export { fanOutAll, type ChangeFeed } from "../src/webhooks/fanout/fanout.ts";
export { catalogChangeFeed } from "../src/catalog/changes/feed.ts";
/** Listen sessions: what the runtime's cron runs, for tests that drive it themselves. */
export { fanOutAllToListenSessions } from "../src/webhooks/listen/fanout.ts";
export { announceListenDeliveries } from "../src/webhooks/listen/hub.ts";
export { sweepListenSessions } from "../src/webhooks/listen/sweep.ts";

export { parsePrometheusText, sampleValue, type PromFamily, type PromSample } from "./prometheus.ts";
