import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { EventPayload, EventType } from "../../contract/events.ts";
import type { Db } from "../../db/db.ts";
import { newId } from "../../ids.ts";
import { ensureAccount, startTestServer, type TestServer } from "../../../testing/index.ts";
import { type WebhookEnv } from "../env.ts";
import { fanOutAll, fanOutOnce, type ChangeFeed } from "./fanout.ts";
import { createSubscription, updateSubscription } from "../subscriptions/subscriptions.ts";

let server: TestServer;
let env: WebhookEnv;
const user = "usr_fanout00000000000000";
const other = "usr_fanout11111111111111";

/** An in-memory change log; `poison` makes the fan-out transaction fail at its last statement, like a crash. */
function memoryFeed(name: string) {
  const log: Array<{ seq: number; event: EventPayload }> = [];
  const feed: ChangeFeed & { add(type: EventType, country?: string, operator?: string): string; poison: boolean } = {
    name,
    poison: false,
    async readAfter(_db: Db, afterSeq: number, limit: number) {
      const rows = log.filter((r) => r.seq > afterSeq).slice(0, limit);
      // A poisoned batch ends with a sequence the cursor column refuses, so the transaction fails at its
      // very end, after every delivery was written.
      return feed.poison ? rows.map((r, i) => (i === rows.length - 1 ? { ...r, seq: null as unknown as number } : r)) : rows;
    },
    add(type, country = "CN", operator = "op_cn_46000") {
      const id = newId("evt");
      log.push({
        seq: log.length + 1,
        event: { id, type, occurred_at: "2026-11-23T04:00:00.000Z", effective_at: null, dataset_version: "v2", previous_version: "v1", country_iso2: country, operator_id: operator, data: {}, test: false },
      });
      return id;
    },
  };
  return feed;
}

beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  env = server.deps.webhooks;
  await ensureAccount(server, user);
  await ensureAccount(server, other);
});
afterAll(() => server.close());
beforeEach(async () => {
  await server.deps.db.deleteFrom("webhook_deliveries").execute();
  await server.deps.db.deleteFrom("webhook_subscriptions").execute();
});

const subscribe = (userId: string, input: { events: EventType[]; countries?: string[]; operators?: string[] }) =>
  createSubscription(env, userId, { url: "http://127.0.0.1:9/hook", ...input }).then((r) => r.item.id);

async function deliveriesOf(subscriptionId: string) {
  return server.deps.db.selectFrom("webhook_deliveries").select(["event_id", "event_type", "user_id", "status"]).where("subscription_id", "=", subscriptionId).execute();
}

describe("fan-out", () => {
  it("one delivery per matching enabled subscription: type, country and operator filters; empty means all", async () => {
    const feed = memoryFeed("t1");
    const all = await subscribe(user, { events: ["ir21.operator.updated", "ir21.catalog.updated"] });
    const cn = await subscribe(user, { events: ["ir21.operator.updated"], countries: ["CN"] });
    const op = await subscribe(other, { events: ["ir21.operator.updated", "ir21.catalog.updated"], countries: ["ES"], operators: ["op_es_21407"] });
    const disabled = await subscribe(other, { events: ["ir21.operator.updated"] });
    await updateSubscription(env, other, disabled, { enabled: false });
    const onlyRanges = await subscribe(user, { events: ["ir21.number_range.added"] });

    const cnUpdate = feed.add("ir21.operator.updated", "CN", "op_cn_46000");
    const esUpdate = feed.add("ir21.operator.updated", "ES", "op_es_21407");
    const esOther = feed.add("ir21.operator.updated", "ES", "op_es_21401");
    const reset = feed.add("ir21.catalog.updated", "", "");
    feed.add("ir21.network.added", "CN", "op_cn_46000");

    expect(await fanOutAll(env, feed)).toEqual({ events: 5, deliveries: 7 });
    const ids = async (s: string) => (await deliveriesOf(s)).map((d) => d.event_id).sort();
    expect(await ids(all)).toEqual([cnUpdate, esUpdate, esOther, reset].sort());
    expect(await ids(cn)).toEqual([cnUpdate]);
    // catalog.updated reaches a subscription whatever its country/operator filters.
    expect(await ids(op)).toEqual([esUpdate, reset].sort());
    expect(await ids(disabled)).toEqual([]);
    expect(await ids(onlyRanges)).toEqual([]);
    expect((await deliveriesOf(op)).every((d) => d.user_id === other && d.status === "pending")).toBe(true);
    const stored = await server.deps.db.selectFrom("webhook_events").select(["id", "payload", "source_seq"]).where("id", "=", reset).executeTakeFirstOrThrow();
    expect(JSON.parse(stored.payload)).toMatchObject({ id: reset, type: "ir21.catalog.updated", test: false });
    expect(Number(stored.source_seq)).toBe(4);
  });

  it("advances its cursor with the deliveries: a rerun adds nothing, new changes are picked up", async () => {
    const feed = memoryFeed("t2");
    const s = await subscribe(user, { events: ["ir21.network.added"] });
    feed.add("ir21.network.added");
    feed.add("ir21.network.added");
    expect(await fanOutAll(env, feed, { batchSize: 1 })).toEqual({ events: 2, deliveries: 2 });
    expect(await fanOutAll(env, feed)).toEqual({ events: 0, deliveries: 0 });
    feed.add("ir21.network.added");
    expect(await fanOutOnce(env, feed)).toEqual({ events: 1, deliveries: 1 });
    expect(await deliveriesOf(s)).toHaveLength(3);
    const cursor = await server.deps.db.selectFrom("webhook_fanout_cursors").select("last_seq").where("name", "=", "t2").executeTakeFirstOrThrow();
    expect(Number(cursor.last_seq)).toBe(3);
  });

  it("a run that dies midway writes nothing and moves no cursor; the next run delivers everything once", async () => {
    const feed = memoryFeed("t3");
    const s = await subscribe(user, { events: ["ir21.operator.added"] });
    for (let i = 0; i < 3; i++) feed.add("ir21.operator.added");
    feed.poison = true;
    await expect(fanOutOnce(env, feed)).rejects.toThrow();
    expect(await deliveriesOf(s)).toHaveLength(0);
    const cursor = await server.deps.db.selectFrom("webhook_fanout_cursors").select("last_seq").where("name", "=", "t3").executeTakeFirst();
    expect(Number(cursor?.last_seq ?? 0)).toBe(0);
    feed.poison = false;
    expect(await fanOutAll(env, feed)).toEqual({ events: 3, deliveries: 3 });
    expect(new Set((await deliveriesOf(s)).map((d) => d.event_id)).size).toBe(3);
  });

  it("two feeds' cursors are independent and a concurrent duplicate run cannot duplicate deliveries", async () => {
    const feed = memoryFeed("t4");
    const s = await subscribe(user, { events: ["ir21.capability.changed"] });
    for (let i = 0; i < 10; i++) feed.add("ir21.capability.changed");
    await Promise.all([fanOutAll(env, feed, { batchSize: 3 }), fanOutAll(env, feed, { batchSize: 4 })]);
    const rows = await deliveriesOf(s);
    expect(rows).toHaveLength(10);
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(10);
  });
});
