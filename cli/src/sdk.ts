import { createConsoleClient } from "@ir21/sdk";

/**
 * The CLI's one seam onto @ir21/sdk: which client to build and how to read its failures. Commands
 * call the typed clients directly; only construction and error reading live here, so an SDK release
 * that changes them is absorbed in this file.
 */

export type ConsoleClient = ReturnType<typeof createConsoleClient>;

/** A session as the SDK hands it over after sign-in (the cookie pair and when it expires). */
export interface SdkSession {
  cookie: string;
  expiresAt: string | null;
}

export interface ConsoleOptions {
  baseUrl: string;
  session: SdkSession | null;
  /** Called when the server sets a new session cookie (login, refresh) or clears it (logout). */
  onSessionChange: (session: SdkSession | null) => void;
}

export function openConsole(options: ConsoleOptions): ConsoleClient {
  let cookie = options.session?.cookie ?? null;
  return createConsoleClient({
    baseUrl: options.baseUrl,
    cookies: {
      get: () => cookie,
      set: (next: string | null, details?: { expiresAt: string | null }) => {
        if (next === cookie && details === undefined) return;
        cookie = next;
        options.onSessionChange(next === null ? null : { cookie: next, expiresAt: details?.expiresAt ?? null });
      },
    },
  });
}

/** A failure reported by the service (or by the SDK when no answer came), in the contract's terms. */
export interface ApiFailure {
  /** HTTP status; 0 when no response arrived. */
  status: number;
  code: string;
  message: string;
  requestId: string | null;
  retryAfter: number | null;
}

interface TrpcErrorLike {
  name: string;
  message: string;
  data?: { appCode?: unknown; httpStatus?: unknown; requestId?: unknown; retryAfter?: unknown } | null;
  cause?: unknown;
}

/** The service failure carried by `error`, or null when it is something else (a bug, a local error). */
export function apiFailureOf(error: unknown): ApiFailure | null {
  if (!(error instanceof Error)) return null;
  const shaped = error as Error & Partial<ApiFailure> & { status?: unknown; code?: unknown };
  // The SDK's own error class: status + string code + requestId.
  if (typeof shaped.status === "number" && typeof shaped.code === "string" && "requestId" in shaped) {
    return {
      status: shaped.status,
      code: shaped.code,
      message: shaped.message,
      requestId: typeof shaped.requestId === "string" ? shaped.requestId : null,
      retryAfter: typeof shaped.retryAfter === "number" ? shaped.retryAfter : null,
    };
  }
  const trpc = error as TrpcErrorLike;
  if (trpc.name === "TRPCClientError") {
    const data = trpc.data ?? {};
    if (typeof data.appCode === "string") {
      return {
        status: typeof data.httpStatus === "number" ? data.httpStatus : 0,
        code: data.appCode,
        message: trpc.message,
        requestId: typeof data.requestId === "string" ? data.requestId : null,
        retryAfter: typeof data.retryAfter === "number" ? data.retryAfter : null,
      };
    }
    const unreachable = trpc.cause instanceof Error && /fetch failed|ECONNREFUSED|ENOTFOUND|network/i.test(`${trpc.message} ${trpc.cause.message}`);
    return {
      status: 0,
      code: unreachable ? "NETWORK_ERROR" : "UNEXPECTED_RESPONSE",
      message: unreachable ? `Could not reach the server (${describeCause(trpc.cause)})` : trpc.message,
      requestId: null,
      retryAfter: null,
    };
  }
  return null;
}

function describeCause(cause: unknown): string {
  const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
  const code = (inner as { code?: unknown })?.code;
  return typeof code === "string" ? code : inner instanceof Error ? inner.message : String(inner);
}

/**
 * The agreement versions this CLI asks people to accept (contract "Versioning": 2026-09-08 for both the
 * terms and the privacy policy). The server does not publish its current versions; when it has moved
 * on it answers AGREEMENT_OUTDATED naming them, and `login --terms-version/--privacy-version` accept those.
 */
export const AGREEMENT_VERSIONS = { terms: "2026-09-08", privacy: "2026-09-08" } as const;
