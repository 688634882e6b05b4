/**
 * Inputs an attacker or a fuzzer sends (issue 15): forged and borrowed page cursors on every
 * cursor-paged route the OpenAPI document lists, control and bidi-override characters in names and
 * free text, and logout with only an API key. Each must be refused with the contract's error body,
 * and nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, demoDataset, importDataset, signIn, startTestServer, type SignedIn, type TestServer } from "@ir21/server/testing";

let server: TestServer;
let owner: SignedIn;
let other: SignedIn;
let key: Record<string, string>;
let cursorRoutes: string[];

beforeAll(async () => {
  server = await startTestServer({ dataset: "demo", env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  // A second version with per-record changes, so /v1/changes has more than one page too.
  server.clock.advance(60_000);
  const next = demoDataset();
  next.operators.find((o) => o.id === "gb.ee")!.brand = "EE (BT)";
  next.capabilities.find((c) => c.id === "network:460-11:nr.nsa")!.value = false;
  await importDataset(server.deps, next);
  owner = await signIn(server);
  other = await signIn(server);
  key = (await createApiKey(server, owner)).headers;
  const doc = (await server.json("/v1/openapi.json")).body as { paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>> };
  cursorRoutes = Object.entries(doc.paths)
    .filter(([, ops]) => ops.get?.parameters?.some((p) => p.name === "cursor"))
    .map(([path]) => path);
}, 120_000);
afterAll(() => server.close());

const expectInvalid = (answer: { status: number; body: any }, label: string) => {
  expect({ label, status: answer.status, code: answer.body?.code }).toEqual({ label, status: 400, code: "INVALID_REQUEST" });
  expect(Object.keys(answer.body).sort()).toEqual(["code", "message", "request_id"]);
};

/** Flips one character of the cursor's position part, keeping it base64url. */
const tamper = (cursor: string) => `${cursor[0] === "A" ? "B" : "A"}${cursor.slice(1)}`;
/** What a forger would write: the position format without a valid seal. */
const forged = (position: unknown) => Buffer.from(JSON.stringify(position)).toString("base64url");

describe("page cursors are sealed to their listing", () => {
  /** A first page of `path` (catalogue routes) that has a next page. */
  async function firstPage(path: string, query: string): Promise<string> {
    const { status, body } = await server.json(`${path}?limit=1${query}`, { headers: key });
    expect(status, `${path}${query}`).toBe(200);
    expect(body.data.next_cursor, `${path} has a second page`).toEqual(expect.any(String));
    return body.data.next_cursor;
  }
  const queryOf = (path: string) => (path === "/v1/changes" ? "&since=none" : "");

  it("on every cursor-paged /v1 route: the real cursor pages on, forged, edited or borrowed ones are 400", async () => {
    const catalogue = cursorRoutes.filter((p) => p.startsWith("/v1/"));
    expect(catalogue.length).toBeGreaterThanOrEqual(5);
    const cursors = new Map<string, string>();
    for (const path of catalogue) cursors.set(path, await firstPage(path, queryOf(path)));
    for (const path of catalogue) {
      const cursor = cursors.get(path)!;
      const at = (c: string, extra = "") => server.json(`${path}?limit=1${queryOf(path)}${extra}&cursor=${encodeURIComponent(c)}`, { headers: key });
      expect((await at(cursor)).status, `${path} second page`).toBe(200);
      expectInvalid(await at(tamper(cursor)), `${path} edited`);
      expectInvalid(await at(forged({ v: 1, k: "" })), `${path} forged catalogue position`);
      expectInvalid(await at(forged({ a: 0, u: 1, s: "none" })), `${path} forged changes position`);
      for (const [otherPath, otherCursor] of cursors) if (otherPath !== path) expectInvalid(await at(otherCursor), `${path} with a cursor of ${otherPath}`);
    }
  });

  it("a cursor is valid only with the filters it was issued for", async () => {
    const cursor = await firstPage("/v1/networks", "");
    expectInvalid(await server.json(`/v1/networks?limit=1&country=CN&cursor=${cursor}`, { headers: key }), "networks with another filter");
    const changes = await firstPage("/v1/changes", "&since=none");
    expectInvalid(await server.json(`/v1/changes?limit=1&since=none&types=ir21.operator.added&cursor=${changes}`, { headers: key }), "changes with another filter");
    // The page size is not a filter: a client may change it between pages.
    expect((await server.json(`/v1/networks?limit=2&cursor=${cursor}`, { headers: key })).status).toBe(200);
  });

  it("delivery log: a cursor belongs to its subscription, its filters and its account", async () => {
    const subscribe = async (who: SignedIn) =>
      (await server.json("/console/webhooks", { method: "POST", headers: who.headers, body: { url: "http://127.0.0.1:9/hook", events: ["ir21.operator.updated"] } })).body.data.item.id as string;
    const [a, b] = [await subscribe(owner), await subscribe(owner)];
    for (const id of [a, b]) for (let i = 0; i < 3; i++) await server.json(`/console/webhooks/${id}/test`, { method: "POST", headers: owner.headers });
    const list = (id: string, query: string, who: SignedIn = owner) => server.json(`/console/webhooks/${id}/deliveries?limit=1${query}`, { headers: who.headers });
    const first = await list(a, "");
    const cursor = first.body.data.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    expect((await list(a, `&cursor=${cursor}`)).status).toBe(200);
    expectInvalid(await list(b, `&cursor=${cursor}`), "another subscription's cursor");
    expectInvalid(await list(a, `&status=pending&cursor=${cursor}`), "another filter");
    expectInvalid(await list(a, `&cursor=${tamper(cursor)}`), "edited");
    expectInvalid(await list(a, `&cursor=${forged([Date.now(), "dlv_zzzzzzzzzz"])}`), "forged");
    // Another account cannot even name the subscription.
    const theirs = await subscribe(other);
    for (let i = 0; i < 2; i++) await server.json(`/console/webhooks/${theirs}/test`, { method: "POST", headers: other.headers });
    const theirCursor = (await list(theirs, "", other)).body.data.next_cursor as string;
    expectInvalid(await list(a, `&cursor=${theirCursor}`), "another account's cursor");
  });
});

describe("names and free text refuse control and bidi-override characters", () => {
  const hostile = {
    "NUL": "name\u0000x",
    "escape": "name\u001b[31mred",
    "right-to-left override": "invoice\u202Etxt.exe",
    "left-to-right isolate": "a\u2066b",
    "C1 control": "a\u0085b",
    "line break in a name": "two\nlines",
    "unpaired surrogate": "a\ud800b",
  };

  it.each(Object.entries(hostile))("API key names: %s is 400 and no key is created", async (_what, name) => {
    const before = (await server.json("/console/api-keys", { headers: owner.headers })).body.data.items.length;
    expectInvalid(await server.json("/console/api-keys", { method: "POST", headers: owner.headers, body: { name } }), `key name ${JSON.stringify(name)}`);
    expect((await server.json("/console/api-keys", { headers: owner.headers })).body.data.items).toHaveLength(before);
  });

  it("contact fields: hostile text is 400 in every field and nothing is stored; a multi-line message is fine", async () => {
    const inquiry = { name: "Ada", email: "ada@example.com", company: "Example Ltd", message: "Line one of the message.\nLine two,\twith a tab." };
    const stored = async () => (await server.deps.db.selectFrom("contact_inquiries").select("id").execute()).length;
    const before = await stored();
    for (const field of ["name", "company", "message"] as const) {
      for (const [what, text] of Object.entries(hostile)) {
        if (field === "message" && what === "line break in a name") continue;
        expectInvalid(await server.json("/contact", { method: "POST", body: { ...inquiry, [field]: `${inquiry[field]} ${text}` } }), `contact ${field} ${what}`);
      }
    }
    expect(await stored()).toBe(before);
    expect((await server.json("/contact", { method: "POST", body: inquiry })).status).toBe(200);
  });

  it("webhook URLs: a control character is refused, not silently dropped by the URL parser", async () => {
    expectInvalid(await server.json("/console/webhooks", { method: "POST", headers: owner.headers, body: { url: "http://127.0.0.1:9/ho\tok", events: ["ir21.operator.added"] } }), "tab in url");
  });
});

describe("logout", () => {
  it("with only an API key is 401: there is no session to end", async () => {
    const { status, body } = await server.json("/auth/logout", { method: "POST", headers: key });
    expect(status).toBe(401);
    expect(body.code).toBe("UNAUTHORIZED");
    // The key still works, and so does the owner's session.
    expect((await server.json("/v1/operators?limit=1", { headers: key })).status).toBe(200);
    expect((await server.json("/auth/me", { headers: owner.headers })).status).toBe(200);
  });

  it("without any credentials it stays idempotent (clears the cookie, logged_out)", async () => {
    const { status, body } = await server.json("/auth/logout", { method: "POST" });
    expect(status).toBe(200);
    expect(body.data).toEqual({ logged_out: true });
  });
});
