/**
 * The concurrency suite's tools (docs/architecture.md "Writes"): N requests fired at once through the
 * real HTTP server, and tallies of what came back. Each test then checks invariants against the
 * database itself — caps exact, one winner for a single-use thing, no duplicate rows, no SMS without
 * its challenge — never against the answers alone.
 */
import { createHmac } from "node:crypto";
import { expect } from "vitest";
import { readOutbox, startTestServer, type OutboxMessage, type TestServer } from "@ir21/server/testing";

/** Requests per case: the issue asks for at least 20. */
export const N = 20;

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** Fires `n` calls at once (all started before any is awaited) and returns their answers in order. */
export async function parallel(n: number, call: (i: number) => Promise<Answer>): Promise<Answer[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => call(i)));
}

/** How many answers had each status, e.g. { 200: 20, 409: 10 }, and each error code. */
export function tally(answers: Answer[]): { status: Record<number, number>; codes: Record<string, number> } {
  const status: Record<number, number> = {};
  const codes: Record<string, number> = {};
  for (const a of answers) {
    status[a.status] = (status[a.status] ?? 0) + 1;
    if (a.status >= 400) codes[a.body?.code ?? "?"] = (codes[a.body?.code ?? "?"] ?? 0) + 1;
  }
  return { status, codes };
}

/** The first invariant of every case: no answer is a server fault, and every refusal is the contract's error body. */
export function expectNoServerErrors(answers: Answer[]): void {
  const faults = answers.filter((a) => a.status >= 500);
  expect(faults.map((a) => `${a.status} ${a.body?.code}: ${a.body?.message}`), "5xx answers").toEqual([]);
  for (const a of answers.filter((x) => x.status >= 400)) {
    expect(Object.keys(a.body ?? {}).sort()).toEqual(["code", "message", "request_id"]);
  }
}

/**
 * The suite's server: the real one, with Redis on the mysql target, behind a trusted proxy so each
 * test speaks from its own client address (X-Forwarded-For) and per-address caps of one test never
 * touch another's.
 */
export function startConcurrencyServer(env: Record<string, string> = {}, options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  return startTestServer({ ...options, env: { TRUST_PROXY: "true", ...env } });
}

let lastAddress = 0;
/** A client address no other test in this process uses (TEST-NET-3 and beyond). */
export function freshAddress(): string {
  lastAddress++;
  return `203.0.${113 + Math.floor(lastAddress / 250)}.${(lastAddress % 250) + 1}`;
}

export interface StoredChallenge {
  id: string;
  phone: string;
  code_mac: string;
}

/**
 * The stored challenge an outbox message's code belongs to, found the way docs/auth.md describes
 * the column (HMAC-SHA256 under OTP_PEPPER of `challenge_id:phone:code`), or undefined when the
 * message was sent for no stored challenge.
 */
export function challengeOf(server: TestServer, message: OutboxMessage, challenges: StoredChallenge[]): StoredChallenge | undefined {
  const pepper = server.deps.secrets.otpPepper;
  return challenges.find((c) => c.phone === message.phone && createHmac("sha256", pepper).update(`${c.id}:${c.phone}:${message.code}`).digest("hex") === c.code_mac);
}

/** Outbox messages to these phones (E.164). */
export function messagesTo(server: TestServer, phones: Iterable<string>): OutboxMessage[] {
  const wanted = new Set(phones);
  return readOutbox(server).filter((m) => wanted.has(m.phone));
}
