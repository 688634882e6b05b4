import { createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Webhook, WebhookVerificationError as StandardVerificationError } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createConsoleClient, memoryCookieJar, type ConsoleClient } from "@ir21/sdk";
import { verifyWebhook, WebhookVerificationError, type WebhookScheme } from "@ir21/sdk/webhooks";
import { catalogChangeFeed, DeliveryWorker, demoDataset, fanOutAll, importDataset, signIn, startTestReceiver, startTestServer, type ReceivedRequest, type SignedIn, type TestReceiver, type TestServer } from "@ir21/server/testing";

/**
 * Standard Webhooks (docs/webhooks.md "Standard Webhooks"), checked by the specification's own
 * JavaScript library, `standardwebhooks`, as the independent verifier: real deliveries from the real
 * server to a local receiver, before, during and after a rotation, keyed by the secret exactly as ir21
 * shows it; the SDK's verifier on both schemes; and the file's standard vectors.
 */

interface Vector {
  name: string;
  secrets: string[];
  standard_secrets: string[];
  now: number;
  headers: Record<string, string>;
  body: string;
  expected: string;
}
const vectors = (
  JSON.parse(readFileSync(fileURLToPath(new URL("../../docs/webhook-signature-vectors.json", import.meta.url)), "utf8")) as { standard_webhooks: { vectors: Vector[] } }
).standard_webhooks.vectors;

/** The forms a receiver can hand a secret to the library in: the raw key as ir21 shows it, or "whsec_" + its base64. */
type Key = { raw: string } | { base64Form: string } | { plain: string };

/**
 * The library's verdict: "valid", or its error message. It reads the clock from Date.now(), so the
 * receiver's clock is set to `nowMs` for the (synchronous) call only.
 */
function standardVerdict(key: Key, body: string, headers: Record<string, string>, nowMs: number): string {
  const spy = vi.spyOn(Date, "now").mockReturnValue(nowMs);
  try {
    const webhook = "raw" in key ? new Webhook(key.raw, { format: "raw" }) : new Webhook("base64Form" in key ? key.base64Form : key.plain);
    // Signature only: the body's own checks are ir21's receiver rules, not the specification's.
    webhook.verify(body, headers, { jsonParse: false });
    return "valid";
  } catch (error) {
    if (error instanceof StandardVerificationError || error instanceof Error) return error.message;
    throw error;
  } finally {
    spy.mockRestore();
  }
}

/** What the docs tell a receiver to pass to a library's ordinary constructor. */
const base64Form = (secret: string) => `whsec_${Buffer.from(secret, "utf8").toString("base64")}`;

/** The request's headers as a receiver's framework gives them (node:http: lower-case names, string values). */
const headersOf = (request: ReceivedRequest) => Object.fromEntries(Object.entries(request.headers).filter((e): e is [string, string] => typeof e[1] === "string"));

describe("the file's Standard Webhooks vectors, checked by standardwebhooks", () => {
  it("standard_secrets is \"whsec_\" and the base64 of each secret's UTF-8 bytes", () => {
    for (const v of vectors) expect(v.standard_secrets, v.name).toEqual(v.secrets.map(base64Form));
  });

  it.each(vectors.map((v) => [v.name, v] as const))("%s: the library agrees with the expected outcome, keyed either way", (_name, v) => {
    // MALFORMED_BODY and EVENT_ID_MISMATCH are ir21's receiver rules after a valid signature: the
    // library, which checks signatures only, accepts those deliveries.
    const signatureValid = ["valid", "MALFORMED_BODY", "EVENT_ID_MISMATCH"].includes(v.expected);
    const nowMs = v.now * 1000;
    const verdicts = [...v.secrets.map((raw) => standardVerdict({ raw }, v.body, v.headers, nowMs)), ...v.standard_secrets.map((base64Form) => standardVerdict({ base64Form }, v.body, v.headers, nowMs))];
    // A receiver holding several secrets tries each: valid when one is.
    expect(verdicts.includes("valid"), verdicts.join("; ")).toBe(signatureValid);
    if (!signatureValid) expect(verdicts.every((verdict) => /signature|header|timestamp/i.test(verdict)), verdicts.join("; ")).toBe(true);
  });
});

let server: TestServer;
let account: SignedIn;
let ir21: ConsoleClient;
let worker: DeliveryWorker;
let receiver: TestReceiver;

beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" }, dataset: "demo" });
  // The initial import is behind the fan-out cursor before anyone subscribes, as in production.
  await fanOutAll(server.deps.webhooks, catalogChangeFeed);
  account = await signIn(server);
  ir21 = createConsoleClient({ baseUrl: server.url, cookies: memoryCookieJar(account.cookie) });
  worker = new DeliveryWorker(server.deps.webhooks, { random: () => 0 });
});
afterAll(() => server.close());
beforeEach(async () => {
  receiver = await startTestReceiver();
});
afterEach(() => receiver.close());

const nowMs = () => server.clock.now().getTime();
const call = (method: string, path: string, body?: unknown) => server.json(path, { method, body, headers: { cookie: account.cookie } });

async function subscribe(events: string[] = ["ir21.operator.updated"]): Promise<{ id: string; secret: string }> {
  const { item, secret } = await ir21.webhooks.create.mutate({ url: `${receiver.url}/hook`, events: events as ["ir21.operator.updated"] });
  return { id: item.id, secret };
}

/** Queues a test event, lets the worker send it, and returns what the receiver got. */
async function deliverTest(id: string): Promise<ReceivedRequest> {
  const before = receiver.requests.length;
  await ir21.webhooks.sendTest.mutate({ id });
  expect(await worker.drain()).toBeGreaterThanOrEqual(1);
  expect(receiver.requests).toHaveLength(before + 1);
  return receiver.requests.at(-1)!;
}

/** ir21's own header, checked independently of the server's signer: hex HMAC of `timestamp.body`. */
const ir21Signature = (secret: string, request: ReceivedRequest) => `v1=${createHmac("sha256", secret).update(`${request.headers["x-ir21-timestamp"]}.${request.body}`).digest("hex")}`;

const signatureEntries = (request: ReceivedRequest) => String(request.headers["webhook-signature"]).split(" ");

describe("real deliveries verify with standardwebhooks", () => {
  it("a test event and a catalogue event: the standard headers beside ours, keyed by the secret as ir21 shows it", async () => {
    const { id, secret } = await subscribe(["ir21.operator.updated", "ir21.number_range.added"]);
    await deliverTest(id);
    const next = demoDataset();
    next.numberRanges.push({ ...next.numberRanges[0]!, id: "e164-86199", prefix: "86199" });
    await importDataset(server.deps, next);
    await fanOutAll(server.deps.webhooks, catalogChangeFeed);
    await worker.drain();
    const types = receiver.requests.map((request) => JSON.parse(request.body) as { id: string; type: string; test: boolean });
    expect(types.map((event) => [event.type, event.test])).toEqual([
      ["ir21.operator.updated", true],
      ["ir21.number_range.added", false],
    ]);

    for (const [index, request] of receiver.requests.entries()) {
      const headers = headersOf(request);
      const event = types[index]!;
      // Ours exactly as the contract says, and the standard three beside them, nothing else signed.
      expect(Object.keys(headers).filter((name) => name.startsWith("x-ir21-") || name.startsWith("webhook-")).sort()).toEqual(
        ["webhook-id", "webhook-signature", "webhook-timestamp", "x-ir21-event-id", "x-ir21-signature", "x-ir21-timestamp"],
      );
      expect(headers["x-ir21-signature"]).toBe(ir21Signature(secret, request));
      expect(headers["webhook-id"]).toBe(event.id);
      expect(headers["x-ir21-event-id"]).toBe(event.id);
      expect(headers["webhook-timestamp"]).toBe(String(Math.floor(nowMs() / 1000)));
      expect(headers["x-ir21-timestamp"]).toBe(headers["webhook-timestamp"]);
      expect(signatureEntries(request)).toHaveLength(1);

      expect(standardVerdict({ raw: secret }, request.body, headers, nowMs())).toBe("valid");
      expect(standardVerdict({ base64Form: base64Form(secret) }, request.body, headers, nowMs())).toBe("valid");
      // The library's ordinary reading of the secret as shown (base64 after the prefix) is not ir21's key.
      expect(standardVerdict({ plain: secret }, request.body, headers, nowMs())).not.toBe("valid");
      // Tampered body, another id, another secret, a stale clock: refused.
      expect(standardVerdict({ raw: secret }, request.body.replace('"test":', '"test" :'), headers, nowMs())).toBe("No matching signature found");
      expect(standardVerdict({ raw: secret }, request.body, { ...headers, "webhook-id": "evt_someone_else" }, nowMs())).toBe("No matching signature found");
      expect(standardVerdict({ raw: `whsec_${randomBytes(32).toString("base64url")}` }, request.body, headers, nowMs())).toBe("No matching signature found");
      expect(standardVerdict({ raw: secret }, request.body, headers, nowMs() + 301_000)).toBe("Message timestamp too old");
    }
  });

  it("a retry is signed afresh: the same webhook-id, a new webhook-timestamp, each attempt valid", async () => {
    const { id, secret } = await subscribe();
    receiver.respond({ status: 503 });
    const first = await deliverTest(id);
    const firstAt = nowMs();
    expect(standardVerdict({ raw: secret }, first.body, headersOf(first), firstAt)).toBe("valid");
    server.clock.advance(60_000);
    await worker.drain();
    const second = receiver.requests.at(-1)!;
    expect(second).not.toBe(first);
    expect(second.body).toBe(first.body);
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(Number(second.headers["webhook-timestamp"])).toBe(Number(first.headers["webhook-timestamp"]) + 60);
    expect(standardVerdict({ raw: secret }, second.body, headersOf(second), nowMs())).toBe("valid");
    // The first attempt's headers replayed now are too old for the library.
    expect(standardVerdict({ raw: secret }, first.body, headersOf(first), firstAt + 301_000)).toBe("Message timestamp too old");
  });

  it("rotation: before, during (both signatures, either secret alone verifies), at expiry, and after revoking the previous secret", async () => {
    const { id, secret: first } = await subscribe();
    const path = `/console/webhooks/${id}`;
    const verdicts = (request: ReceivedRequest, ...secrets: string[]) => secrets.map((raw) => standardVerdict({ raw }, request.body, headersOf(request), nowMs()));

    const before = await deliverTest(id);
    expect(signatureEntries(before)).toHaveLength(1);
    expect(verdicts(before, first)).toEqual(["valid"]);

    const rotated = await call("POST", `${path}/rotate-secret`, { grace_seconds: 600 });
    expect(rotated.status).toBe(200);
    const second: string = rotated.body.data.secret;
    const expiresAt = Date.parse(rotated.body.data.previous_secret_expires_at);
    expect(expiresAt).toBe(nowMs() + 600_000);

    server.clock.set(expiresAt - 1_000);
    const during = await deliverTest(id);
    const entries = signatureEntries(during);
    expect(entries).toHaveLength(2);
    expect(entries.every((entry) => /^v1,[A-Za-z0-9+/]{43}=$/.test(entry))).toBe(true);
    // A receiver that switched, one that has not yet, and a stranger.
    expect(verdicts(during, second, first, `whsec_${randomBytes(32).toString("base64url")}`)).toEqual(["valid", "valid", "No matching signature found"]);
    // The current secret's signature comes first, the previous one's second.
    const only = (entry: string) => ({ ...headersOf(during), "webhook-signature": entry });
    expect(standardVerdict({ raw: second }, during.body, only(entries[0]!), nowMs())).toBe("valid");
    expect(standardVerdict({ raw: first }, during.body, only(entries[0]!), nowMs())).not.toBe("valid");
    expect(standardVerdict({ raw: first }, during.body, only(entries[1]!), nowMs())).toBe("valid");
    // Ours still carry the same pair, in their own headers.
    expect(during.headers["x-ir21-signature"]).toBe(ir21Signature(second, during));
    expect(during.headers["x-ir21-signature-previous"]).toBe(ir21Signature(first, during));

    // Expiry, on the injected clock: from that instant only the new secret signs.
    server.clock.set(expiresAt);
    const after = await deliverTest(id);
    expect(signatureEntries(after)).toHaveLength(1);
    expect(after.headers["x-ir21-signature-previous"]).toBeUndefined();
    expect(verdicts(after, second, first)).toEqual(["valid", "No matching signature found"]);

    // A second rotation, its previous secret revoked at once.
    const third = await call("POST", `${path}/rotate-secret`, {});
    expect(third.status).toBe(200);
    const graced = await deliverTest(id);
    expect(verdicts(graced, third.body.data.secret, second)).toEqual(["valid", "valid"]);
    expect((await call("DELETE", `${path}/previous-secret`)).body.data).toEqual({ revoked: true });
    const revoked = await deliverTest(id);
    expect(signatureEntries(revoked)).toHaveLength(1);
    expect(verdicts(revoked, third.body.data.secret, second)).toEqual(["valid", "No matching signature found"]);
  });
});

describe("the SDK's verifyWebhook on a real delivery", () => {
  it("verifies ours, the standard headers alone, and either scheme pinned; refuses tampering in both", async () => {
    const { id, secret } = await subscribe();
    const request = await deliverTest(id);
    const headers = headersOf(request);
    const now = server.clock.now();
    const verify = (input: { headers?: Record<string, string>; rawBody?: string; secrets?: string; scheme?: WebhookScheme }) =>
      verifyWebhook({ rawBody: request.body, headers, secrets: secret, now, ...input }).then(
        (event) => event.id,
        (error: unknown) => (error instanceof WebhookVerificationError ? error.code : Promise.reject(error)),
      );
    const eventId = JSON.parse(request.body).id as string;
    const standardOnly = Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith("x-ir21-")));
    const ir21Only = Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith("webhook-")));

    expect(await verify({})).toBe(eventId);
    expect(await verify({ headers: standardOnly })).toBe(eventId);
    expect(await verify({ headers: ir21Only })).toBe(eventId);
    expect(await verify({ scheme: "standard" })).toBe(eventId);
    expect(await verify({ scheme: "ir21" })).toBe(eventId);
    expect(await verify({ headers: standardOnly, scheme: "ir21" })).toBe("MISSING_HEADER");
    expect(await verify({ headers: ir21Only, scheme: "standard" })).toBe("MISSING_HEADER");
    for (const scheme of ["ir21", "standard"] as const) {
      expect(await verify({ scheme, rawBody: `${request.body} ` })).toBe("SIGNATURE_MISMATCH");
      expect(await verify({ scheme, secrets: `whsec_${randomBytes(32).toString("base64url")}` })).toBe("SIGNATURE_MISMATCH");
    }
  });
});
