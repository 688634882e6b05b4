/**
 * Webhook writes under parallel requests: create (the per-account cap), update, delete, rotate-secret,
 * previous-secret, test events, retry and retry-batch. No 5xx, the cap exact, one winner where only one
 * can win (delete, a rotation during grace), no orphan or duplicate rows, states that agree.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signIn, startTestServer, type SignedIn, type TestServer } from "@ir21/server/testing";
import { expectNoServerErrors, N, parallel, startConcurrencyServer, tally } from "./harness.ts";

const SUBSCRIPTION_CAP = 20;
let server: TestServer;
beforeAll(async () => {
  // Webhook URLs are vetted at save time; 127.0.0.1 is allowed here and nothing is ever delivered
  // (no worker runs in the test server).
  server = await startConcurrencyServer({ WEBHOOK_ALLOW_HOSTS: "127.0.0.1" });
});
afterAll(() => server.close());

const URL = "http://127.0.0.1:9/hook";
const db = () => server.deps.db;

async function subscribe(owner: SignedIn, on: TestServer = server) {
  return on.json("/console/webhooks", { method: "POST", headers: owner.headers, body: { url: URL, events: ["ir21.operator.updated"] } });
}

async function subscription(owner: SignedIn): Promise<string> {
  const { status, body } = await subscribe(owner);
  expect(status).toBe(200);
  return body.data.item.id;
}

/** Deliveries in a finished state, made through the test endpoint and then marked failed after one attempt. */
async function failedDeliveries(owner: SignedIn, id: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await server.json(`/console/webhooks/${id}/test`, { method: "POST", headers: owner.headers })).body.data.delivery_id);
  await db().updateTable("webhook_deliveries").set({ status: "failed", attempts: 1, next_attempt_at: null }).where("id", "in", ids).execute();
  return ids;
}

/** Deliveries, attempts and test events that belong to no subscription. */
async function orphans() {
  const subscriptions = db().selectFrom("webhook_subscriptions").select("id");
  const deliveries = await db().selectFrom("webhook_deliveries").select("id").where("subscription_id", "not in", subscriptions).execute();
  const events = await db().selectFrom("webhook_events").select("id").where("subscription_id", "is not", null).where("subscription_id", "not in", subscriptions).execute();
  // Attempts belong to a subscription's delivery or to a listen session's.
  const attempts = await db()
    .selectFrom("webhook_attempts")
    .select("id")
    .where("delivery_id", "not in", db().selectFrom("webhook_deliveries").select("id"))
    .where("delivery_id", "not in", db().selectFrom("webhook_listen_deliveries").select("id"))
    .execute();
  return { deliveries, events, attempts };
}

describe("POST /console/webhooks in parallel", () => {
  it(`${SUBSCRIPTION_CAP + 10} creates at once: exactly ${SUBSCRIPTION_CAP} subscriptions, the rest 409`, async () => {
    const owner = await signIn(server);
    const answers = await parallel(SUBSCRIPTION_CAP + 10, () => subscribe(owner));
    expectNoServerErrors(answers);
    expect(tally(answers)).toEqual({ status: { 200: SUBSCRIPTION_CAP, 409: 10 }, codes: { CONFLICT: 10 } });
    expect(await db().selectFrom("webhook_subscriptions").select("id").where("user_id", "=", owner.userId).execute()).toHaveLength(SUBSCRIPTION_CAP);
  });

  it("the cap holds across two instances of one deployment", async () => {
    const other = await startTestServer({ instanceOf: server });
    try {
      const owner = await signIn(server);
      const answers = await parallel(SUBSCRIPTION_CAP + 10, (i) => subscribe(owner, i % 2 ? other : server));
      expectNoServerErrors(answers);
      expect(tally(answers).status).toEqual({ 200: SUBSCRIPTION_CAP, 409: 10 });
      expect(await db().selectFrom("webhook_subscriptions").select("id").where("user_id", "=", owner.userId).execute()).toHaveLength(SUBSCRIPTION_CAP);
    } finally {
      await other.close();
    }
  });
});

describe("PATCH /console/webhooks/:id in parallel", () => {
  it(`${N} updates at once: every answer is a state that was asked for, and a disabled subscription has nothing pending`, async () => {
    const owner = await signIn(server);
    const id = await subscription(owner);
    for (let i = 0; i < 3; i++) await server.json(`/console/webhooks/${id}/test`, { method: "POST", headers: owner.headers });
    const lists = [["ir21.operator.updated"], ["ir21.operator.added"], ["ir21.network.added", "ir21.catalog.updated"]];
    const answers = await parallel(N, (i) =>
      server.json(`/console/webhooks/${id}`, { method: "PATCH", headers: owner.headers, body: { enabled: i % 2 === 1, events: lists[i % 3] } }),
    );
    expectNoServerErrors(answers);
    expect(tally(answers).status).toEqual({ 200: N });
    const row = await db().selectFrom("webhook_subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(lists.map((l) => JSON.stringify(l))).toContain(row.events);
    if (Number(row.enabled) === 0) {
      expect(await db().selectFrom("webhook_deliveries").select("id").where("subscription_id", "=", id).where("status", "=", "pending").execute()).toEqual([]);
    }
  });
});

describe("DELETE /console/webhooks/:id in parallel", () => {
  it(`${N} deletes at once: exactly one deletes, the others 404, nothing of it is left`, async () => {
    const owner = await signIn(server);
    const id = await subscription(owner);
    await failedDeliveries(owner, id, 3);
    const answers = await parallel(N, () => server.json(`/console/webhooks/${id}`, { method: "DELETE", headers: owner.headers }));
    expectNoServerErrors(answers);
    expect(tally(answers)).toEqual({ status: { 200: 1, 404: N - 1 }, codes: { NOT_FOUND: N - 1 } });
    expect(await orphans()).toEqual({ deliveries: [], events: [], attempts: [] });
  });

  it("a delete racing test events and retries leaves no delivery or event behind", async () => {
    const owner = await signIn(server);
    const id = await subscription(owner);
    const failed = await failedDeliveries(owner, id, 2);
    const answers = await parallel(N, (i) =>
      i === N / 2
        ? server.json(`/console/webhooks/${id}`, { method: "DELETE", headers: owner.headers })
        : i % 2
          ? server.json(`/console/webhooks/${id}/test`, { method: "POST", headers: owner.headers })
          : server.json(`/console/webhooks/${id}/deliveries/${failed[0]}/retry`, { method: "POST", headers: owner.headers }),
    );
    expectNoServerErrors(answers);
    expect(await orphans()).toEqual({ deliveries: [], events: [], attempts: [] });
  });
});

describe("rotate-secret and previous-secret in parallel", () => {
  it(`${N} rotations with a grace period at once: exactly one succeeds (one grace period at a time)`, async () => {
    const owner = await signIn(server);
    const id = await subscription(owner);
    const answers = await parallel(N, () => server.json(`/console/webhooks/${id}/rotate-secret`, { method: "POST", headers: owner.headers, body: { grace_seconds: 600 } }));
    expectNoServerErrors(answers);
    expect(tally(answers)).toEqual({ status: { 200: 1, 409: N - 1 }, codes: { CONFLICT: N - 1 } });
    const winner = answers.find((a) => a.status === 200)!.body.data.secret;
    const row = await db().selectFrom("webhook_subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(server.deps.webhooks.box.open(row.secret_sealed, id)).toBe(winner);
  });

  it(`${N} rotations without grace at once: the stored secret is the one the last successful rotation returned`, async () => {
    const owner = await signIn(server);
    const id = await subscription(owner);
    const answers = await parallel(N, () => server.json(`/console/webhooks/${id}/rotate-secret`, { method: "POST", headers: owner.headers, body: { grace_seconds: 0 } }));
    expectNoServerErrors(answers);
    const secrets = answers.filter((a) => a.status === 200).map((a) => a.body.data.secret);
    expect(secrets.length).toBeGreaterThanOrEqual(1);
    expect(new Set(secrets).size).toBe(secrets.length);
    const row = await db().selectFrom("webhook_subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(secrets).toContain(server.deps.webhooks.box.open(row.secret_sealed, id));
    expect(row.previous_secret_sealed).toBeNull();
  });

  it(`${N} previous-secret revocations at once: all answer revoked, the grace period is over`, async () => {
    const owner = await signIn(server);
    const id = await subscription(owner);
    expect((await server.json(`/console/webhooks/${id}/rotate-secret`, { method: "POST", headers: owner.headers, body: {} })).status).toBe(200);
    const answers = await parallel(N, () => server.json(`/console/webhooks/${id}/previous-secret`, { method: "DELETE", headers: owner.headers }));
    expectNoServerErrors(answers);
    expect(answers.map((a) => a.body.data?.revoked)).toEqual(Array(N).fill(true));
    const row = await db().selectFrom("webhook_subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect([row.previous_secret_sealed, row.previous_secret_expires_at]).toEqual([null, null]);
  });
});

describe("test events, retry and retry-batch in parallel", () => {
  it(`${N} test events at once: ${N} deliveries of ${N} distinct events`, async () => {
    const owner = await signIn(server);
    const id = await subscription(owner);
    const answers = await parallel(N, () => server.json(`/console/webhooks/${id}/test`, { method: "POST", headers: owner.headers }));
    expectNoServerErrors(answers);
    const deliveries = await db().selectFrom("webhook_deliveries").select(["id", "event_id"]).where("subscription_id", "=", id).execute();
    expect(deliveries).toHaveLength(N);
    expect(new Set(deliveries.map((d) => d.event_id)).size).toBe(N);
    expect(new Set(answers.map((a) => a.body.data.delivery_id))).toEqual(new Set(deliveries.map((d) => d.id)));
  });

  it(`${N} retries of one failed delivery at once: queued once — one more attempt, not ${N}`, async () => {
    const owner = await signIn(server);
    const id = await subscription(owner);
    const [delivery] = await failedDeliveries(owner, id, 1);
    const answers = await parallel(N, () => server.json(`/console/webhooks/${id}/deliveries/${delivery}/retry`, { method: "POST", headers: owner.headers }));
    expectNoServerErrors(answers);
    expect(answers.map((a) => a.body.data?.queued)).toEqual(Array(N).fill(true));
    const row = await db().selectFrom("webhook_deliveries").selectAll().where("id", "=", delivery!).executeTakeFirstOrThrow();
    expect({ status: row.status, attempts: Number(row.attempts), max_attempts: Number(row.max_attempts), manual_retry: Number(row.manual_retry) }).toEqual({
      status: "pending",
      attempts: 1,
      max_attempts: 2,
      manual_retry: 1,
    });
  });

  it(`${N} retry-batches of the same deliveries at once: each queued once`, async () => {
    const owner = await signIn(server);
    const id = await subscription(owner);
    const ids = await failedDeliveries(owner, id, 5);
    const answers = await parallel(N, () =>
      server.json(`/console/webhooks/${id}/deliveries/retry-batch`, { method: "POST", headers: owner.headers, body: { delivery_ids: ids } }),
    );
    expectNoServerErrors(answers);
    expect(answers.map((a) => a.body.data?.queued)).toEqual(Array(N).fill(5));
    const rows = await db().selectFrom("webhook_deliveries").selectAll().where("id", "in", ids).execute();
    expect(rows.map((r) => `${r.status}/${r.attempts}/${r.max_attempts}`)).toEqual(Array(5).fill("pending/1/2"));
  });
});
