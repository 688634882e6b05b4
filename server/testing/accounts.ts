import { readFileSync } from "node:fs";
import { randomInt } from "node:crypto";
import { toE164 } from "../src/auth/phone.ts";
import { insertUnlessDuplicate } from "../src/db/db.ts";
import type { User } from "../src/contract/auth.ts";
import type { TestServer } from "./server.ts";

/** One message the `dev` SMS provider wrote to the test server's outbox. */
export interface OutboxMessage {
  phone: string;
  code: string;
  sent_at: string;
}

/** Every message in the server's dev SMS outbox (IR21_SMS_OUTBOX), oldest first. */
export function readOutbox(server: Pick<TestServer, "deps">): OutboxMessage[] {
  let text: string;
  try {
    text = readFileSync(server.deps.config.smsOutboxPath, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as OutboxMessage);
}

/**
 * The newest code the dev provider sent to `phone` (E.164 or 11 digits).
 * @example
 * const code = lastSmsCode(server, "+8613800138000");
 */
export function lastSmsCode(server: Pick<TestServer, "deps">, phone: string): string {
  const e164 = toE164(phone) ?? phone;
  const message = readOutbox(server).filter((m) => m.phone === e164).at(-1);
  if (!message) throw new Error(`No SMS in the outbox for ${e164}`);
  return message.code;
}

/** A random, valid mainland mobile number (138xxxxxxxx), so tests never share accounts. */
export function randomPhone(): string {
  return `138${String(randomInt(0, 100_000_000)).padStart(8, "0")}`;
}

/** The agreement fields with the server's current versions, for /auth/sms/code and /auth/login bodies. */
export function agreementOf(server: Pick<TestServer, "deps">): { agreed: true; terms_version: string; privacy_version: string } {
  const { termsVersion, privacyVersion } = server.deps.config.agreement;
  return { agreed: true, terms_version: termsVersion, privacy_version: privacyVersion };
}

export interface SignedIn {
  /** The `Cookie` request header value, e.g. `ir21_session=ses_….secret`. */
  cookie: string;
  /** Headers to spread into a request: `{ cookie }`. */
  headers: { cookie: string };
  /** The raw session token (the cookie's value). */
  token: string;
  userId: string;
  sessionId: string;
  /** E.164. */
  phone: string;
  user: User;
  created: boolean;
}

/**
 * Signs a user in through the real HTTP flow: POST /auth/sms/code, the code from the dev outbox,
 * POST /auth/login; returns the session cookie header and the user. Needs the default `dev` SMS
 * provider. Each call uses a fresh random number unless `phone` is given (then it logs that user in).
 * @example
 * const alice = await signIn(server);
 * const { body } = await server.json("/auth/me", { headers: alice.headers });
 */
export async function signIn(server: TestServer, phone: string = randomPhone()): Promise<SignedIn> {
  const agreement = agreementOf(server);
  const sent = await server.json("/auth/sms/code", { method: "POST", body: { phone, ...agreement } });
  if (sent.status !== 200) throw new Error(`signIn: /auth/sms/code answered ${sent.status} ${JSON.stringify(sent.body)}`);
  const code = lastSmsCode(server, phone);
  const response = await server.fetch("/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ phone, challenge_id: sent.body.data.challenge_id, code, ...agreement }),
  });
  const body = (await response.json()) as { data: { user: User; created: boolean } };
  if (response.status !== 200) throw new Error(`signIn: /auth/login answered ${response.status} ${JSON.stringify(body)}`);
  const setCookie = response.headers.getSetCookie().find((c) => /^(__Host-)?ir21_session=/.test(c));
  if (!setCookie) throw new Error("signIn: /auth/login set no session cookie");
  const cookie = setCookie.split(";")[0]!;
  const token = decodeURIComponent(cookie.slice(cookie.indexOf("=") + 1));
  return {
    cookie,
    headers: { cookie },
    token,
    userId: body.data.user.id,
    sessionId: token.split(".")[0]!,
    phone: body.data.user.phone,
    user: body.data.user,
    created: body.data.created,
  };
}

/**
 * Every row of every table as one JSON text, for "no secret at rest" assertions.
 * @example
 * expect(await databaseText(server)).not.toContain(token);
 */
export async function databaseText(server: Pick<TestServer, "deps">): Promise<string> {
  const tables = await server.deps.db.introspection.getTables();
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await (server.deps.db as any).selectFrom(table.name).selectAll().execute();
    parts.push(`${table.name}: ${JSON.stringify(rows)}`);
  }
  return parts.join("\n");
}

export interface CreatedApiKey {
  /** The full key (shown once by the server). */
  key: string;
  id: string;
  /** Headers to spread into a data request: `{ "x-api-key": key }`. */
  headers: { "x-api-key": string };
}

/**
 * Creates an API key for a signed-in user through the real endpoint (POST /console/api-keys).
 * @example
 * const alice = await signIn(server);
 * const { key, headers } = await createApiKey(server, alice);
 * await server.json("/v1/…", { headers });
 */
export async function createApiKey(server: TestServer, owner: Pick<SignedIn, "headers">, name = "test key"): Promise<CreatedApiKey> {
  const { status, body } = await server.json("/console/api-keys", { method: "POST", headers: owner.headers, body: { name } });
  if (status !== 200) throw new Error(`createApiKey: POST /console/api-keys answered ${status} ${JSON.stringify(body)}`);
  return { key: body.data.key, id: body.data.item.id, headers: { "x-api-key": body.data.key } };
}

/**
 * An account row with exactly this id (no sign-in flow), for service-level tests that act for an
 * owner: capped writes lock the owner's row and refuse an account that does not exist.
 * @example
 * await ensureAccount(server, "usr_queue0000000000000000");
 */
export async function ensureAccount(server: Pick<TestServer, "deps">, userId: string): Promise<void> {
  const db = server.deps.db;
  const phone = `+86199${String(randomInt(0, 100_000_000)).padStart(8, "0")}`;
  await insertUnlessDuplicate(db, db.insertInto("users").values({ id: userId, phone, name: null, plan: "free", created_at: 0 }));
}
