/**
 * Listen sessions under parallel requests: opens (the per-account cap, on one instance and across
 * two), reports of one delivery (one wins), triggers (one event each, one delivery per open session).
 * Invariants are read from the database, not from the answers alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signIn, startTestServer, type SignedIn, type TestServer } from "@ir21/server/testing";
import { expectNoServerErrors, N, parallel, startConcurrencyServer, tally, type Answer } from "./harness.ts";

const CAP = 5;
let server: TestServer;
const streams: AbortController[] = [];
const held: Response[] = [];
beforeAll(async () => {
  server = await startConcurrencyServer();
});
afterAll(async () => {
  for (const stream of streams) stream.abort();
  await server.close();
});

/** Opens a stream and keeps it open (the test ends it); answers with the status and, if refused, the error body. */
async function open(owner: SignedIn, on: TestServer = server): Promise<Answer> {
  const abort = new AbortController();
  streams.push(abort);
  const response = await on.fetch("/console/listen-sessions/stream", { headers: owner.headers, signal: abort.signal });
  if (response.status !== 200) return { status: response.status, body: await response.json(), headers: response.headers };
  // Held until the test ends: undici cancels the body of a Response that is garbage-collected unread,
  // which closes the stream and so ends the session mid-test (seen once in CI: a trigger found one
  // session of two, 39 deliveries of 40).
  held.push(response);
  return { status: 200, body: null, headers: response.headers };
}

const openRows = (userId: string) =>
  server.deps.db.selectFrom("webhook_listen_sessions").select("id").where("user_id", "=", userId).where("status", "=", "open").execute();

describe("GET /console/listen-sessions/stream in parallel", () => {
  it(`${N} opens at once: exactly ${CAP} open sessions, the rest 409 LISTEN_SESSION_LIMIT_REACHED`, async () => {
    const owner = await signIn(server);
    const answers = await parallel(N, () => open(owner));
    expectNoServerErrors(answers);
    expect(tally(answers)).toEqual({ status: { 200: CAP, 409: N - CAP }, codes: { LISTEN_SESSION_LIMIT_REACHED: N - CAP } });
    expect(await openRows(owner.userId)).toHaveLength(CAP);
  });

  it("the cap holds across two instances of one deployment", async () => {
    const other = await startTestServer({ instanceOf: server });
    try {
      const owner = await signIn(server);
      const answers = await parallel(N, (i) => open(owner, i % 2 ? other : server));
      expectNoServerErrors(answers);
      expect(tally(answers).status[200]).toBe(CAP);
      expect(await openRows(owner.userId)).toHaveLength(CAP);
    } finally {
      await other.close();
    }
  });
});

describe("listen deliveries in parallel", () => {
  it(`${N} triggers at once: ${N} events, one delivery each per open session; ${N} reports of one delivery: one recorded`, async () => {
    const owner = await signIn(server);
    expect((await open(owner)).status).toBe(200);
    expect((await open(owner)).status).toBe(200);
    const triggers = await parallel(N, () => server.json("/console/listen-sessions/trigger", { method: "POST", headers: owner.headers, body: { event_type: "ir21.operator.updated" } }));
    expectNoServerErrors(triggers);
    expect(tally(triggers).status).toEqual({ 200: N });
    const rows = await server.deps.db.selectFrom("webhook_listen_deliveries").select(["id", "event_id", "session_id"]).where("user_id", "=", owner.userId).execute();
    // Which trigger answered fewer deliveries than open sessions, if any: a missed session, not a lost insert.
    const answered = triggers.map((t) => (t.body as { data?: { deliveries?: unknown[] } } | null)?.data?.deliveries?.length ?? null);
    expect(rows, `deliveries per trigger answer: ${JSON.stringify(answered)}`).toHaveLength(2 * N);
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(N);

    // One delivery on the stream, awaiting its report; N forwarders report it at once.
    const target = rows[0]!;
    await server.deps.db.updateTable("webhook_listen_deliveries").set({ status: "pending", sent_at: server.clock.now().getTime(), attempts: 1 }).where("id", "=", target.id).execute();
    const reports = await parallel(N, (i) =>
      server.json(`/console/listen-sessions/${target.session_id}/deliveries/${target.id}/report`, { method: "POST", headers: owner.headers, body: { status: 200 + i, duration_ms: i } }),
    );
    expectNoServerErrors(reports);
    expect(tally(reports)).toEqual({ status: { 200: 1, 409: N - 1 }, codes: { CONFLICT: N - 1 } });
    const attempts = await server.deps.db.selectFrom("webhook_attempts").select(["response_status"]).where("delivery_id", "=", target.id).execute();
    expect(attempts).toHaveLength(1);
    const winner = reports.findIndex((r) => r.status === 200);
    expect(attempts[0]!.response_status).toBe(200 + winner);
  });
});
