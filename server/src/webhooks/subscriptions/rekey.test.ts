import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAccount, startTestServer, type TestServer } from "../../../testing/index.ts";
import { startTestReceiver, type TestReceiver } from "../../../testing/webhook-receiver.ts";
import { rekeyCommand } from "../../app/commands/webhooks.ts";
import { createSubscription, queueTestEvent, rotateSecret } from "./subscriptions.ts";
import { ir21Headers, signatureMatches } from "../../../testing/webhooks.ts";
import { DeliveryWorker } from "../delivery/worker.ts";

/**
 * WEBHOOK_SECRETS_KEY (docs/webhooks.md "Secrets at rest"): instances of one database started with
 * different key settings, as an operator would restart the server, each delivering through the real
 * worker to a receiver that checks the signature against the secret the API returned.
 */
let legacy: TestServer;
let receiver: TestReceiver;
const instances: TestServer[] = [];
const userId = "usr_rekey000000000000000";
const key = () => randomBytes(24).toString("base64url");
const otherSessionSecret = randomBytes(32).toString("hex");

beforeAll(async () => {
  // The server as it ran before WEBHOOK_SECRETS_KEY existed: secrets sealed under SESSION_SECRET.
  legacy = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  await ensureAccount(legacy, userId);
  receiver = await startTestReceiver();
});
afterAll(async () => {
  for (const instance of instances) await instance.close();
  await receiver.close();
  await legacy.close();
});

async function instance(env: Record<string, string>): Promise<TestServer> {
  const server = await startTestServer({ instanceOf: legacy, env });
  instances.push(server);
  return server;
}

/** Delivers one test event through `server`'s worker; true when the receiver saw a valid signature under `secret`. */
async function deliversWith(server: TestServer, subscriptionId: string, secret: string, previous?: string): Promise<boolean> {
  const env = server.deps.webhooks;
  const before = receiver.requests.length;
  await queueTestEvent(env, userId, subscriptionId, { version: "v1" });
  await new DeliveryWorker(env, { random: () => 0 }).drain();
  const request = receiver.requests[before];
  if (!request) return false;
  const headers = ir21Headers(request.headers);
  const ok = signatureMatches(headers.signature, headers.timestamp, request.body, secret);
  return previous === undefined ? ok : ok && signatureMatches(headers.previous, headers.timestamp, request.body, previous);
}

describe("webhook secrets key", () => {
  it("moves from the SESSION_SECRET-derived key to WEBHOOK_SECRETS_KEY, then rotates that key, without a lost secret", async () => {
    const legacyEnv = legacy.deps.webhooks;
    const { item, secret: first } = await createSubscription(legacyEnv, userId, { url: `${receiver.url}/rekey`, events: ["ir21.catalog.updated"] });
    // A grace period, so the previous secret is re-sealed too.
    const { secret } = await rotateSecret(legacyEnv, userId, item.id, 3600);
    expect(await deliversWith(legacy, item.id, secret, first)).toBe(true);

    // 1. WEBHOOK_SECRETS_KEY set: the old secrets still open (the derived key is tried last)...
    const k1 = key();
    const withKey = await instance({ WEBHOOK_SECRETS_KEY: k1 });
    expect(await deliversWith(withKey, item.id, secret, first)).toBe(true);
    // ... and rekey re-seals them under it, once.
    expect(await rekeyCommand(withKey.deps)).toMatchObject({ rekeyed: 1, current: 0, unreadable: [] });
    expect(await rekeyCommand(withKey.deps)).toMatchObject({ rekeyed: 0, current: 1, unreadable: [] });

    // 2. Now SESSION_SECRET can change without touching webhooks; the old key alone opens nothing.
    const newSession = await instance({ WEBHOOK_SECRETS_KEY: k1, SESSION_SECRET: otherSessionSecret });
    expect(await deliversWith(newSession, item.id, secret, first)).toBe(true);
    const row = await legacy.deps.db.selectFrom("webhook_subscriptions").select(["secret_sealed"]).where("id", "=", item.id).executeTakeFirstOrThrow();
    expect(() => legacyEnv.box.open(row.secret_sealed, item.id)).toThrow();

    // 3. Key rotation: the new key seals, the previous one still opens until rekey.
    const k2 = key();
    const rotating = await instance({ WEBHOOK_SECRETS_KEY: k2, WEBHOOK_SECRETS_PREVIOUS_KEYS: `${key()}, ${k1}`, SESSION_SECRET: otherSessionSecret });
    expect(await deliversWith(rotating, item.id, secret, first)).toBe(true);
    expect(await rekeyCommand(rotating.deps)).toMatchObject({ subscriptions: 1, rekeyed: 1, unreadable: [] });
    const rotated = await instance({ WEBHOOK_SECRETS_KEY: k2, SESSION_SECRET: otherSessionSecret });
    expect(await deliversWith(rotated, item.id, secret, first)).toBe(true);

    // 4. A key that never sealed anything opens nothing: rekey says which subscriptions, and changes nothing.
    const wrong = await instance({ WEBHOOK_SECRETS_KEY: key(), SESSION_SECRET: otherSessionSecret });
    expect(await rekeyCommand(wrong.deps)).toEqual({ subscriptions: 1, rekeyed: 0, current: 0, unreadable: [item.id] });
    expect(await deliversWith(rotated, item.id, secret, first)).toBe(true);
  });

  it("a key shorter than 32 characters is a configuration error", async () => {
    await expect(startTestServer({ instanceOf: legacy, env: { WEBHOOK_SECRETS_KEY: "short" } })).rejects.toThrow(/WEBHOOK_SECRETS_KEY/);
    await expect(startTestServer({ instanceOf: legacy, env: { WEBHOOK_SECRETS_PREVIOUS_KEYS: `${key()},short` } })).rejects.toThrow(/WEBHOOK_SECRETS_PREVIOUS_KEYS/);
  });
});
