/**
 * What came back on a fuzzed connection, parsed by node's own HTTP parser (llhttp, the one node's
 * http client runs) and checked against the contract: well-formed HTTP answers whose error bodies are
 * `{code, message, request_id}` with the status the error table gives their code, no 5xx but a 503 of
 * a documented cause, never an HTML page or a stack trace for an error.
 *
 * Why llhttp through `_http_common`: no maintained npm package exposes llhttp on its own (undici's copy
 * is internal), http-parser-js is lenient (it skips a malformed header line and reads any chunk size
 * with parseInt), and node's http client refuses several pipelined answers on one socket. The parser
 * node exports as `_http_common.HTTPParser` (listed in `module.builtinModules`) is strict, takes a byte
 * stream of many answers, and knows 1xx and close-delimited bodies; `initialize` with no lenient flags.
 */
import { createRequire } from "node:module";
import { ERROR_CODES } from "@ir21/server";

interface LlhttpParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  execute(data: Buffer): number | (Error & { code?: string; bytesParsed?: number; reason?: string });
  finish(): undefined | (Error & { code?: string; reason?: string });
  close(): void;
  [callback: number]: unknown;
}
interface LlhttpModule {
  HTTPParser: {
    new (): LlhttpParser;
    RESPONSE: number;
    kOnHeaders: number;
    kOnHeadersComplete: number;
    kOnBody: number;
    kOnMessageComplete: number;
    kLenientNone: number;
  };
}
const { HTTPParser } = createRequire(import.meta.url)("_http_common") as LlhttpModule;

export interface Answer {
  status: number;
  reason: string;
  /** Header names lower-cased, values as sent (repeated names joined with ", "). */
  headers: Record<string, string>;
  body: Buffer;
  /** The parser saw the whole message (false: the bytes ended inside it). */
  complete: boolean;
  /** The parser was told to expect no body (the answer to a HEAD). */
  bodiless: boolean;
}

export interface Parsed {
  answers: Answer[];
  /** Why the bytes are not a sequence of HTTP answers, when they are not. */
  error: string | null;
}

/**
 * Parses a stream of answers. `headAt(i)` says the i-th final answer answers a HEAD (no body follows).
 * @example
 * parseAnswers(Buffer.from("HTTP/1.1 204 No Content\r\n\r\n"), () => false).answers[0].status; // 204
 */
export function parseAnswers(bytes: Buffer, headAt: (finalIndex: number) => boolean): Parsed {
  const parser = new HTTPParser();
  parser.initialize(HTTPParser.RESPONSE, {}, 0, HTTPParser.kLenientNone);
  const answers: Answer[] = [];
  const bodies: Buffer[][] = [];
  let pendingHeaders: string[] = [];
  let finals = 0;
  // Node's parser hands headers over in batches of 32 (kOnHeaders) before the rest at kOnHeadersComplete.
  parser[HTTPParser.kOnHeaders] = (headers: string[]) => void pendingHeaders.push(...headers);
  parser[HTTPParser.kOnHeadersComplete] = (_major: number, _minor: number, headers: string[], _method: number, _url: string, status: number, reason: string) => {
    const all = [...pendingHeaders, ...(headers ?? [])];
    pendingHeaders = [];
    const record: Record<string, string> = {};
    for (let i = 0; i + 1 < all.length; i += 2) {
      const name = all[i]!.toLowerCase();
      record[name] = record[name] === undefined ? all[i + 1]! : `${record[name]}, ${all[i + 1]}`;
    }
    const bodiless = status >= 200 && headAt(finals);
    if (status >= 200) finals++;
    answers.push({ status, reason, headers: record, body: Buffer.alloc(0), complete: false, bodiless });
    bodies.push([]);
    return bodiless ? 1 : 0;
  };
  parser[HTTPParser.kOnBody] = (chunk: Buffer) => void bodies.at(-1)!.push(Buffer.from(chunk));
  parser[HTTPParser.kOnMessageComplete] = () => {
    answers.at(-1)!.complete = true;
  };
  let error: string | null = null;
  const executed = parser.execute(bytes);
  if (executed instanceof Error) error = `${executed.code ?? "parse error"} (${executed.reason ?? executed.message}) at byte ${executed.bytesParsed ?? "?"}`;
  else {
    // The end of the stream completes a close-delimited body; inside any other message it is an error.
    const ended = parser.finish();
    if (ended instanceof Error && !(answers.length && isStream(answers.at(-1)!))) error = `the bytes end inside an answer (${ended.code ?? ended.message})`;
  }
  parser.close();
  answers.forEach((a, i) => (a.body = Buffer.concat(bodies[i]!)));
  return { answers, error };
}

/** A server-sent event stream never ends by itself: cut off by the client is its normal end. */
export const isStream = (answer: Answer) => /^text\/event-stream/i.test(answer.headers["content-type"] ?? "");

/**
 * Parses answers for a case's requests: a HEAD's answer has no body, but which answer belongs to which
 * request is the server's reading of the bytes (a refusal before the app, with a body, may answer a
 * HEAD). So: the requests' own order first, then every answer with its body; the first that parses.
 */
export function parseForRequests(bytes: Buffer, methods: string[]): Parsed {
  const byOrder = parseAnswers(bytes, (i) => methods[i] === "HEAD");
  if (!byOrder.error || !methods.includes("HEAD")) return byOrder;
  const withBodies = parseAnswers(bytes, () => false);
  return withBodies.error ? byOrder : withBodies;
}

/** Error codes whose status is 503: the documented causes (database, Redis, SMS, no dataset, shutting down). */
const DOCUMENTED_503 = new Set(Object.entries(ERROR_CODES).filter(([, row]) => row.status === 503).map(([code]) => code));
/** A V8 stack frame naming a source file ("at fn (file:///…/x.ts:12:5)"), also inside a JSON string. */
const STACK_TRACE = /\bat\s[^"\n]*?[\w/.-]+\.[cm]?[jt]sx?:\d+:\d+/;

/**
 * Everything wrong with one answer, as sentences (empty when it keeps the contract). `trpc`: the case
 * sent to /trpc, whose answers speak tRPC's protocol (the SDK's wire, not the frozen REST contract):
 * an error there is tRPC's shape, `{error: {json: {message, data: {appCode, httpStatus, …}}}}`, or an
 * array of results for a batch, with the same error table behind `appCode`.
 */
export function contractProblems(answer: Answer, options: { trpc: boolean }): string[] {
  const problems: string[] = [];
  const { status } = answer;
  const type = answer.headers["content-type"] ?? "";
  if (status < 200) {
    if (status !== 100) problems.push(`an interim ${status} answer (only 100 Continue is expected)`);
    return problems;
  }
  if (status === 101) problems.push("101 Switching Protocols although the server speaks no other protocol");
  if (status < 400) return problems;
  if (!/^application\/json/i.test(type)) problems.push(`an error answer's Content-Type is ${JSON.stringify(type)}, not JSON`);
  if (answer.bodiless) {
    if (status >= 500 && status !== 503) problems.push(`a ${status} answer`);
    return problems;
  }
  const text = answer.body.toString("utf8");
  if (STACK_TRACE.test(text)) problems.push(`a stack trace in the error body: ${JSON.stringify(text.slice(0, 300))}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    problems.push(`the error body is not JSON: ${JSON.stringify(text.slice(0, 300))}`);
    return problems;
  }
  const trpcErrors = options.trpc ? trpcErrorsOf(body) : null;
  if (trpcErrors) {
    for (const error of trpcErrors) problems.push(...codeProblems(error.appCode, error.httpStatus, error.message));
    if (trpcErrors.length === 1 && trpcErrors[0]!.httpStatus !== status) problems.push(`tRPC's httpStatus ${String(trpcErrors[0]!.httpStatus)} differs from the answer's ${status}`);
    return problems;
  }
  const keys = body && typeof body === "object" ? Object.keys(body).sort() : [];
  if (keys.join() !== "code,message,request_id") problems.push(`the error body's fields are [${keys.join(", ")}], not code, message, request_id: ${text.slice(0, 300)}`);
  const { code, message, request_id } = (body ?? {}) as Record<string, unknown>;
  problems.push(...codeProblems(code, status, message));
  if (typeof request_id !== "string" || !/^req_/.test(request_id)) problems.push(`request_id ${JSON.stringify(request_id)} is not a request id`);
  else if (answer.headers["x-request-id"] !== request_id) problems.push(`X-Request-Id ${JSON.stringify(answer.headers["x-request-id"])} differs from the body's request_id`);
  return problems;
}

/** An error code against the error table: known, with this status, a message, and no 5xx but a documented 503. */
function codeProblems(code: unknown, status: unknown, message: unknown): string[] {
  const problems: string[] = [];
  const row = typeof code === "string" ? (ERROR_CODES as Record<string, { status: number }>)[code] : undefined;
  if (!row) problems.push(`the error code ${JSON.stringify(code)} is not in the error table`);
  else if (row.status !== status) problems.push(`${String(code)} is answered ${String(status)}, but the error table gives it ${row.status}`);
  if (typeof message !== "string" || message === "") problems.push("the error has no message");
  if (typeof status === "number" && status >= 500 && !(status === 503 && typeof code === "string" && DOCUMENTED_503.has(code))) problems.push(`a ${status} answer (${String(code)}): no 5xx but a 503 of a documented cause`);
  return problems;
}

/** The errors of a tRPC answer (one, or a batch's), or null when the body is not tRPC's shape. */
function trpcErrorsOf(body: unknown): Array<{ appCode: unknown; httpStatus: unknown; message: unknown }> | null {
  const items = Array.isArray(body) ? body : [body];
  const errors = [];
  for (const item of items) {
    if (!item || typeof item !== "object") return null;
    if ("result" in item) continue;
    const json = (item as { error?: { json?: { message?: unknown; data?: { appCode?: unknown; httpStatus?: unknown } } } }).error?.json;
    if (!json?.data) return null;
    errors.push({ appCode: json.data.appCode, httpStatus: json.data.httpStatus, message: json.message });
  }
  return errors;
}
