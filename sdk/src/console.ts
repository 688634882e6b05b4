import { createTRPCClient, httpBatchLink, type TRPCClient } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "@ir21/server";

export interface ConsoleClientOptions {
  /** The service's base URL, e.g. https://ir21.example or http://localhost:8787 */
  baseUrl: string;
  /** A fetch implementation; defaults to the global one. */
  fetch?: typeof globalThis.fetch;
}

/**
 * The console and account API over tRPC, typed end to end from the server's router.
 * @example
 * const ir21 = createConsoleClient({ baseUrl: "http://localhost:8787" });
 * await ir21.contact.submit.mutate({ name, email, company, message });
 */
export function createConsoleClient(options: ConsoleClientOptions): TRPCClient<AppRouter> {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${options.baseUrl.replace(/\/$/, "")}/trpc`,
        transformer: superjson,
        fetch: options.fetch,
      }),
    ],
  });
}
