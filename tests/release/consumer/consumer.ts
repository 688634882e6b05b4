/**
 * A consumer of the published @ir21/sdk package. tests/release/pack.test.ts copies this file into a project
 * outside the workspace that has only the packed tarball installed, type-checks it with `tsc --strict`
 * (skipLibCheck off) and runs it against a live server. It uses every export of every entry point
 * (the test checks that too) and prints one JSON report on stdout.
 *
 * Inputs (environment): IR21_BASE_URL, IR21_PHONE, IR21_SMS_OUTBOX (the dev SMS provider's outbox, to
 * read the code), IR21_DELIVERY (a signed delivery as JSON: {headers, body, secret, now}).
 */
import { readFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import {
  AGREEMENT_VERSION,
  compareVersions,
  cookieFetch,
  DEFAULT_TIMEOUT_MS,
  createClient,
  createConsoleClient,
  EVENT_TYPES,
  EXPORT_RESOURCES,
  Ir21ApiError,
  isIr21ApiError,
  listenStream,
  listenStreamUrl,
  memoryCookieJar,
  syncChanges,
  type Access,
  type AccessOf,
  type AppRouter,
  type BatchLookupItemError,
  type CallOptions,
  type CapabilitiesQuery,
  type Capability,
  type ChangesPage,
  type ChangesQuery,
  type ClientErrorCode,
  type ConsoleClient,
  type ConsoleClientOptions,
  type ConsoleInputs,
  type ConsoleOutputs,
  type Country,
  type CountryDetail,
  type DataClient,
  type DataClientOptions,
  type DataMeta,
  type DataResult,
  type DatasetCounts,
  type DeliveryStatus,
  type DownloadOptions,
  type EnvelopeMeta,
  type ErrorBody,
  type ErrorCode,
  type EventPayload,
  type EventType,
  type ExportResource,
  type FetchLike,
  type FileDownload,
  type ImsiLookup,
  type Ir21ApiErrorInit,
  type Ir21ErrorCode,
  type Listing,
  type MemoryCookieJar,
  type Network,
  type NetworksQuery,
  type NumberLookup,
  type FieldName,
  type ImsiLookupField,
  type NumberLookupField,
  type Selected,
  type NumberRange,
  type NumberRangeCounts,
  type NumberRangesQuery,
  type Operator,
  type OperatorDetail,
  type OperatorsQuery,
  type Page,
  type PageParams,
  type Projections,
  type PublicImsiLookup,
  type PublicNetwork,
  type PublicNumberLookup,
  type PublicOperator,
  type PublicOperatorDetail,
  type RetryOptions,
  type SessionCookieJar,
  type Snapshot,
  type SnapshotResult,
  type SourceDescriptor,
  type SourceMode,
  type SyncChangesOptions,
  type SyncChangesResult,
  type User,
  type ListenDelivery,
  type ListenMessage,
  type ListenSession,
  type ListenStreamOptions,
  type WebhookAttempt,
  type WebhookAttemptResponse,
  type WebhookDelivery,
  type WebhookSubscription,
} from "@ir21/sdk";
import {
  createEventDeduplicator,
  DEFAULT_DEDUPLICATION_TTL_SECONDS,
  DEFAULT_TOLERANCE_SECONDS,
  EVENT_TYPES as WEBHOOK_EVENT_TYPES,
  isWebhookVerificationError,
  MemoryIdempotencyStore,
  STANDARD_WEBHOOK_HEADERS,
  verifyExpressRequest,
  verifyH3Event,
  verifyNodeRequest,
  verifyRequest,
  verifyWebhook,
  WEBHOOK_FAILURE_CODES,
  WEBHOOK_HEADERS,
  WebhookVerificationError,
  type DeduplicatedOutcome,
  type EventDeduplicator,
  type EventDeduplicatorOptions,
  type EventPayload as WebhookEventPayload,
  type EventType as WebhookEventType,
  type ExpressRequestLike,
  type FetchRequestLike,
  type H3EventLike,
  type IdempotencyStore,
  type MemoryIdempotencyStoreOptions,
  type NodeRequestLike,
  type VerifyRequestOptions,
  type WebhookScheme,
  type VerifyWebhookInput,
  type WebhookFailureCode,
  type WebhookHeaders,
} from "@ir21/sdk/webhooks";

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

// ---- Type-level checks: the published declarations carry real types, not `any`. ----
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameEvent: Equal<EventPayload, WebhookEventPayload> = true;
const sameEventType: Equal<EventType, WebhookEventType> = true;
const userPhone: Equal<User["phone"], string> = true;
const meUser: Equal<ConsoleOutputs["auth"]["me"]["user"], User> = true;
const loginCode: Equal<ConsoleInputs["auth"]["login"]["code"], string> = true;
const mode: SourceMode = "reference";
const meta: EnvelopeMeta = { request_id: "r", dataset_version: "v1", source_mode: mode, source_published_at: null, ingested_at: "2026-01-01T00:00:00.000Z" };
const errorCode: ErrorCode = "RATE_LIMITED";
const errorBody: ErrorBody = { code: errorCode, message: "m", request_id: meta.request_id };
const clientCode: ClientErrorCode = "NETWORK_ERROR";
const anyCode: Ir21ErrorCode = "A_FUTURE_CODE";
const failureCode: WebhookFailureCode = "SIGNATURE_MISMATCH";
const init: Ir21ApiErrorInit = { status: 429, code: errorBody.code, message: errorBody.message, requestId: errorBody.request_id, retryAfter: 3 };
// The data client's type follows its credentials: full fields with a key, the public subset without.
type KeyOptions = { baseUrl: string; apiKey: string };
const fullAccess: Equal<AccessOf<KeyOptions>, "full"> = true;
const publicAccess: Equal<AccessOf<{ baseUrl: string }>, "public"> = true;
const fullLookup: Equal<Projections["full"]["numberLookup"], NumberLookup> = true;
const publicLookup: Equal<Projections["public"]["numberLookup"], PublicNumberLookup> = true;
const publicImsi: Equal<Projections["public"]["imsiLookup"], PublicImsiLookup> = true;
const fullImsi: Equal<Projections["full"]["imsiLookup"], ImsiLookup> = true;
const publicOperator: Equal<Projections["public"]["operator"], PublicOperator> = true;
const fullOperator: Equal<Projections["full"]["operator"], Operator> = true;
const publicDetail: Equal<Projections["public"]["operatorDetail"], PublicOperatorDetail> = true;
const fullDetail: Equal<Projections["full"]["operatorDetail"], OperatorDetail> = true;
const publicNetwork: Equal<Projections["public"]["network"], PublicNetwork> = true;
const fullNetwork: Equal<Projections["full"]["network"], Network> = true;
const rangeCounts: Equal<OperatorDetail["number_range_counts"], NumberRangeCounts> = true;
const metaCounts: Equal<DataMeta["counts"], DatasetCounts> = true;
const metaSources: Equal<DataMeta["sources"], SourceDescriptor[]> = true;
const snapshotRanges: Equal<Snapshot["number_ranges"], NumberRange[]> = true;
const snapshotCountries: Equal<Snapshot["countries"], Country[]> = true;
const capabilityValue: Equal<Capability["value"], unknown> = true;
const batchError: Equal<BatchLookupItemError["error"], { code: string; message: string }> = true;
const kinds: NumberRangesQuery["kind"][] = ["mobile", "fixed", "other"];
// @ts-expect-error: public lookups have no range
const noRange = (l: PublicNumberLookup) => l.range;
// @ts-expect-error: not an export resource
const wrongResource: ExportResource = "users";
void [kinds, noRange, wrongResource];
const typeChecks = [
  sameEvent, sameEventType, userPhone, meUser, loginCode, clientCode, anyCode, failureCode, fullAccess, publicAccess, fullLookup, publicLookup,
  publicImsi, fullImsi, publicOperator, fullOperator, publicDetail, fullDetail, publicNetwork, fullNetwork, rangeCounts, metaCounts, metaSources,
  snapshotRanges, snapshotCountries, capabilityValue, batchError,
];
// @ts-expect-error: not a contract error code
const wrongCode: ErrorCode = "NO_SUCH_CODE";
// @ts-expect-error: not an event type
const wrongType: EventType = "ir21.nothing.happened";
// @ts-expect-error: AppRouter is a router type, not a value
const routerValue: AppRouter = {};
void [wrongCode, wrongType, routerValue];

async function consoleFlow() {
  const baseUrl = env("IR21_BASE_URL");
  const phone = env("IR21_PHONE");
  // A jar like a CLI's config file: it records what the server sets.
  const saved: Array<{ cookie: string | null; expiresAt: string | null }> = [];
  const memory: MemoryCookieJar = memoryCookieJar();
  const jar: SessionCookieJar = {
    get: () => memory.get(),
    set: (cookie, details) => {
      saved.push({ cookie, expiresAt: details?.expiresAt ?? null });
      memory.set(cookie);
    },
  };
  const retry: RetryOptions = { maxAttempts: 2, maxTotalWaitMs: 2_000 };
  const fetchLike: FetchLike = (input, requestInit) => fetch(input, requestInit);
  const options: ConsoleClientOptions = { baseUrl, retry, fetch: fetchLike, cookies: jar, headers: { "user-agent": "ir21-consumer/1" } };
  const ir21: ConsoleClient = createConsoleClient(options);
  const agreement = { agreed: true as const, terms_version: AGREEMENT_VERSION, privacy_version: AGREEMENT_VERSION };

  // @ts-expect-error: login needs challenge_id and code
  void (() => ir21.auth.login.mutate({ phone, ...agreement }));

  const sent = await ir21.auth.sendCode.mutate({ phone, ...agreement });
  const outbox = readFileSync(env("IR21_SMS_OUTBOX"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { phone: string; code: string });
  const code = outbox.filter((m) => m.phone === `+86${phone}`).at(-1)!.code;
  const login = await ir21.auth.login.mutate({ phone, challenge_id: sent.challenge_id, code, ...agreement });
  const session = memory.get();
  const later = createConsoleClient({ baseUrl, cookies: memoryCookieJar(session) });
  const me = await later.auth.me.query();
  const createdAt: string = me.user.created_at;
  const { key, item } = await later.console.apiKeys.create.mutate({ name: "consumer" });
  const keys: ConsoleOutputs["console"]["apiKeys"]["list"]["items"] = (await later.console.apiKeys.list.query()).items;
  const usage = await later.console.usage.query();
  const webhook = await deliveryFlow(later);
  const listen = await listenFlow(later, session);
  // The plain fetch wrapper, for calls outside the typed client: the same session.
  const raw = await cookieFetch(fetch, memoryCookieJar(session))(`${baseUrl}/auth/me`);
  await later.auth.logout.mutate();
  const afterLogout = await ir21.auth.me.query().catch((error: unknown) => error);
  const apiError = isIr21ApiError(afterLogout, "UNAUTHORIZED") ? afterLogout : null;
  const constructed = new Ir21ApiError(init);
  return {
    created: login.created,
    sameUser: me.user.id === login.user.id,
    createdAt,
    sessionSaved: saved.length === 1 && saved[0]?.cookie === session && typeof saved[0]?.expiresAt === "string",
    keyShownOnce: key.startsWith(item.prefix) && keys.length === 1 && !JSON.stringify(keys).includes(key),
    quota: typeof usage.quota === "number",
    rawStatus: raw.status,
    webhook,
    listen,
    afterLogout: apiError && { name: apiError.name, status: apiError.status, code: apiError.code, hasRequestId: typeof apiError.requestId === "string", instance: apiError instanceof Ir21ApiError },
    constructed: { code: constructed.code, retryAfter: constructed.retryAfter },
    apiKey: key,
  };
}

/**
 * A real delivery: a subscription to a receiver in this process, a test event sent by the server's
 * worker (the test runs one), verified with the SDK; then the delivery as the console reports it.
 */
async function deliveryFlow(ir21: ConsoleClient) {
  const secrets: string[] = [];
  let resolveDelivered!: (event: EventPayload) => void;
  const delivered = new Promise<EventPayload>((resolve) => (resolveDelivered = resolve));
  const receiver = createServer(async (req, res) => {
    try {
      const event = await verifyNodeRequest(req, { secrets });
      res.writeHead(204).end();
      resolveDelivered(event);
    } catch (error) {
      res.writeHead(isWebhookVerificationError(error) ? 400 : 500).end();
    }
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ir21`;
    const created = await ir21.webhooks.create.mutate({ url, events: ["ir21.catalog.updated"] });
    const subscription: WebhookSubscription = created.item;
    secrets.push(created.secret);
    const { delivery_id } = await ir21.webhooks.sendTest.mutate({ id: subscription.id });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("no delivery within 60 s")), 60_000)));
    const event = await Promise.race([delivered, timeout]).finally(() => clearTimeout(timer));
    const status: DeliveryStatus = "delivered";
    let delivery: WebhookDelivery | undefined;
    let attempts: WebhookAttempt[] = [];
    // The worker records the attempt just after the receiver answered.
    for (let i = 0; i < 100 && delivery?.status !== status; i++) {
      const detail = await ir21.webhooks.getDelivery.query({ id: subscription.id, deliveryId: delivery_id });
      delivery = detail.item;
      attempts = detail.attempts;
      if (delivery.status !== status) await new Promise((r) => setTimeout(r, 100));
    }
    return { test: event.test, sameEvent: delivery?.event_id === event.id, status: delivery?.status, attempts: attempts.map((a) => a.response_status) };
  } finally {
    receiver.close();
  }
}

/**
 * A listen session (`ir21 listen` without the CLI): open the stream with the session's cookie, trigger
 * a test event, verify the delivery with the printed secret, report an answer, read it back.
 */
async function listenFlow(ir21: ConsoleClient, session: string | null) {
  const abort = new AbortController();
  const options: ListenStreamOptions = { baseUrl: env("IR21_BASE_URL"), cookies: memoryCookieJar(session), events: ["ir21.operator.updated"], forwardTo: "http://localhost:3000/hook", signal: abort.signal };
  const url = listenStreamUrl(options);
  let secret: string | null = null;
  let sessionInfo: ListenSession | null = null;
  let delivery: ListenDelivery | null = null;
  for await (const message of listenStream(options) as AsyncGenerator<ListenMessage>) {
    if (message.type === "ready") {
      secret = message.secret;
      sessionInfo = message.session;
      await ir21.webhooks.listen.trigger.mutate({ event_type: "ir21.operator.updated" });
    } else if (message.type === "delivery") {
      delivery = message.delivery;
      break;
    }
  }
  abort.abort();
  const event = await verifyWebhook({ rawBody: delivery!.body, headers: delivery!.headers, secrets: secret!, toleranceSeconds: 10 * 365 * 86_400 });
  await ir21.webhooks.listen.report.mutate({ id: sessionInfo!.id, deliveryId: delivery!.delivery_id, status: 200, duration_ms: 7, headers: { "x-from": "consumer" }, body: "ok" });
  const detail = await ir21.webhooks.listen.getDelivery.query({ id: sessionInfo!.id, deliveryId: delivery!.delivery_id });
  const answer: WebhookAttemptResponse | null = detail.attempts[0]!.response;
  return { url: url.includes("/console/listen-sessions/stream?"), type: event.type, test: event.test, status: detail.item.status, answer };
}

async function dataFlow(apiKey: string) {
  const baseUrl = env("IR21_BASE_URL");
  const options = { baseUrl, apiKey, retry: { maxAttempts: 2 }, timeoutMs: DEFAULT_TIMEOUT_MS / 2 } satisfies DataClientOptions;
  const ir21: DataClient<"full"> = createClient(options);
  const call: CallOptions = { signal: AbortSignal.timeout(30_000), timeoutMs: DEFAULT_TIMEOUT_MS };
  const meta: DataResult<DataMeta> = await ir21.meta(call);
  const envelope: EnvelopeMeta = meta.meta;
  const lookup = await ir21.lookup("+8613912345678");
  const national = await ir21.lookup("13012345678", { country: "CN" });
  const imsi = await ir21.lookupImsi("460110123456789");
  // fields=: the answer typed from the names asked (docs/api.md "Lookup fields").
  const asked = ["number", "number_type", "operator.id"] as const satisfies readonly NumberLookupField[];
  const small: Selected<NumberLookup, (typeof asked)[number]> = (await ir21.lookup("+8613912345678", { fields: asked })).data;
  const deeper: FieldName<NumberLookup> = "range.prefix";
  const imsiAsked: ImsiLookupField = "mcc";
  const smallImsi = (await ir21.lookupImsi("460110123456789", { fields: [imsiAsked] })).data;
  const batch = await ir21.lookupBatch(["+8613812345678", "nope"]);
  const countries = await ir21.countries.list();
  const chinaDetail: CountryDetail = (await ir21.countries.get("CN")).data;
  const china: Country = chinaDetail;
  const operatorsQuery: OperatorsQuery = { country: "CN", limit: 2 };
  const operatorPage: DataResult<Page<Operator>> = await ir21.operators.list(operatorsQuery);
  const operatorIds: string[] = [];
  const listing: Listing<OperatorsQuery, Operator> = ir21.operators;
  for await (const operator of listing.iterate({ limit: 1 })) operatorIds.push(operator.id);
  const detail = await ir21.operators.get("cn.china-mobile");
  const networksQuery: NetworksQuery = { mcc: "460" };
  const networks = await ir21.networks.list(networksQuery);
  const network = await ir21.networks.get("460-00");
  const networkCount = await countOf(ir21.networks.iterate({ limit: 2 }));
  const rangesQuery: NumberRangesQuery = { prefix: "8613", plan: "e164" };
  const ranges = await ir21.numberRanges.list(rangesQuery);
  const range = await ir21.numberRanges.get("e164-86139");
  const rangeCount = await countOf(ir21.numberRanges.iterate({ limit: 3 }));
  const capabilitiesQuery: CapabilitiesQuery = { country: "CN" };
  const capabilities = await ir21.capabilities.list(capabilitiesQuery);
  const capabilityCount = await countOf(ir21.capabilities.iterate({ limit: 2 }));
  const pageParams: PageParams = { limit: 1 };
  const changesQuery: ChangesQuery = { since: "none", ...pageParams };
  const changesPage: DataResult<ChangesPage> = await ir21.changes.list(changesQuery);
  const changeCount = await countOf(ir21.changes.iterate({ since: "none" }));

  let progressBytes = 0;
  const downloadOptions: DownloadOptions = { onProgress: ({ bytes }) => (progressBytes = bytes) };
  const resource: ExportResource = EXPORT_RESOURCES[1];
  const csv: FileDownload = await ir21.exportCsv(resource, downloadOptions);
  const csvText = csv.notModified ? "" : await new Response(csv.body).text();
  const csvAgain = await ir21.exportCsv(resource, { ifNoneMatch: csv.etag ?? undefined });
  const snapshot: SnapshotResult = await ir21.snapshot();
  const snapshotVersion = snapshot.notModified ? null : snapshot.data.dataset_version;
  const snapshotAgain = await ir21.snapshot({ ifNoneMatch: snapshot.etag ?? undefined });
  const snapshotFile = await ir21.downloadSnapshot();
  const snapshotBytes = snapshotFile.notModified ? 0 : (await new Response(snapshotFile.body).arrayBuffer()).byteLength;

  const applied: EventType[] = [];
  const syncOptions: SyncChangesOptions = {
    client: ir21,
    since: "none",
    onEvent: (event) => void applied.push(event.type),
    onReset: async () => {
      const reloaded = await ir21.snapshot();
      return reloaded.notModified ? undefined : reloaded.data.dataset_version;
    },
  };
  const synced: SyncChangesResult = await syncChanges(syncOptions);

  const anonymous: DataClient<Access> = createClient({ baseUrl });
  const refused = await anonymous.numberRanges.list().catch((error: unknown) => (isIr21ApiError(error) ? error.code : "other"));
  const publicLookup = (await createClient({ baseUrl }).lookup("+8613912345678")).data;
  return {
    version: meta.data.dataset_version === envelope.dataset_version,
    lookup: [lookup.data.range_holder, lookup.data.range?.id, national.data.operator?.id, imsi.data.network?.id],
    fields: [Object.keys(small).sort().join(","), Object.keys(small.operator ?? {}).join(","), deeper, Object.keys(smallImsi).join(",")],
    batch: batch.data.items.map((item) => ("error" in item ? item.error.code : item.range_holder)),
    countries: [countries.data.items.length, china.name_zh, chinaDetail.operators.map((o) => o.id)],
    operators: [operatorPage.data.items.length, operatorPage.data.next_cursor !== null, operatorIds.length, detail.data.networks.length],
    networks: [networks.data.items.length, network.data.id, networkCount],
    ranges: [ranges.data.items.length, range.data.range_holder, rangeCount],
    capabilities: [capabilities.data.items.length, capabilityCount],
    changes: [changesPage.data.items.length, changeCount, changesPage.data.current_version === meta.data.dataset_version],
    csv: [csv.notModified ? null : csv.filename, csvText.split("\r\n")[0], progressBytes > 0, csvAgain.notModified],
    snapshot: [snapshotVersion === meta.data.dataset_version, snapshotAgain.notModified, snapshotBytes > 0],
    sync: { version: synced.version === meta.data.dataset_version, resets: synced.resets, applied: applied.length, ordered: compareVersions("none", synced.version) < 0 },
    anonymous: [refused, Object.keys(publicLookup).sort().join(",")],
  };
}

async function countOf(items: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _item of items) n++;
  return n;
}

async function webhookFlow() {
  const delivery = JSON.parse(env("IR21_DELIVERY")) as { headers: Record<string, string>; body: string; secret: string; now: number };
  const now = new Date(delivery.now * 1000);
  const options: VerifyRequestOptions = { secrets: [delivery.secret], toleranceSeconds: DEFAULT_TOLERANCE_SECONDS, now: () => now, maxBodyBytes: 65_536 };
  const headers: WebhookHeaders = delivery.headers;
  const input: VerifyWebhookInput = { rawBody: delivery.body, headers, secrets: options.secrets, now };
  const event: EventPayload = await verifyWebhook(input);

  const fetchRequest: FetchRequestLike = new Request("http://receiver.local/", { method: "POST", headers: delivery.headers, body: delivery.body });
  const viaRequest = await verifyRequest(fetchRequest, options);
  const h3Event: H3EventLike = { req: new Request("http://receiver.local/", { method: "POST", headers: delivery.headers, body: delivery.body }) };
  const viaH3 = await verifyH3Event(h3Event, options);
  const expressRequest: ExpressRequestLike = { headers: delivery.headers, body: Buffer.from(delivery.body) };
  const viaExpress = await verifyExpressRequest(expressRequest, options);
  // The same delivery by its Standard Webhooks headers alone (the same secret).
  const scheme: WebhookScheme = "standard";
  const sent = new Set(Object.keys(delivery.headers).map((name) => name.toLowerCase()));
  const standardSent = Object.values(STANDARD_WEBHOOK_HEADERS).every((name) => sent.has(name));
  const viaStandard = await verifyWebhook({ ...input, scheme });

  // A real node:http receiver, deduplicating on the event id.
  const store: IdempotencyStore = new MemoryIdempotencyStore({ maxEntries: 100 } satisfies MemoryIdempotencyStoreOptions);
  const dedupeOptions: EventDeduplicatorOptions = { store, ttlSeconds: DEFAULT_DEDUPLICATION_TTL_SECONDS };
  const dedupe: EventDeduplicator = createEventDeduplicator(dedupeOptions);
  const server = createServer(async (req, res) => {
    try {
      const nodeRequest: NodeRequestLike = req;
      const verified = await verifyNodeRequest(nodeRequest, options);
      const outcome: DeduplicatedOutcome<string> = await dedupe.run(verified, () => verified.type);
      res.writeHead(200).end(outcome.duplicate ? "duplicate" : outcome.result);
    } catch (error) {
      res.writeHead(isWebhookVerificationError(error) ? 400 : 500).end(error instanceof WebhookVerificationError ? error.code : "error");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const post = (body: string) =>
    new Promise<string>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, method: "POST", headers: delivery.headers }, (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve(`${res.statusCode} ${text}`));
      });
      req.on("error", reject);
      req.end(body);
    });
  const answers = [await post(delivery.body), await post(delivery.body), await post(`${delivery.body} `)];
  server.close();

  const tampered = await verifyWebhook({ ...input, rawBody: delivery.body.replace("}", ',"x":1}') }).catch((error: unknown) => error);
  return {
    eventId: event.id,
    eventType: event.type,
    knownType: WEBHOOK_EVENT_TYPES.includes(event.type) && EVENT_TYPES.length === WEBHOOK_EVENT_TYPES.length,
    sameEverywhere: standardSent && [viaRequest, viaH3, viaExpress, viaStandard].every((e) => e.id === event.id),
    answers,
    tampered: isWebhookVerificationError(tampered) ? tampered.code : null,
    failureCodes: [...WEBHOOK_FAILURE_CODES],
    signatureHeader: WEBHOOK_HEADERS.signature,
  };
}

const { apiKey, ...consoleReport } = await consoleFlow();
const report = { typeChecks: typeChecks.every(Boolean), console: consoleReport, data: await dataFlow(apiKey), webhooks: await webhookFlow() };
process.stdout.write(JSON.stringify(report));
