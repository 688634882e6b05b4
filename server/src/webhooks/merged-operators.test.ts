/**
 * A merged near-duplicate's operator id (operator-lineage.ts OPERATOR_MERGES) as a filter, end to end
 * through the server (docs/webhooks.md "Merged operator ids"): webhook subscriptions, test events,
 * listen sessions and /v1/changes written with the old id receive the survivor's events. Expected
 * values are written by hand from the merge table: es.xfera-moviles-s-a-u was merged into
 * es.xfera-moviles.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventPayload } from "../contract/events.ts";
import { catalogChangeFeed, createApiKey, demoDataset, DeliveryWorker, fanOutAll, fanOutAllToListenSessions, importDataset, signIn, startTestReceiver, startTestServer, type MaterialisedDataset, type SignedIn, type TestReceiver, type TestServer } from "../../testing/index.ts";
import { ir21Headers, signatureMatches } from "../../testing/webhooks.ts";

const OLD_ID = "es.xfera-moviles-s-a-u";
const SURVIVOR = "es.xfera-moviles";

type Operator = MaterialisedDataset["operators"][number];
const spanish = (id: string, name: string): Operator => ({
  id,
  country_iso2: "ES",
  name,
  name_local: null,
  brand: "Yoigo",
  tadig: null,
  status: "active",
  successor_id: null,
  lineage: null,
  listed: true,
  territories: ["ES"],
  register_ids: [],
  source: "demo",
});

/** The demo catalogue with the survivor (and, before the merge, the duplicate) added. */
function catalogue(options: { duplicate: boolean; brand: string }): MaterialisedDataset {
  const dataset = demoDataset();
  dataset.operators.push({ ...spanish(SURVIVOR, "Xfera Moviles SA"), brand: options.brand });
  if (options.duplicate) dataset.operators.push(spanish(OLD_ID, "Xfera Moviles S.A.U."));
  return dataset;
}

let server: TestServer;
let receiver: TestReceiver;
let alice: SignedIn;
let key: { "x-api-key": string };
const versions: string[] = [];

const nextImport = async (dataset: MaterialisedDataset) => {
  server.clock.advance(60_000);
  const result = await importDataset(server.deps, dataset);
  expect(result.created).toBe(true);
  versions.push(result.version);
};

beforeAll(async () => {
  server = await startTestServer({ dataset: "demo", env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  receiver = await startTestReceiver();
  alice = await signIn(server);
  key = (await createApiKey(server, alice)).headers;
  // versions[0]: both records (before the merge); versions[1]: the duplicate folded into the survivor.
  await nextImport(catalogue({ duplicate: true, brand: "Yoigo" }));
  await nextImport(catalogue({ duplicate: false, brand: "Yoigo" }));
  // What was imported so far is behind the fan-out cursor before anyone subscribes (as in production).
  await fanOutAll(server.deps.webhooks, catalogChangeFeed);
}, 60_000);
afterAll(async () => {
  await receiver.close();
  await server.close();
});

describe("a filter on a merged operator id follows the surviving record", () => {
  it("/v1/changes?operator=<old id> lists the duplicate's own events and then the survivor's; the survivor's id does not bring the duplicate's", async () => {
    await nextImport(catalogue({ duplicate: false, brand: "Yoigo 5G" }));
    const changes = async (query: string) => {
      const res = await server.json(`/v1/changes?since=${versions[0]}&${query}`, { headers: key });
      expect(res.status).toBe(200);
      return res.body.data.items.map((e: EventPayload) => `${e.dataset_version} ${e.type} ${e.operator_id}`);
    };
    expect(await changes(`operator=${OLD_ID}`)).toEqual([`${versions[1]} ir21.operator.removed ${OLD_ID}`, `${versions[2]} ir21.operator.updated ${SURVIVOR}`]);
    expect(await changes(`operator=${SURVIVOR}`)).toEqual([`${versions[2]} ir21.operator.updated ${SURVIVOR}`]);
    expect(await changes(`operator=gb.ee,${OLD_ID}&types=ir21.operator.updated`)).toEqual([`${versions[2]} ir21.operator.updated ${SURVIVOR}`]);
    expect(await changes("operator=gb.ee")).toEqual([]);
    // This import is behind the fan-out cursor before the next test subscribes.
    await fanOutAll(server.deps.webhooks, catalogChangeFeed);
  });

  it("subscriptions created in parallel with the old id keep it as written and receive the survivor's events; a test event is the survivor's", async () => {
    const subscribe = (operators: string[]) => server.json("/console/webhooks", { method: "POST", headers: alice.headers, body: { url: `${receiver.url}/hook`, events: ["ir21.operator.updated"], operators } });
    const answers = await Promise.all([...Array.from({ length: 6 }, () => subscribe([OLD_ID])), subscribe(["gb.ee"])]);
    for (const answer of answers) expect(answer.status).toBe(200);
    const onOldId = answers.slice(0, 6).map((a) => a.body.data as { item: { id: string; operators: string[] }; secret: string });
    const control = answers[6]!.body.data as { item: { id: string }; secret: string };
    for (const { item } of onOldId) expect(item.operators).toEqual([OLD_ID]);
    expect(new Set(onOldId.map((s) => s.item.id)).size).toBe(6);
    const listed = (await server.json("/console/webhooks", { headers: alice.headers })).body.data.items as { operators: string[] }[];
    expect(listed.filter((s) => s.operators[0] === OLD_ID)).toHaveLength(6);

    await nextImport(catalogue({ duplicate: false, brand: "Yoigo (MásMóvil)" }));
    const env = server.deps.webhooks;
    expect((await fanOutAll(env, catalogChangeFeed)).deliveries).toBe(6);
    await new DeliveryWorker(env).drain();
    const received = receiver.requests.map((r) => ({ ...ir21Headers(r.headers), body: r.body }));
    for (const { secret } of onOldId) {
      const mine = received.filter((r) => signatureMatches(r.signature, r.timestamp, r.body, secret));
      expect(mine).toHaveLength(1);
      expect(JSON.parse(mine[0]!.body)).toMatchObject({ type: "ir21.operator.updated", operator_id: SURVIVOR, country_iso2: "ES", dataset_version: versions[3], data: { after: { brand: "Yoigo (MásMóvil)" } } });
    }
    expect(received.filter((r) => signatureMatches(r.signature, r.timestamp, r.body, control.secret))).toEqual([]);

    // A sample of a chosen type comes from the record the filter receives events of: the survivor.
    const tested = await server.json(`/console/webhooks/${onOldId[0]!.item.id}/test`, { method: "POST", headers: alice.headers, body: { event_type: "ir21.operator.updated" } });
    expect(tested.status).toBe(200);
    const delivery = await server.json(`/console/webhooks/${onOldId[0]!.item.id}/deliveries/${tested.body.data.delivery_id}`, { headers: alice.headers });
    expect(delivery.body.data.event).toMatchObject({ test: true, operator_id: SURVIVOR, data: { after: { id: SURVIVOR } } });
    // The bodiless test event names the survivor too, as a real event for this filter would.
    const bodiless = await server.json(`/console/webhooks/${onOldId[1]!.item.id}/test`, { method: "POST", headers: alice.headers });
    const summary = await server.json(`/console/webhooks/${onOldId[1]!.item.id}/deliveries/${bodiless.body.data.delivery_id}`, { headers: alice.headers });
    expect(summary.body.data.event).toMatchObject({ test: true, operator_id: SURVIVOR });
  });

  it("a listen session opened with the old id receives the survivor's events", async () => {
    const abort = new AbortController();
    const stream = await server.fetch(`/console/listen-sessions/stream?events=ir21.operator.updated&operators=${OLD_ID}`, {
      headers: { cookie: alice.cookie, accept: "text/event-stream" },
      signal: abort.signal,
    });
    try {
      expect(stream.status).toBe(200);
      const sessions = (await server.json("/console/listen-sessions", { headers: alice.headers })).body.data.items as { id: string; status: string; operators: string[] }[];
      const session = sessions.find((s) => s.status === "open")!;
      expect(session.operators).toEqual([OLD_ID]);
      await nextImport(catalogue({ duplicate: false, brand: "Yoigo!" }));
      expect((await fanOutAllToListenSessions(server.deps.webhooks, catalogChangeFeed)).deliveries).toBe(1);
      const deliveries = await server.json(`/console/listen-sessions/${session.id}/deliveries`, { headers: alice.headers });
      expect(deliveries.body.data.items).toHaveLength(1);
      const detail = await server.json(`/console/listen-sessions/${session.id}/deliveries/${deliveries.body.data.items[0].id}`, { headers: alice.headers });
      expect(detail.body.data.event).toMatchObject({ type: "ir21.operator.updated", operator_id: SURVIVOR, test: false, data: { after: { brand: "Yoigo!" } } });
    } finally {
      abort.abort();
    }
  });
});
