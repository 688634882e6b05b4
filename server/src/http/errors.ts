import { TRPCError } from "@trpc/server";
import { HTTPError, type H3Event } from "h3";
import { ERROR_CODES, isErrorCode, type ErrorCode } from "../contract/errors.ts";
import type { ErrorBody } from "../contract/envelope.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { requestIdOf } from "./request-id.ts";
import { VERSION_LABEL } from "../version.ts";

export interface ContractError {
  status: number;
  code: ErrorCode;
  message: string;
  headers: Record<string, string>;
  /** True when the cause is a server fault that must be logged (the body says nothing of it). */
  unexpected: boolean;
}

export interface ValidationIssue {
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
  message: string;
  params?: { appCode?: unknown };
}

function issuesOf(cause: unknown): ValidationIssue[] | null {
  const issues = (cause as { issues?: unknown } | undefined)?.issues;
  return Array.isArray(issues) ? (issues as ValidationIssue[]) : null;
}

/**
 * One readable line from validation issues: "name: Too big: expected string to have <=100 characters".
 * A schema may name a more specific contract code for an issue with `params: { appCode }`.
 */
export function fromIssues(issues: ValidationIssue[]): { code: ErrorCode; message: string } {
  const specific = issues.map((i) => i.params?.appCode).find(isErrorCode);
  const message = issues
    .slice(0, 5)
    .map((i) => {
      const path = (i.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join("; ");
  return { code: specific ?? "INVALID_REQUEST", message: message || ERROR_CODES.INVALID_REQUEST.description };
}

const TRPC_TO_CONTRACT: Partial<Record<TRPCError["code"], ErrorCode>> = {
  PARSE_ERROR: "MALFORMED_JSON",
  BAD_REQUEST: "INVALID_REQUEST",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_SUPPORTED: "METHOD_NOT_ALLOWED",
  CONFLICT: "CONFLICT",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  TOO_MANY_REQUESTS: "RATE_LIMITED",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
};

const H3_STATUS_TO_CONTRACT: Record<number, ErrorCode> = {
  400: "INVALID_REQUEST",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
};

function make(code: ErrorCode, message: string, headers: Record<string, string> = {}, unexpected = false): ContractError {
  return { status: ERROR_CODES[code].status, code, message, headers, unexpected };
}

/**
 * Unwraps what tRPC and h3 put around a thrown error (tRPC's INTERNAL_SERVER_ERROR, h3's "unhandled"
 * HTTPError) to reach the error that says what happened; an AppError anywhere in the chain wins.
 */
function innermost(error: unknown): unknown {
  let e = error;
  for (let depth = 0; depth < 5; depth++) {
    if (e instanceof AppError) return e;
    const cause = (e as { cause?: unknown } | null)?.cause;
    if (cause instanceof AppError) return cause;
    const isWrapper = (e instanceof TRPCError && e.code === "INTERNAL_SERVER_ERROR") || (HTTPError.isError(e) && e.unhandled);
    if (!isWrapper || !(cause instanceof Error)) return e;
    e = cause;
  }
  return e;
}

/**
 * Maps anything thrown on a request path to the contract's error: an {@link AppError} as it is,
 * tRPC and h3 errors by their kind, and everything else to INTERNAL_ERROR with a fixed message, so no
 * stack or internal text ever reaches a client.
 */
export function toContractError(error: unknown): ContractError {
  const e = innermost(error);
  if (e instanceof AppError) return make(e.code, e.message, e.headers);

  if (e instanceof TRPCError) {
    const issues = issuesOf(e.cause);
    if (e.code === "BAD_REQUEST" && issues) {
      const { code, message } = fromIssues(issues);
      return make(code, message);
    }
    if (e.code === "PARSE_ERROR") return make("MALFORMED_JSON", "The request body is not valid JSON.");
    const code = TRPC_TO_CONTRACT[e.code];
    if (code) return make(code, e.message || ERROR_CODES[code].description);
    return make("INTERNAL_ERROR", ERROR_CODES.INTERNAL_ERROR.description, {}, true);
  }

  if (HTTPError.isError(e) && !e.unhandled) {
    const code = H3_STATUS_TO_CONTRACT[e.status];
    if (code === "INVALID_REQUEST" && /json/i.test(e.message)) return make("MALFORMED_JSON", "The request body is not valid JSON.");
    if (code === "NOT_FOUND") return make(code, "No such route.");
    if (code) return make(code, ERROR_CODES[code].description);
  }
  return make("INTERNAL_ERROR", ERROR_CODES.INTERNAL_ERROR.description, {}, true);
}

/**
 * Logs the server fault behind a contract error (its answer says nothing of it); an error that is
 * the caller's is not logged. `fields` name the request (request_id, and a procedure's path).
 */
export function logIfUnexpected(log: Logger, error: unknown, contract: ContractError, fields: Record<string, unknown>, message = "unexpected error"): void {
  if (contract.unexpected) log.error({ err: (error as { cause?: unknown } | null)?.cause ?? error, ...fields }, message);
}

/**
 * The answer to a contract error: exactly {code, message, request_id}, never cached, with the request
 * id and the server's version as on every answer, and the error's own headers (Retry-After). Header
 * names in lower case, as a `Headers` object gives them.
 */
export function errorAnswer(error: ContractError, requestId: string): { status: number; headers: Record<string, string>; body: string } {
  const body: ErrorBody = { code: error.code, message: error.message, request_id: requestId };
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "x-request-id": requestId,
    "x-ir21-version": VERSION_LABEL,
  };
  for (const name in error.headers) headers[name.toLowerCase()] = error.headers[name]!;
  return { status: error.status, headers, body: JSON.stringify(body) };
}

/**
 * The HTTP response for a contract error ({@link errorAnswer}). It carries the headers a handler
 * staged for error answers on `event.res.errHeaders` (h3 does not merge them into a Response returned
 * by onError; e.g. the RateLimit fields of an admitted /v1 query that then failed), then the answer's
 * own, which win.
 */
export function errorResponse(event: H3Event, error: ContractError): Response {
  const answer = errorAnswer(error, requestIdOf(event));
  const headers = new Headers(event.res.errHeaders);
  for (const name in answer.headers) headers.set(name, answer.headers[name]!);
  return new Response(answer.body, { status: answer.status, headers });
}
