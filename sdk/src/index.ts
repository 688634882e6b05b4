/**
 * @ir21/sdk: typed clients for the ir21 communications data service.
 */
export { createConsoleClient, type ConsoleClientOptions } from "./console.ts";
export { cookieFetch, memoryCookieJar, type SessionCookieJar } from "./cookies.ts";
