import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogChangeFeed, demoDataset, importDataset, signIn, startTestServer, createApiKey, type SignedIn, type TestServer } from "../../../testing/index.ts";
import { signatureMatches, standardSignatureMatches } from "../../../testing/webhooks.ts";
import { fanOutAllToListenSessions } from "./fanout.ts";
import { sweepListenSessions } from "./sweep.ts";

/** A raw server-sent-events reader: what a forwarder sees on the wire, independent of the SDK. */
interface StreamMessage {
  event: string;
  data: any;
  id?: string;
}
interface OpenStream {
  status: number;
  headers: Headers;
  /** The error body when the stream was refused. */
  error?: any;
  /** The next message (pings skipped), or null when the stream ended. */
  next(timeoutMs?: number): Promise<StreamMessage | null>;
  /** Comments seen so far (keep-alive pings). */
  comments: string[];
  close(): void;
}

async function openStream(server: TestServer, who: { cookie: string } | null, query = "", headers: Record<string, string> = {}): Promise<OpenStream> {
  const abort = new AbortController();
  const response = await server.fetch(`/console/listen-sessions/stream${query ? `?${query}` : ""}`, {
    headers: { ...(who ? { cookie: who.cookie } : {}), accept: "text/event-stream", ...headers },
    signal: abort.signal,
  });
  const comments: string[] = [];
  if (response.status !== 200) {
    return { status: response.status, headers: response.headers, error: await response.json(), next: async () => null, comments, close: () => abort.abort() };
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const pending: StreamMessage[] = [];
  let ended = false;
  const pump = async (): Promise<void> => {
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      return;
    }
    buffer += value;
    let cut: number;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const message: Partial<StreamMessage> = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) comments.push(line.slice(1).trim());
        else if (line.startsWith("event: ")) message.event = line.slice(7);
        else if (line.startsWith("id: ")) message.id = line.slice(4);
        else if (line.startsWith("data: ")) message.data = JSON.parse(line.slice(6));
      }
      if (message.event) pending.push(message as StreamMessage);
    }
  };
  return {
    status: 200,
    headers: response.headers,
    comments,
    async next(timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (pending.length === 0 && !ended) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error("no stream message in time");
        await Promise.race([pump(), new Promise((resolve) => setTimeout(resolve, left))]);
      }
      return pending.shift() ?? null;
    },
    close: () => abort.abort(),
  };
}

let server: TestServer;
let alice: SignedIn;
let bob: SignedIn;

beforeAll(async () => {
  server = await startTestServer({ dataset: "demo", env: { WEBHOOK_LISTEN_SESSIONS_PER_ACCOUNT: "3", WEBHOOK_LISTEN_BUFFER: "2", WEBHOOK_LISTEN_PING_SECONDS: "1" } });
  alice = await signIn(server);
  bob = await signIn(server);
}, 60_000);
afterAll(() => server.close());

const call = (who: { cookie: string } | null, method: string, path: string, body?: unknown) => server.json(path, { method, body, headers: who ? { cookie: who.cookie } : {} });
const trigger = (who: { cookie: string }, type = "ir21.operator.updated") => call(who, "POST", "/console/listen-sessions/trigger", { event_type: type });

/** Ends every open session of the account, so each test starts below the cap. */
async function endAll(who: { cookie: string }) {
  const { body } = await call(who, "GET", "/console/listen-sessions");
  for (const s of body.data.items) if (s.status === "open") await call(who, "DELETE", `/console/listen-sessions/${s.id}`);
  await server.deps.listenHub.settle();
}

describe("opening a stream", () => {
  it("needs an account session: 401 without, 403 with only an API key, 403 cross-site; bad filters are 400", async () => {
    const anonymous = await openStream(server, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.error.code).toBe("UNAUTHORIZED");
    const key = await createApiKey(server, alice);
    const withKey = await server.fetch("/console/listen-sessions/stream", { headers: key.headers });
    expect(withKey.status).toBe(403);
    expect((await withKey.json()).code).toBe("FORBIDDEN");
    const crossSite = await openStream(server, alice, "", { "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(403);
    expect(crossSite.error.code).toBe("CROSS_SITE_REQUEST");
    const badType = await openStream(server, alice, "events=ir21.nothing");
    expect(badType.status).toBe(400);
    expect(Object.keys(badType.error).sort()).toEqual(["code", "message", "request_id"]);
    expect(badType.error.code).toBe("INVALID_REQUEST");
    expect((await openStream(server, alice, "resume=whk_0000000000")).status).toBe(400);
    expect((await openStream(server, alice, "resume=lsn_00000000000000000000000000")).status).toBe(404);
  });

  it("streams through proxies: event-stream, no caching or buffering, a ready message with the secret, then pings", async () => {
    const stream = await openStream(server, alice, "events=ir21.operator.updated&countries=cn&forward_to=http://localhost:3000/hook");
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(stream.headers.get("cache-control")).toContain("no-cache");
    expect(stream.headers.get("x-accel-buffering")).toBe("no");
    expect(stream.headers.get("x-request-id")).toMatch(/^req_/);
    const ready = await stream.next();
    expect(ready!.event).toBe("ready");
    expect(ready!.data.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(ready!.data).toMatchObject({ resumed: false, ping_interval_seconds: 1, buffer: 2 });
    expect(ready!.data.session).toMatchObject({ status: "open", events: ["ir21.operator.updated"], countries: ["CN"], operators: [], forward_to: "http://localhost:3000/hook", ended_at: null });
    const listed = await call(alice, "GET", "/console/listen-sessions");
    expect(listed.body.data.items).toEqual([expect.objectContaining({ id: ready!.data.session.id, status: "open" })]);
    // Another account sees nothing of it.
    expect((await call(bob, "GET", "/console/listen-sessions")).body.data.items).toEqual([]);
    // Nothing but keep-alive comments for a while (the reader only sees them while it reads).
    await expect(stream.next(2_500)).rejects.toThrow("no stream message in time");
    expect(stream.comments).toContain("ping");
    // The secret is never logged.
    expect(server.logs.text()).not.toContain(ready!.data.secret);
    stream.close();
    const mine = async () => (await call(alice, "GET", "/console/listen-sessions")).body.data.items.find((s: any) => s.id === ready!.data.session.id);
    await expect.poll(async () => (await mine()).status).toBe("ended");
    expect((await mine()).end_reason).toBe("stream_closed");
  });
});

describe("deliveries", () => {
  it("trigger: a signed test event of the chosen type with realistic data; the report is the attempt's answer", async () => {
    await endAll(alice);
    const stream = await openStream(server, alice, "forward_to=http://127.0.0.1:9/hook");
    const ready = (await stream.next())!.data;
    const triggered = await trigger(alice);
    expect(triggered.status).toBe(200);
    expect(triggered.body.data).toMatchObject({ event_type: "ir21.operator.updated", queued: true, deliveries: [{ session_id: ready.session.id, delivery_id: expect.stringMatching(/^dlv_/) }] });
    const message = (await stream.next())!;
    expect(message.event).toBe("delivery");
    const delivery = message.data;
    expect(delivery.delivery_id).toBe(triggered.body.data.deliveries[0].delivery_id);
    expect(signatureMatches(delivery.headers["X-IR21-Signature"], delivery.headers["X-IR21-Timestamp"], delivery.body, ready.secret)).toBe(true);
    expect(delivery.headers["X-IR21-Event-Id"]).toBe(triggered.body.data.event_id);
    // The Standard Webhooks headers travel in the same object, for the forwarder to send as they are.
    expect(delivery.headers["webhook-id"]).toBe(triggered.body.data.event_id);
    expect(delivery.headers["webhook-timestamp"]).toBe(delivery.headers["X-IR21-Timestamp"]);
    expect(standardSignatureMatches(delivery.headers["webhook-signature"], delivery.headers["webhook-id"], delivery.headers["webhook-timestamp"], delivery.body, ready.secret)).toBe(true);
    expect(standardSignatureMatches(delivery.headers["webhook-signature"], delivery.headers["webhook-id"], delivery.headers["webhook-timestamp"], `${delivery.body} `, ready.secret)).toBe(false);
    const event = JSON.parse(delivery.body);
    expect(event).toMatchObject({ id: triggered.body.data.event_id, type: "ir21.operator.updated", test: true, dataset_version: expect.stringMatching(/^\d{4}-/) });
    // The shape of a real operator.updated: full records before and after, and what changed.
    expect(event.data.after).toMatchObject({ id: expect.any(String), country_iso2: expect.any(String), name: expect.any(String), dataset_version: event.dataset_version });
    expect(event.data.changed_fields.length).toBeGreaterThan(0);
    for (const field of event.data.changed_fields) expect(event.data.before[field]).not.toEqual(event.data.after[field]);
    expect(event.operator_id).toBe(event.data.after.id);

    const report = await call(alice, "POST", `/console/listen-sessions/${ready.session.id}/deliveries/${delivery.delivery_id}/report`, {
      status: 202,
      duration_ms: 12,
      headers: { "content-type": "application/json", "set-cookie": "sid=abc", "x-echo": ready.secret },
      body: JSON.stringify({ received: true, echoed: ready.secret }),
    });
    expect(report.body.data).toEqual({ recorded: true, status: "delivered" });
    const detail = await call(alice, "GET", `/console/listen-sessions/${ready.session.id}/deliveries/${delivery.delivery_id}`);
    expect(detail.body.data.item).toMatchObject({ status: "delivered", attempts: 1, response_status: 202, last_error: null });
    expect(detail.body.data.attempts).toEqual([
      {
        id: expect.stringMatching(/^att_/),
        attempted_at: expect.any(String),
        response_status: 202,
        error: null,
        duration_ms: 12,
        response: { headers: { "content-type": "application/json", "set-cookie": "[redacted]", "x-echo": "whsec_[redacted]" }, body: '{"received":true,"echoed":"whsec_[redacted]"}', body_truncated: false },
      },
    ]);
    expect(detail.body.data.event).toEqual(event);
    // A second report for the same delivery is refused: the first word stands.
    const again = await call(alice, "POST", `/console/listen-sessions/${ready.session.id}/deliveries/${delivery.delivery_id}/report`, { status: 500, duration_ms: 1 });
    expect(again.status).toBe(409);
    // Bob cannot report on, read or end Alice's session.
    expect((await call(bob, "GET", `/console/listen-sessions/${ready.session.id}/deliveries/${delivery.delivery_id}`)).status).toBe(404);
    expect((await call(bob, "DELETE", `/console/listen-sessions/${ready.session.id}`)).status).toBe(404);
    stream.close();
  });

  it("trigger with no open session is a 409 that says how to open one; a test event reaches only its account's sessions", async () => {
    await endAll(bob);
    const answer = await trigger(bob);
    expect(answer.status).toBe(409);
    expect(answer.body.message).toContain("ir21 listen");
    await endAll(alice);
    const alices = await openStream(server, alice);
    const bobs = await openStream(server, bob);
    await alices.next();
    await bobs.next();
    const sent = await trigger(bob, "ir21.network.removed");
    expect(sent.body.data.deliveries).toHaveLength(1);
    expect((await bobs.next())!.data.delivery_id).toBe(sent.body.data.deliveries[0].delivery_id);
    await server.deps.listenHub.settle();
    await expect(alices.next(1_500)).rejects.toThrow("no stream message in time");
    alices.close();
    bobs.close();
  });

  it("backpressure: past the buffer of unreported deliveries, the session's deliveries are failed, not held", async () => {
    await endAll(alice);
    const stream = await openStream(server, alice);
    const ready = (await stream.next())!.data;
    for (let i = 0; i < 5; i++) expect((await trigger(alice)).status).toBe(200);
    await server.deps.listenHub.settle();
    const sent = [(await stream.next())!, (await stream.next())!];
    expect(sent.map((m) => m.event)).toEqual(["delivery", "delivery"]);
    const list = await call(alice, "GET", `/console/listen-sessions/${ready.session.id}/deliveries?limit=10`);
    const failed = list.body.data.items.filter((d: any) => d.status === "failed");
    expect(failed).toHaveLength(3);
    for (const d of failed) expect(d.last_error).toMatch(/^backpressure: /);
    // A report frees a slot: the next delivery goes out.
    await call(alice, "POST", `/console/listen-sessions/${ready.session.id}/deliveries/${sent[0]!.data.delivery_id}/report`, { status: 200, duration_ms: 3 });
    await trigger(alice);
    expect((await stream.next())!.event).toBe("delivery");
    stream.close();
  });

  it("pages a session's deliveries newest first by cursor, filters by status, and keeps each cursor to its listing", async () => {
    await endAll(alice);
    const stream = await openStream(server, alice);
    const ready = (await stream.next())!.data;
    const base = `/console/listen-sessions/${ready.session.id}/deliveries`;
    // One trigger a second, so the order they were sent in is the order the listing must reverse.
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) {
      sent.push((await trigger(alice)).body.data.deliveries[0].delivery_id);
      server.clock.advance(1_000);
    }
    await server.deps.listenHub.settle();
    const seen: string[] = [];
    const totals: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(alice, "GET", `${base}?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      expect(page.body.data.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.items.map((d: any) => d.id));
      totals.push(page.body.data.total);
      cursor = page.body.data.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...sent].reverse());
    expect(totals).toEqual([5, 5, 5]);
    // Two went out and wait for their reports; the buffer was full for the other three (backpressure).
    const failed = await call(alice, "GET", `${base}?status=failed&limit=2`);
    expect(failed.body.data).toMatchObject({ total: 3 });
    expect(failed.body.data.items.every((d: any) => d.status === "failed")).toBe(true);
    // A cursor of the filtered listing is refused on the unfiltered one, and on another account's session.
    const filteredCursor = failed.body.data.next_cursor as string;
    expect((await call(alice, "GET", `${base}?limit=2&cursor=${filteredCursor}`)).body.code).toBe("INVALID_REQUEST");
    expect((await call(alice, "GET", `${base}?limit=2&cursor=!!`)).status).toBe(400);
    expect((await call(bob, "GET", `${base}?limit=2`)).status).toBe(404);
    stream.close();
  });

  it("a delivery without a report in time fails as no_report, with the attempt recorded", async () => {
    await endAll(alice);
    const stream = await openStream(server, alice);
    const ready = (await stream.next())!.data;
    await trigger(alice, "ir21.catalog.updated");
    const delivery = (await stream.next())!.data;
    expect(JSON.parse(delivery.body).data).toMatchObject({ reason: "manual_reset", snapshot_url: "/v1/snapshot" });
    server.clock.advance(61_000);
    server.deps.listenHub.wake();
    await server.deps.listenHub.settle();
    const detail = await call(alice, "GET", `/console/listen-sessions/${ready.session.id}/deliveries/${delivery.delivery_id}`);
    expect(detail.body.data.item).toMatchObject({ status: "failed", attempts: 1, last_error: "no_report: the forwarder did not report within 60 s" });
    expect(detail.body.data.attempts).toMatchObject([{ response_status: null, response: null, error: "no_report: the forwarder did not report within 60 s", duration_ms: 61_000 }]);
    stream.close();
  });
});

describe("sessions", () => {
  it("resume: the same session and secret after a drop; events in between are not replayed", async () => {
    await endAll(alice);
    const first = await openStream(server, alice);
    const ready = (await first.next())!.data;
    first.close();
    await expect.poll(async () => (await call(alice, "GET", "/console/listen-sessions")).body.data.items.find((s: any) => s.id === ready.session.id).status).toBe("ended");
    // Nothing is open now: a catalogue change in the gap reaches nobody.
    const b = demoDataset();
    b.operators[0] = { ...b.operators[0]!, brand: "Gap" };
    await importDataset(server.deps, b);
    const second = await openStream(server, alice, `resume=${ready.session.id}`);
    const resumed = (await second.next())!.data;
    expect(resumed).toMatchObject({ resumed: true, secret: null, session: { id: ready.session.id, status: "open" } });
    expect((await fanOutAllToListenSessions(server.deps.webhooks, catalogChangeFeed)).deliveries).toBe(0);
    await trigger(alice);
    const delivery = (await second.next())!.data;
    expect(signatureMatches(delivery.headers["X-IR21-Signature"], delivery.headers["X-IR21-Timestamp"], delivery.body, ready.secret)).toBe(true);
    second.close();
  });

  it("ending a session from the console closes its stream for good", async () => {
    await endAll(alice);
    const stream = await openStream(server, alice);
    const ready = (await stream.next())!.data;
    expect((await call(alice, "DELETE", `/console/listen-sessions/${ready.session.id}`)).body.data).toEqual({ ended: true });
    const end = (await stream.next())!;
    expect(end).toMatchObject({ event: "end", data: { reason: "ended" } });
    expect(await stream.next()).toBeNull();
    const resume = await openStream(server, alice, `resume=${ready.session.id}`);
    expect(resume.status).toBe(409);
  });

  it("a session whose holder vanished (lease not renewed) ends at the sweep", async () => {
    await endAll(alice);
    const stream = await openStream(server, alice);
    const ready = (await stream.next())!.data;
    // As if the process holding the stream had been killed: nobody renews the lease.
    await server.deps.db.updateTable("webhook_listen_sessions").set({ holder: "gone:1:000000", lease_until: server.clock.now().getTime() - 1 }).where("id", "=", ready.session.id).execute();
    const listed = (await call(alice, "GET", "/console/listen-sessions")).body.data.items.find((s: any) => s.id === ready.session.id);
    expect(listed).toMatchObject({ status: "ended", end_reason: "lease_expired" });
    expect((await trigger(alice)).status).toBe(409);
    const swept = await sweepListenSessions(server.deps.webhooks, server.deps.listenHub.settings);
    expect(swept.expired).toBe(1);
    stream.close();
  });

  it("the cap holds under parallel opens: exactly the cap succeeds, the rest are 409", async () => {
    await endAll(alice);
    const opens = await Promise.all(Array.from({ length: 8 }, () => openStream(server, alice)));
    const statuses = opens.map((o) => o.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    for (const refused of opens.filter((o) => o.status === 409)) expect(refused.error.code).toBe("LISTEN_SESSION_LIMIT_REACHED");
    const open = (await call(alice, "GET", "/console/listen-sessions")).body.data.items.filter((s: any) => s.status === "open");
    expect(open).toHaveLength(3);
    for (const o of opens) o.close();
  });
});

describe("catalogue changes", () => {
  it("an import reaches an open session filtered by country, and only what matches", async () => {
    await endAll(alice);
    const stream = await openStream(server, alice, "countries=GB&events=ir21.operator.updated,ir21.operator.added");
    await stream.next();
    const next = demoDataset();
    next.operators = next.operators.map((o) => (o.id === "gb.ee" ? { ...o, brand: "EE Limited" } : o.id === "cn.china-mobile" ? { ...o, brand: "CMCC" } : o));
    await importDataset(server.deps, next);
    const fanned = await fanOutAllToListenSessions(server.deps.webhooks, catalogChangeFeed);
    expect(fanned.deliveries).toBe(1);
    server.deps.listenHub.wake();
    const delivery = (await stream.next())!.data;
    const event = JSON.parse(delivery.body);
    expect(event).toMatchObject({ type: "ir21.operator.updated", country_iso2: "GB", operator_id: "gb.ee", test: false, data: { changed_fields: ["brand"], after: { brand: "EE Limited" } } });
    stream.close();
  });
});

describe("several instances", () => {
  it("a stream on one instance gets what another instance triggered; parallel opens across instances respect the cap", async () => {
    const other = await startTestServer({ instanceOf: server });
    try {
      await endAll(alice);
      const stream = await openStream(other, alice);
      const ready = (await stream.next())!.data;
      const triggered = await trigger(alice); // on the first instance
      const delivery = (await stream.next())!.data;
      expect(delivery.delivery_id).toBe(triggered.body.data.deliveries[0].delivery_id);
      expect(signatureMatches(delivery.headers["X-IR21-Signature"], delivery.headers["X-IR21-Timestamp"], delivery.body, ready.secret)).toBe(true);
      // Reported on the first instance too.
      expect((await call(alice, "POST", `/console/listen-sessions/${ready.session.id}/deliveries/${delivery.delivery_id}/report`, { status: 204, duration_ms: 5 })).status).toBe(200);
      stream.close();
      await endAll(alice);
      const opens = await Promise.all(Array.from({ length: 8 }, (_, i) => openStream(i % 2 ? other : server, alice)));
      expect(opens.filter((o) => o.status === 200)).toHaveLength(3);
      for (const o of opens) o.close();
    } finally {
      await other.close();
    }
  });
});
