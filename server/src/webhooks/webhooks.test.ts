import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { REST_BINDINGS } from "../app/rest-bindings.ts";
import { signIn, startTestServer, type TestServer } from "../../testing/index.ts";
import { RETRY_DELAYS_MS } from "./delivery/schedule.ts";
import { ir21Headers, signatureMatches, standardSignatureMatches } from "../../testing/webhooks.ts";
import { startTestReceiver, type TestReceiver } from "../../testing/webhook-receiver.ts";
import type { HostResolver } from "./subscriptions/url-policy.ts";
import { DeliveryWorker } from "./delivery/worker.ts";

/** What DNS says right now; tests change it to simulate rebinding. */
let dnsAnswer = "93.184.215.14";
const resolver: HostResolver = async (host) => [{ address: host === "127.0.0.1" ? "127.0.0.1" : dnsAnswer, family: 4 }];

let server: TestServer;
let receiver: TestReceiver;
let worker: DeliveryWorker;
let alice: { userId: string; cookie: string };
let bob: { userId: string; cookie: string };

beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" }, hostResolver: resolver });
  alice = await signIn(server);
  bob = await signIn(server);
  worker = new DeliveryWorker(server.deps.webhooks, { random: () => 0, limits: { totalTimeoutMs: 2_000, connectTimeoutMs: 1_000 } });
});
afterAll(() => server.close());
beforeEach(async () => {
  receiver = await startTestReceiver();
  dnsAnswer = "93.184.215.14";
});
afterEach(async () => {
  await receiver.close();
  // Leave nothing due for the next test's drains.
  await server.deps.db.updateTable("webhook_deliveries").set({ status: "cancelled", next_attempt_at: null }).where("status", "=", "pending").execute();
});

type Who = { cookie: string };
const call = (who: Who | null, method: string, path: string, body?: unknown) =>
  server.json(path, { method, body, headers: who ? { cookie: who.cookie } : {} });

async function subscribe(who: Who = alice, extra: Record<string, unknown> = {}) {
  const { status, body } = await call(who, "POST", "/console/webhooks", { url: `${receiver.url}/hook`, events: ["ir21.operator.updated"], ...extra });
  expect(status).toBe(200);
  return body.data as { item: { id: string }; secret: string };
}

async function sendTest(id: string, who: Who = alice): Promise<string> {
  const { status, body } = await call(who, "POST", `/console/webhooks/${id}/test`);
  expect(status).toBe(200);
  expect(body.data).toEqual({ delivery_id: expect.stringMatching(/^dlv_/), queued: true });
  return body.data.delivery_id;
}

const delivery = async (subscriptionId: string, deliveryId: string, who: Who = alice) => (await call(who, "GET", `/console/webhooks/${subscriptionId}/deliveries/${deliveryId}`)).body.data;

describe("subscriptions", () => {
  it("needs an account session: 401 without credentials, 403 with only an API key", async () => {
    expect((await call(null, "GET", "/console/webhooks")).status).toBe(401);
    const withKey = await server.json("/console/webhooks", { headers: { "x-api-key": "ir21_x" } });
    expect(withKey.status).toBe(403);
    expect(withKey.body.code).toBe("FORBIDDEN");
    const forged = await server.json("/console/webhooks", { headers: { cookie: "ir21_session=ses_forged.secret" } });
    expect(forged.status).toBe(401);
    const crossSite = await server.json("/console/webhooks", { method: "POST", body: { url: "https://hooks.example.com/x", events: ["ir21.operator.added"] }, headers: { cookie: alice.cookie, origin: "https://evil.example" } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.code).toBe("CROSS_SITE_REQUEST");
  });

  it("every webhook route refuses a request without a session (401) or with only an API key (403)", async () => {
    const routes = REST_BINDINGS.filter((b) => b.path.startsWith("/console/webhooks"));
    expect(routes).toHaveLength(11);
    for (const { method, path } of routes) {
      const concrete = path.replace(":id", "whk_0000000000").replace(":deliveryId", "dlv_0000000000");
      const body = method === "GET" || method === "DELETE" ? undefined : {};
      const anonymous = await server.json(concrete, { method, body });
      expect({ method, path, status: anonymous.status, code: anonymous.body.code }).toEqual({ method, path, status: 401, code: "UNAUTHORIZED" });
      const keyOnly = await server.json(concrete, { method, body, headers: { "x-api-key": "ir21_notarealkey" } });
      expect({ method, path, status: keyOnly.status, code: keyOnly.body.code }).toEqual({ method, path, status: 403, code: "FORBIDDEN" });
    }
  });

  it("answers malformed JSON and wrong types with the contract error body", async () => {
    const malformed = await server.json("/console/webhooks", { method: "POST", body: '{"url": ', headers: { cookie: alice.cookie, "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ code: "MALFORMED_JSON", message: expect.any(String), request_id: expect.stringMatching(/^req_/) });
    const wrong = await call(alice, "POST", "/console/webhooks", { url: 42, events: "ir21.operator.added" });
    expect(wrong.status).toBe(400);
    expect(Object.keys(wrong.body).sort()).toEqual(["code", "message", "request_id"]);
    expect((await call(alice, "PATCH", "/console/webhooks/whk_nope", { enabled: "no" })).status).toBe(400);
    expect((await call(alice, "PATCH", "/console/webhooks/whk_nope", { enabled: false })).status).toBe(404);
    expect((await call(alice, "PUT", "/console/webhooks")).status).toBe(405);
  });

  it("creates with a whsec_ secret shown once, lists without it, and stores it sealed", async () => {
    const { item, secret } = await subscribe(alice, { countries: ["cn", "HK", "cn"], operators: [] });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(item).toMatchObject({ id: expect.stringMatching(/^whk_/), url: `${receiver.url}/hook`, events: ["ir21.operator.updated"], countries: ["CN", "HK"], operators: [], enabled: true, previous_secret_expires_at: null });
    const list = await call(alice, "GET", "/console/webhooks");
    expect(list.body.data.items.map((i: { id: string }) => i.id)).toContain(item.id);
    expect(JSON.stringify(list.body)).not.toContain(secret);
    const row = await server.deps.db.selectFrom("webhook_subscriptions").selectAll().where("id", "=", item.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    expect(server.logs.text()).not.toContain(secret.slice(6));
  });

  it.each([
    ["an unknown event type", { events: ["ir21.nope"] }, "INVALID_REQUEST"],
    ["no event type", { events: [] }, "INVALID_REQUEST"],
    ["a bad country code", { countries: ["CHN"] }, "INVALID_REQUEST"],
    ["an unknown field", { secret: "mine" }, "INVALID_REQUEST"],
    ["plain http to a public host", { url: "http://hooks.example.com/x" }, "WEBHOOK_URL_FORBIDDEN"],
    ["credentials in the URL", { url: "https://u:p@hooks.example.com/x" }, "WEBHOOK_URL_FORBIDDEN"],
    ["a loopback literal in hex", { url: "https://0x7f.2/x" }, "WEBHOOK_URL_FORBIDDEN"],
    ["the metadata address in decimal", { url: "https://2852039166/latest" }, "WEBHOOK_URL_FORBIDDEN"],
    ["metadata.google.internal", { url: "https://metadata.google.internal/" }, "WEBHOOK_URL_FORBIDDEN"],
    ["an IPv4-mapped private address", { url: "https://[::ffff:10.0.0.1]/" }, "WEBHOOK_URL_FORBIDDEN"],
  ])("400 for %s", async (_label, patch, code) => {
    const { status, body } = await call(alice, "POST", "/console/webhooks", { url: "https://hooks.example.com/ir21", events: ["ir21.operator.added"], ...patch });
    expect(status).toBe(400);
    expect(body.code).toBe(code);
  });

  it("refuses at save time a public-looking host whose DNS answer is private", async () => {
    dnsAnswer = "10.0.0.7";
    const { status, body } = await call(alice, "POST", "/console/webhooks", { url: "https://hooks.example.com/ir21", events: ["ir21.operator.added"] });
    expect(status).toBe(400);
    expect(body.code).toBe("WEBHOOK_URL_FORBIDDEN");
    expect(body.message).toMatch(/private/);
  });

  it("PATCH changes fields and re-checks the URL", async () => {
    const { item } = await subscribe();
    const ok = await call(alice, "PATCH", `/console/webhooks/${item.id}`, { events: ["ir21.catalog.updated", "ir21.network.added"], operators: ["op_cn_46000"] });
    expect(ok.status).toBe(200);
    expect(ok.body.data.item).toMatchObject({ events: ["ir21.catalog.updated", "ir21.network.added"], operators: ["op_cn_46000"] });
    const bad = await call(alice, "PATCH", `/console/webhooks/${item.id}`, { url: "https://169.254.169.254/" });
    expect(bad.body.code).toBe("WEBHOOK_URL_FORBIDDEN");
  });

  it("tenant isolation: another account's subscription and deliveries are 404 everywhere", async () => {
    const { item } = await subscribe(alice);
    const deliveryId = await sendTest(item.id);
    const mine = await subscribe(bob);
    const base = `/console/webhooks/${item.id}`;
    for (const [method, path, body] of [
      ["PATCH", base, { enabled: false }],
      ["DELETE", base, undefined],
      ["POST", `${base}/test`, undefined],
      ["GET", `${base}/deliveries`, undefined],
      ["GET", `${base}/deliveries/${deliveryId}`, undefined],
      ["POST", `${base}/deliveries/${deliveryId}/retry`, undefined],
      ["POST", `${base}/deliveries/retry-batch`, { delivery_ids: [deliveryId] }],
      ["POST", `${base}/rotate-secret`, {}],
      ["DELETE", `${base}/previous-secret`, undefined],
      // Alice's delivery id under Bob's own subscription.
      ["GET", `/console/webhooks/${mine.item.id}/deliveries/${deliveryId}`, undefined],
      ["POST", `/console/webhooks/${mine.item.id}/deliveries/${deliveryId}/retry`, undefined],
      ["POST", `/console/webhooks/${mine.item.id}/deliveries/retry-batch`, { delivery_ids: [deliveryId] }],
    ] as const) {
      const { status, body: answer } = await call(bob, method, path, body);
      expect({ method, path, status, code: answer.code }).toEqual({ method, path, status: 404, code: "NOT_FOUND" });
    }
    const list = await call(bob, "GET", "/console/webhooks");
    expect(list.body.data.items.map((i: { id: string }) => i.id)).toEqual([mine.item.id]);
    // Alice's subscription is untouched.
    expect((await call(alice, "GET", `${base}/deliveries/${deliveryId}`)).status).toBe(200);
  });

  it("DELETE removes the subscription with its deliveries", async () => {
    const { item } = await subscribe();
    const deliveryId = await sendTest(item.id);
    expect((await call(alice, "DELETE", `/console/webhooks/${item.id}`)).body.data).toEqual({ deleted: true });
    expect((await call(alice, "GET", `/console/webhooks/${item.id}/deliveries`)).status).toBe(404);
    expect(await server.deps.db.selectFrom("webhook_deliveries").select("id").where("id", "=", deliveryId).executeTakeFirst()).toBeUndefined();
  });
});

describe("delivery", () => {
  it("POSTs the test event signed; an independent verifier accepts it and the ids match", async () => {
    const { item, secret } = await subscribe(alice, { countries: ["ES"] });
    const deliveryId = await sendTest(item.id);
    expect(await worker.drain()).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    const [req] = receiver.requests;
    const h = ir21Headers(req!.headers);
    expect(h.timestamp).toBe(String(Math.floor(server.clock.now().getTime() / 1000)));
    expect(signatureMatches(h.signature, h.timestamp, req!.body, secret)).toBe(true);
    expect(signatureMatches(h.signature, h.timestamp, `${req!.body} `, secret)).toBe(false);
    expect(h.previous).toBeUndefined();
    // The Standard Webhooks headers beside ours: the same id and timestamp, signed with the same secret.
    const standard = { id: req!.headers["webhook-id"] as string, timestamp: req!.headers["webhook-timestamp"] as string, signature: req!.headers["webhook-signature"] as string };
    expect(standard.id).toBe(h.eventId);
    expect(standard.timestamp).toBe(h.timestamp);
    expect(standardSignatureMatches(standard.signature, standard.id, standard.timestamp, req!.body, secret)).toBe(true);
    expect(standardSignatureMatches(standard.signature, standard.id, standard.timestamp, `${req!.body} `, secret)).toBe(false);
    const event = JSON.parse(req!.body);
    expect(event).toMatchObject({ id: h.eventId, test: true, type: "ir21.operator.updated", country_iso2: "ES", data: { summary: expect.any(String) } });
    const detail = await delivery(item.id, deliveryId);
    expect(detail.item).toMatchObject({ id: deliveryId, event_id: h.eventId, status: "delivered", attempts: 1, response_status: 200, last_error: null, next_attempt_at: null });
    expect(detail.attempts).toEqual([
      {
        id: expect.stringMatching(/^att_/),
        attempted_at: server.clock.now().toISOString(),
        response_status: 200,
        error: null,
        duration_ms: expect.any(Number),
        response: { headers: expect.objectContaining({ "content-type": "text/plain" }), body: "ok", body_truncated: false },
      },
    ]);
    expect(detail.event).toEqual(event);
  });

  it("keeps what the receiver answered: headers (credentials redacted), the first 4 KiB of the body (secrets masked), duration", async () => {
    const { item, secret } = await subscribe();
    const long = `${"x".repeat(4_000)} ${secret} ${"y".repeat(2_000)}`;
    receiver.respond({ status: 418, body: long, headers: { "set-cookie": "session=abc", authorization: "Bearer t", "x-trace": "t-1", "x-echo": secret } });
    const deliveryId = await sendTest(item.id);
    await worker.drain();
    const [attempt] = (await delivery(item.id, deliveryId)).attempts;
    expect(attempt).toMatchObject({ response_status: 418, error: "http_status: HTTP 418", response: { body_truncated: true } });
    expect(attempt.response.headers).toMatchObject({ "set-cookie": "[redacted]", authorization: "[redacted]", "x-trace": "t-1", "x-echo": "whsec_[redacted]" });
    expect(Buffer.byteLength(attempt.response.body)).toBeLessThanOrEqual(4_096 + 20);
    expect(attempt.response.body).toMatch(/^x{4000} whsec_\[redacted\]/);
    expect(JSON.stringify(attempt)).not.toContain(secret);
    // A receiver that never answers: no response, the time it took.
    receiver.respond({ hang: true });
    const hung = await sendTest(item.id);
    await worker.drain();
    const [timedOut] = (await delivery(item.id, hung)).attempts;
    expect(timedOut).toMatchObject({ response_status: null, response: null, error: expect.stringMatching(/^timeout: /) });
    expect(timedOut.duration_ms).toBeGreaterThanOrEqual(1_900);
  });

  it("a test event of a chosen type ({event_type}) carries that type's real data shape; no body keeps the summary", async () => {
    const { item, secret } = await subscribe(alice, { events: ["ir21.operator.updated"], countries: ["GB"] });
    const answer = await call(alice, "POST", `/console/webhooks/${item.id}/test`, { event_type: "ir21.number_range.added" });
    expect(answer.body.data).toEqual({ delivery_id: expect.stringMatching(/^dlv_/), queued: true });
    await worker.drain();
    const sent = JSON.parse(receiver.requests.at(-1)!.body);
    expect(signatureMatches(receiver.requests.at(-1)!.headers["x-ir21-signature"], receiver.requests.at(-1)!.headers["x-ir21-timestamp"], receiver.requests.at(-1)!.body, secret)).toBe(true);
    expect(sent).toMatchObject({ type: "ir21.number_range.added", test: true, country_iso2: "GB", data: { after: { country_iso2: "GB", plan: expect.any(String) } } });
    expect(Object.keys(sent.data)).toEqual(["after"]);
    expect((await call(alice, "POST", `/console/webhooks/${item.id}/test`, { event_type: "ir21.nothing" })).status).toBe(400);
    await sendTest(item.id);
    await worker.drain();
    expect(JSON.parse(receiver.requests.at(-1)!.body)).toMatchObject({ type: "ir21.operator.updated", data: { summary: expect.any(String) } });
  });

  it("500, 500, 200: delivered after three attempts on the schedule, each signed afresh", async () => {
    const { item, secret } = await subscribe();
    receiver.respond({ status: 500 }, { status: 500 });
    const deliveryId = await sendTest(item.id);
    const start = server.clock.now().getTime();
    await worker.drain();
    expect((await delivery(item.id, deliveryId)).item).toMatchObject({ status: "pending", attempts: 1, response_status: 500, next_attempt_at: new Date(start + RETRY_DELAYS_MS[0]!).toISOString() });
    server.clock.advance(RETRY_DELAYS_MS[0]! - 1);
    expect(await worker.drain()).toBe(0);
    server.clock.advance(1);
    await worker.drain();
    server.clock.advance(RETRY_DELAYS_MS[1]!);
    await worker.drain();
    const detail = await delivery(item.id, deliveryId);
    expect(detail.item).toMatchObject({ status: "delivered", attempts: 3, response_status: 200, last_error: null, next_attempt_at: null });
    expect(detail.attempts.map((a: { response_status: number }) => a.response_status)).toEqual([500, 500, 200]);
    expect(receiver.requests).toHaveLength(3);
    const timestamps = receiver.requests.map((r) => ir21Headers(r.headers).timestamp);
    expect(new Set(timestamps).size).toBe(3);
    for (const r of receiver.requests) {
      const h = ir21Headers(r.headers);
      expect(signatureMatches(h.signature, h.timestamp, r.body, secret)).toBe(true);
      expect(h.eventId).toBe(detail.item.event_id);
    }
  });

  it("always 500: failed after exactly ten attempts at the scheduled times", async () => {
    const { item } = await subscribe();
    receiver.fallback = { status: 500, body: "down" };
    const deliveryId = await sendTest(item.id);
    const start = server.clock.now().getTime();
    let expectedAt = start;
    await worker.drain();
    for (const delay of RETRY_DELAYS_MS) {
      expectedAt += delay;
      const before = (await delivery(item.id, deliveryId)).item;
      expect(before.next_attempt_at).toBe(new Date(expectedAt).toISOString());
      server.clock.set(expectedAt);
      expect(await worker.drain()).toBe(1);
    }
    const detail = await delivery(item.id, deliveryId);
    expect(detail.item).toMatchObject({ status: "failed", attempts: 10, response_status: 500, last_error: "http_status: HTTP 500", next_attempt_at: null });
    expect(detail.attempts).toHaveLength(10);
    expect(receiver.requests).toHaveLength(10);
    server.clock.advance(7 * 24 * 3600_000);
    expect(await worker.drain()).toBe(0);
  });

  it("a hanging receiver times out and the attempt is recorded as such", async () => {
    const { item } = await subscribe();
    receiver.respond({ hang: true });
    const deliveryId = await sendTest(item.id);
    await new DeliveryWorker(server.deps.webhooks, { random: () => 0, limits: { totalTimeoutMs: 300 } }).drain();
    const detail = await delivery(item.id, deliveryId);
    expect(detail.item).toMatchObject({ status: "pending", attempts: 1, response_status: null, last_error: expect.stringMatching(/^timeout: /) });
  });

  it("a 3xx is a failed attempt and its Location is never visited", async () => {
    const { item } = await subscribe();
    receiver.respond({ status: 302, headers: { location: `${receiver.url}/elsewhere` } });
    const deliveryId = await sendTest(item.id);
    await worker.drain();
    expect((await delivery(item.id, deliveryId)).item).toMatchObject({ status: "pending", response_status: 302, last_error: expect.stringMatching(/^redirect_not_followed/) });
    expect(receiver.requests.map((r) => r.path)).toEqual(["/hook"]);
  });

  it("honours a bounded Retry-After on 429", async () => {
    const { item } = await subscribe();
    receiver.respond({ status: 429, headers: { "retry-after": "3600" } });
    const deliveryId = await sendTest(item.id);
    const start = server.clock.now().getTime();
    await worker.drain();
    expect((await delivery(item.id, deliveryId)).item.next_attempt_at).toBe(new Date(start + 3600_000).toISOString());
  });

  it("DNS rebinding: a URL vetted at save time is refused at send time when it now resolves to loopback", async () => {
    const { item } = await subscribe(alice, { url: `https://hooks.example.com:${receiver.port}/hook` });
    dnsAnswer = "127.0.0.1";
    const deliveryId = await sendTest(item.id);
    await worker.drain();
    expect((await delivery(item.id, deliveryId)).item).toMatchObject({ status: "pending", response_status: null, last_error: expect.stringMatching(/^ssrf_blocked: .*loopback/) });
    expect(receiver.requests).toHaveLength(0);
  });

  it("disabling cancels pending deliveries and nothing more is sent", async () => {
    const { item } = await subscribe();
    receiver.respond({ status: 500 });
    const first = await sendTest(item.id);
    await worker.drain(); // first is now waiting for its retry
    const second = await sendTest(item.id);
    const patched = await call(alice, "PATCH", `/console/webhooks/${item.id}`, { enabled: false });
    expect(patched.body.data.item.enabled).toBe(false);
    for (const id of [first, second]) expect((await delivery(item.id, id)).item).toMatchObject({ status: "cancelled", next_attempt_at: null });
    server.clock.advance(RETRY_DELAYS_MS[0]!);
    expect(await worker.drain()).toBe(0);
    expect(receiver.requests).toHaveLength(1);
    expect((await call(alice, "POST", `/console/webhooks/${item.id}/test`)).body.code).toBe("CONFLICT");
    expect((await call(alice, "POST", `/console/webhooks/${item.id}/deliveries/${first}/retry`)).body.code).toBe("CONFLICT");
    // Enabling again does not revive them.
    await call(alice, "PATCH", `/console/webhooks/${item.id}`, { enabled: true });
    expect((await delivery(item.id, second)).item.status).toBe("cancelled");
  });

  it("manual retry re-sends the same event id and body, with one more attempt", async () => {
    const { item, secret } = await subscribe();
    const deliveryId = await sendTest(item.id);
    await worker.drain();
    const retried = await call(alice, "POST", `/console/webhooks/${item.id}/deliveries/${deliveryId}/retry`);
    expect(retried.body.data).toEqual({ queued: true });
    expect((await delivery(item.id, deliveryId)).item).toMatchObject({ status: "pending", attempts: 1 });
    server.clock.advance(1000);
    await worker.drain();
    expect(receiver.requests).toHaveLength(2);
    const [a, b] = receiver.requests.map((r) => ({ ...ir21Headers(r.headers), body: r.body }));
    expect(b!.eventId).toBe(a!.eventId);
    expect(b!.body).toBe(a!.body);
    expect(b!.timestamp).not.toBe(a!.timestamp);
    expect(signatureMatches(b!.signature, b!.timestamp, b!.body, secret)).toBe(true);
    expect((await delivery(item.id, deliveryId)).item).toMatchObject({ status: "delivered", attempts: 2 });
    const kinds = await server.deps.db.selectFrom("webhook_attempts").select("kind").where("delivery_id", "=", deliveryId).orderBy("attempt_no").execute();
    expect(kinds.map((k) => k.kind)).toEqual(["scheduled", "manual"]);
  });

  it("a failed manual retry gets exactly one attempt, then is failed again", async () => {
    const { item } = await subscribe();
    receiver.fallback = { status: 500 };
    const deliveryId = await sendTest(item.id);
    await server.deps.db.updateTable("webhook_deliveries").set({ max_attempts: 1 }).where("id", "=", deliveryId).execute();
    await worker.drain();
    expect((await delivery(item.id, deliveryId)).item.status).toBe("failed");
    await call(alice, "POST", `/console/webhooks/${item.id}/deliveries/${deliveryId}/retry`);
    await worker.drain();
    expect((await delivery(item.id, deliveryId)).item).toMatchObject({ status: "failed", attempts: 2, next_attempt_at: null });
  });

  it("retry-batch: 1 to 20 ids, all of this subscription, or nothing is queued", async () => {
    const { item } = await subscribe();
    const ids = [await sendTest(item.id), await sendTest(item.id)];
    await worker.drain();
    const path = `/console/webhooks/${item.id}/deliveries/retry-batch`;
    expect((await call(alice, "POST", path, { delivery_ids: [] })).status).toBe(400);
    expect((await call(alice, "POST", path, { delivery_ids: Array.from({ length: 21 }, (_, i) => `dlv_${i}`) })).status).toBe(400);
    const other = await subscribe();
    const foreign = await sendTest(other.item.id);
    const mixed = await call(alice, "POST", path, { delivery_ids: [...ids, foreign] });
    expect(mixed.status).toBe(404);
    expect((await delivery(item.id, ids[0]!)).item.status).toBe("delivered");
    const ok = await call(alice, "POST", path, { delivery_ids: ids });
    expect(ok.body.data).toEqual({ queued: 2, delivery_ids: ids });
    for (const id of ids) expect((await delivery(item.id, id)).item.status).toBe("pending");
    await worker.drain();
    const originals = receiver.requests.slice(0, 2).map((r) => ir21Headers(r.headers).eventId);
    const resent = receiver.requests.slice(2).map((r) => ir21Headers(r.headers).eventId).filter((id) => originals.includes(id));
    expect(resent.sort()).toEqual([...originals].sort());
  });
});

describe("rotation", () => {
  it("headers before, during and after the grace period, expiring exactly", async () => {
    const { item, secret: first } = await subscribe();
    const path = `/console/webhooks/${item.id}`;
    await sendTest(item.id);
    await worker.drain();
    expect(ir21Headers(receiver.requests[0]!.headers).previous).toBeUndefined();

    const rotated = await call(alice, "POST", `${path}/rotate-secret`, { grace_seconds: 600 });
    expect(rotated.status).toBe(200);
    const second: string = rotated.body.data.secret;
    const expiresAt = server.clock.now().getTime() + 600_000;
    expect(rotated.body.data.previous_secret_expires_at).toBe(new Date(expiresAt).toISOString());
    expect(rotated.body.data.item.previous_secret_expires_at).toBe(new Date(expiresAt).toISOString());
    expect(second).not.toBe(first);

    const again = await call(alice, "POST", `${path}/rotate-secret`, {});
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("CONFLICT");
    expect(again.body.message).toMatch(/grace period/);

    server.clock.set(expiresAt - 1);
    await sendTest(item.id);
    await worker.drain();
    const during = receiver.requests[1]!;
    const h = ir21Headers(during.headers);
    expect(signatureMatches(h.signature, h.timestamp, during.body, second)).toBe(true);
    expect(signatureMatches(h.previous, h.timestamp, during.body, first)).toBe(true);
    expect(signatureMatches(h.signature, h.timestamp, during.body, first)).toBe(false);

    server.clock.set(expiresAt);
    await sendTest(item.id);
    await worker.drain();
    const after = ir21Headers(receiver.requests[2]!.headers);
    expect(after.previous).toBeUndefined();
    expect(signatureMatches(after.signature, after.timestamp, receiver.requests[2]!.body, second)).toBe(true);
    expect((await call(alice, "GET", "/console/webhooks")).body.data.items.find((i: { id: string }) => i.id === item.id).previous_secret_expires_at).toBeNull();

    // The grace period is over, so a new rotation is allowed; revoking the previous secret drops it at once.
    const third = await call(alice, "POST", `${path}/rotate-secret`, {});
    expect(third.body.data.previous_secret_expires_at).toBe(new Date(expiresAt + 3600_000).toISOString());
    expect((await call(alice, "DELETE", `${path}/previous-secret`)).body.data).toEqual({ revoked: true });
    await sendTest(item.id);
    await worker.drain();
    const revoked = ir21Headers(receiver.requests[3]!.headers);
    expect(revoked.previous).toBeUndefined();
    expect(signatureMatches(revoked.signature, revoked.timestamp, receiver.requests[3]!.body, third.body.data.secret)).toBe(true);
  });

  it("grace 0 invalidates the old secret at once; grace bounds are enforced", async () => {
    const { item } = await subscribe();
    const path = `/console/webhooks/${item.id}/rotate-secret`;
    for (const grace of [-1, 86_401, 1.5, "60"]) expect((await call(alice, "POST", path, { grace_seconds: grace })).status).toBe(400);
    const rotated = await call(alice, "POST", path, { grace_seconds: 0 });
    expect(rotated.body.data.previous_secret_expires_at).toBeNull();
    await sendTest(item.id);
    await worker.drain();
    const h = ir21Headers(receiver.requests[0]!.headers);
    expect(h.previous).toBeUndefined();
    expect(signatureMatches(h.signature, h.timestamp, receiver.requests[0]!.body, rotated.body.data.secret)).toBe(true);
    // No grace period is running, so rotating again right away is fine.
    expect((await call(alice, "POST", path, { grace_seconds: 86_400 })).status).toBe(200);
  });
});

describe("deliveries list", () => {
  it("pages newest first with an opaque cursor, filters by status and event id, and counts the total", async () => {
    const { item } = await subscribe();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.unshift(await sendTest(item.id));
      server.clock.advance(1000);
    }
    receiver.respond({ status: 200 }, { status: 500 });
    await new DeliveryWorker(server.deps.webhooks, { random: () => 0, concurrency: 1 }).drain();
    const base = `/console/webhooks/${item.id}/deliveries`;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(alice, "GET", `${base}?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.body.data.total).toBe(5);
      expect(page.body.data.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.items.map((d: { id: string }) => d.id));
      cursor = page.body.data.next_cursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    const pending = await call(alice, "GET", `${base}?status=pending`);
    expect(pending.body.data).toMatchObject({ total: 1, next_cursor: null });
    const one = (await delivery(item.id, ids[2]!)).item;
    const byEvent = await call(alice, "GET", `${base}?event_id=${one.event_id}`);
    expect(byEvent.body.data.items.map((d: { id: string }) => d.id)).toEqual([ids[2]]);
    for (const bad of ["limit=0", "limit=101", "status=sent", "cursor=!!", "cursor=bm9wZQ"]) {
      const { status, body } = await call(alice, "GET", `${base}?${bad}`);
      expect({ bad, status, code: body.code }).toEqual({ bad, status: 400, code: "INVALID_REQUEST" });
    }
  });
});

describe("default policy", () => {
  it("without WEBHOOK_ALLOW_HOSTS the same local receiver is refused at save time", async () => {
    const strict = await startTestServer({ hostResolver: async () => [{ address: "127.0.0.1", family: 4 }] });
    try {
      const who = await signIn(strict);
      for (const url of [`${receiver.url}/hook`, `https://127.0.0.1:${receiver.port}/hook`, `https://localhost:${receiver.port}/hook`, `https://hooks.example.com:${receiver.port}/hook`]) {
        const { status, body } = await strict.json("/console/webhooks", { method: "POST", body: { url, events: ["ir21.operator.added"] }, headers: { cookie: who.cookie } });
        expect({ url, status, code: body.code }).toEqual({ url, status: 400, code: "WEBHOOK_URL_FORBIDDEN" });
      }
    } finally {
      await strict.close();
    }
  });
});
