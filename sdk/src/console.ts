import { createTRPCClient, httpBatchLink, type TRPCClient } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "@ir21/server";
import { cookieFetch, memoryCookieJar, type SessionCookieJar } from "./cookies.ts";

export interface ConsoleClientOptions {
  /** The service's base URL, e.g. https://ir21.example or http://localhost:8787 */
  baseUrl: string;
  /** A fetch implementation; defaults to the global one. */
  fetch?: typeof globalThis.fetch;
  /**
   * Keeps the session cookie outside a browser (Node has no cookie store). Defaults to an in-memory
   * jar per client; pass your own to persist a sign-in. In a browser the HttpOnly cookie is the
   * browser's business and the jar stays empty.
   */
  cookies?: SessionCookieJar;
}

/**
 * The console and account API over tRPC, typed end to end from the server's router. Sign in with
 * `auth.sendCode` + `auth.login`; later calls carry the session.
 * @example
 * const ir21 = createConsoleClient({ baseUrl: "http://localhost:8787" });
 * const { challenge_id } = await ir21.auth.sendCode.mutate({ phone, agreed: true, terms_version, privacy_version });
 * await ir21.auth.login.mutate({ phone, challenge_id, code, agreed: true, terms_version, privacy_version });
 * const { key } = await ir21.console.apiKeys.create.mutate({ name: "production" });
 */
export function createConsoleClient(options: ConsoleClientOptions): TRPCClient<AppRouter> {
  const base = options.fetch ?? globalThis.fetch;
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${options.baseUrl.replace(/\/$/, "")}/trpc`,
        transformer: superjson,
        fetch: cookieFetch(base, options.cookies ?? memoryCookieJar()),
      }),
    ],
  });
}
