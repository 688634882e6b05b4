import type { H3 } from "h3";
import { expect } from "vitest";
import { createApp } from "../../http/app.ts";
import type { TestServer } from "../../testing/index.ts";

/**
 * The harness of the direct-answer tests (lookup-direct, lookup-batch-direct): a route's `serialised`
 * way against its generic one (`handle`, the output schema, h3's serialisation), over one server's
 * state. Only the date may differ, and the rate limit's remaining count, which must fall by one
 * between the two answers: each way counts the attempt. Request ids are given inbound, so they are
 * compared too.
 */
export interface Answer {
  status: number;
  /** Every header but `date`; the RateLimit header with its remaining count and reset as placeholders. */
  headers: Record<string, string>;
  body: string;
  /** The rate limit's remaining count, when the answer has one. */
  remaining: number | null;
}

/** Sends one request to an app (the request id given inbound) and reads its answer. */
export async function send(app: H3, path: string, init: RequestInit, requestId: string): Promise<Answer> {
  const response = await app.fetch(new Request(`http://127.0.0.1${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), "x-request-id": requestId } }));
  const headers: Record<string, string> = {};
  let remaining: number | null = null;
  for (const [name, value] of response.headers) {
    if (name === "date") continue;
    if (name === "ratelimit") {
      remaining = Number(/;r=(\d+)/.exec(value)?.[1]);
      headers[name] = value.replace(/;r=\d+/, ";r=N").replace(/;t=\d+/, ";t=T");
    } else headers[name] = value;
  }
  return { status: response.status, headers, body: await response.text(), remaining };
}

/**
 * Both ways of a server's app: `both(path, init)` sends the request the generic way, then the direct
 * way, asserts they answer alike and returns both answers (the generic one first).
 */
export function directAndGeneric(server: TestServer) {
  const direct = createApp(server.deps);
  const generic = createApp(server.deps, { directAnswers: false });
  let serial = 0;
  async function both(path: string, init: RequestInit = {}): Promise<[Answer, Answer]> {
    const id = `pair-${++serial}`;
    const reference = await send(generic, path, init, id);
    const answer = await send(direct, path, init, id);
    expect({ path, status: answer.status, headers: answer.headers, body: answer.body }).toEqual({ path, status: reference.status, headers: reference.headers, body: reference.body });
    if (reference.remaining !== null && reference.remaining > 0) expect(answer.remaining, `${path}: the direct way counts the attempt`).toBe(reference.remaining - 1);
    return [reference, answer];
  }
  return { direct, generic, both };
}
