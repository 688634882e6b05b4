import { createClient, createConsoleClient, isIr21ApiError, type DataClient, type Ir21ApiError } from "@ir21/sdk";

/**
 * The two SDK clients the console uses, both on this page's own origin. Every request uses
 * same-origin credentials (the SDK sets it): the browser sends the HttpOnly session cookie itself, and
 * nothing of the session is ever visible to this code or kept in web storage.
 */
export const api = createConsoleClient({ baseUrl: location.origin });

/**
 * The data API as the signed-in account: the session cookie gets the full projection and meters each
 * query on the account. The SDK types the full projection only for clients given a key or a cookie
 * jar; in a browser the cookie travels without one.
 */
export const data = createClient({ baseUrl: location.origin }) as unknown as DataClient<"full">;

export type { Ir21ApiError };
export { isIr21ApiError };

/** An error that means "no live session": send the person to sign in. */
export const isSignedOut = (error: unknown): boolean => isIr21ApiError(error, "UNAUTHORIZED");
