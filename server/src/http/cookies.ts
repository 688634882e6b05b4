import type { Config } from "../config.ts";

/**
 * The session cookie's name: `__Host-` (browser-enforced Secure, Path=/, no Domain) when the console is
 * served over HTTPS; the plain name only for local http development, where Secure cookies are dropped.
 */
export function sessionCookieName(config: Pick<Config, "secureCookies">): string {
  return config.secureCookies ? "__Host-ir21_session" : "ir21_session";
}
