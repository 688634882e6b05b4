import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../contract/events.ts";
import { createApiKey, DeliveryWorker, ensureAccount, demoDataset, fanOutAll, importDataset, signIn, startTestReceiver, startTestServer, type TestReceiver, type TestServer } from "../../../testing/index.ts";
import { catalogChangeFeed } from "./feed.ts";
import { createSubscription } from "../../webhooks/subscriptions/subscriptions.ts";
import { pruneExpiredChanges } from "../jobs.ts";
import { changeLogReader } from "../../app/background.ts";
import { catalogSettings } from "../settings.ts";

const DAY = 24 * 3600_000;
let server: TestServer;
let receiver: TestReceiver;
let key: { "x-api-key": string };
const versions: { version: string; seq: number }[] = [];
const settings = catalogSettings({}); // the default window: 90 days

/** A demo dataset with one more number range per step, so every import creates a version. */
function step(n: number) {
  const dataset = demoDataset();
  for (let i = 1; i <= n; i++) dataset.numberRanges.push({ ...dataset.numberRanges[0]!, id: `e164-8619${i}`, prefix: `8619${i}` });
  return dataset;
}
const importStep = async (n: number) => {
  const result = await importDataset(server.deps, step(n));
  const row = await server.deps.db.selectFrom("dataset_versions").select("seq").where("version", "=", result.version).executeTakeFirstOrThrow();
  versions.push({ version: result.version, seq: Number(row.seq) });
};

beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  receiver = await startTestReceiver();
  key = (await createApiKey(server, await signIn(server))).headers;
  const env = server.deps.webhooks;
  await ensureAccount(server, "usr_retention00000000000");
  await createSubscription(env, "usr_retention00000000000", { url: `${receiver.url}/hook`, events: [...EVENT_TYPES] });
  // v1..v3 a day apart, fanned out into deliveries that stay queued (no worker yet); v4 and v5 are
  // committed but the fan-out has not read them.
  for (const n of [0, 1, 2]) {
    await importStep(n);
    server.clock.advance(DAY);
  }
  await fanOutAll(env, catalogChangeFeed);
  await importStep(3);
  server.clock.advance(3600_000);
  await importStep(4);
});
afterAll(async () => {
  await receiver.close();
  await server.close();
});

const changes = (since: string) => server.json(`/v1/changes?since=${since}`, { headers: key });
const ingestedAt = async (i: number) =>
  Number((await server.deps.db.selectFrom("dataset_versions").select("ingested_at").where("seq", "=", versions[i]!.seq).executeTakeFirstOrThrow()).ingested_at);
const loggedVersions = async () =>
  (await server.deps.db.selectFrom("catalog_changes").select("version_seq").distinct().orderBy("version_seq").execute()).map((r) => Number(r.version_seq));

describe("change-log retention", () => {
  it("keeps everything inside the window, to the millisecond", async () => {
    expect(await pruneExpiredChanges({ ...server.deps, settings }, changeLogReader(server.deps))).toEqual({ versions: 0, events: 0 });
    // v1's events expire 90 days after v2 superseded it: not at that instant, one millisecond later.
    server.clock.set((await ingestedAt(1)) + 90 * DAY);
    expect(await pruneExpiredChanges({ ...server.deps, settings }, changeLogReader(server.deps))).toEqual({ versions: 0, events: 0 });
    expect((await changes("none")).status).toBe(200);
    server.clock.advance(1);
    expect(await pruneExpiredChanges({ ...server.deps, settings }, changeLogReader(server.deps))).toMatchObject({ versions: 1 });
    expect(await loggedVersions()).toEqual(versions.slice(1).map((v) => v.seq));
  });

  it("answers a since older than the window with 400 UNKNOWN_DATASET_VERSION; the pruned version itself still works", async () => {
    const none = await changes("none");
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ code: "UNKNOWN_DATASET_VERSION", message: expect.stringContaining("no longer kept"), request_id: expect.any(String) });
    expect(none.body.message).toContain(versions[0]!.version); // names the oldest since still served
    const fromV1 = await changes(versions[0]!.version);
    expect(fromV1.status).toBe(200);
    expect(fromV1.body.data.items.map((e: { dataset_version: string }) => e.dataset_version)).toEqual(versions.slice(1).map((v) => v.version));
    // An unknown version stays the same 400 with its own message.
    const unknown = await changes("2020-01-01.000999");
    expect(unknown.body).toMatchObject({ code: "UNKNOWN_DATASET_VERSION", message: expect.stringContaining("no dataset version") });
  });

  it("never prunes the current version or events the webhook fan-out has not read", async () => {
    server.clock.set((await ingestedAt(4)) + 365 * DAY);
    const pruned = await pruneExpiredChanges({ ...server.deps, settings }, changeLogReader(server.deps));
    expect(pruned.versions).toBe(2); // v2, v3; v4 is unread by the fan-out, v5 is current
    expect(await loggedVersions()).toEqual([versions[3]!.seq, versions[4]!.seq]);
    const fromV2 = await changes(versions[1]!.version);
    expect(fromV2.body).toMatchObject({ code: "UNKNOWN_DATASET_VERSION", message: expect.stringContaining(`oldest since still served is "${versions[2]!.version}"`) });
    expect((await changes(versions[0]!.version)).status).toBe(400);
    const fromV3 = await changes(versions[2]!.version);
    expect(fromV3.status).toBe(200);
    expect(fromV3.body.data.items.map((e: { dataset_version: string }) => e.dataset_version)).toEqual([versions[3]!.version, versions[4]!.version]);
    // Versions themselves are kept: meta and the version list are untouched.
    expect(await server.deps.db.selectFrom("dataset_versions").select("seq").execute()).toHaveLength(5);
  });

  it("queued deliveries of pruned events are still delivered: they carry their own copy", async () => {
    const env = server.deps.webhooks;
    await fanOutAll(env, catalogChangeFeed); // now v4 and v5 become deliveries too
    const queued = await server.deps.db.selectFrom("webhook_deliveries").select("event_id").where("status", "=", "pending").execute();
    expect(await new DeliveryWorker(env, { owner: "retention-test" }).drain()).toBe(queued.length);
    const delivered = receiver.requests.map((r) => JSON.parse(r.body) as { dataset_version: string });
    expect(new Set(delivered.map((e) => e.dataset_version))).toEqual(new Set(versions.map((v) => v.version)));

    // With the fan-out past v4, the next pass prunes it; v5 (current) stays.
    expect(await pruneExpiredChanges({ ...server.deps, settings }, changeLogReader(server.deps))).toMatchObject({ versions: 1 });
    expect(await loggedVersions()).toEqual([versions[4]!.seq]);
    expect((await changes(versions[3]!.version)).status).toBe(200);
    expect((await changes(versions[2]!.version)).status).toBe(400);
    expect((await changes(versions[4]!.version)).body.data.items).toEqual([]);
  });
});
