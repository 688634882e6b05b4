/**
 * The console session outside a browser. A browser keeps the HttpOnly session cookie itself (the
 * clients only ask for `credentials: "same-origin"`); Node, Deno and Bun have no cookie store, so the
 * client keeps the one cookie that matters here, and lets a CLI save and restore it.
 */

/** A signed-in console session, as saved by a CLI between runs. Treat it like a password. */
export interface ConsoleSession {
  /** The `Cookie` pair, e.g. `ir21_session=ses_….secret` (`__Host-ir21_session` over HTTPS). */
  cookie: string;
  /** When the server said the cookie expires (ISO 8601), or null when it did not say. */
  expiresAt: string | null;
}

const SESSION_COOKIE = /^(?:__Host-)?ir21_session$/;

export class SessionJar {
  #session: ConsoleSession | null;
  readonly #onChange: ((session: ConsoleSession | null) => void) | undefined;

  constructor(initial: ConsoleSession | string | null | undefined, onChange?: (session: ConsoleSession | null) => void) {
    this.#session = SessionJar.parse(initial);
    this.#onChange = onChange;
  }

  /** Accepts a saved {@link ConsoleSession} or a bare `name=value` cookie pair. */
  static parse(value: ConsoleSession | string | null | undefined): ConsoleSession | null {
    if (value === null || value === undefined) return null;
    const session = typeof value === "string" ? { cookie: value, expiresAt: null } : value;
    const cookie = typeof session.cookie === "string" ? session.cookie.trim() : "";
    const name = cookie.slice(0, cookie.indexOf("="));
    if (!SESSION_COOKIE.test(name) || cookie.length <= name.length + 1 || /[;\r\n]/.test(cookie)) {
      throw new TypeError("A console session is the session cookie pair, e.g. ir21_session=ses_…");
    }
    return { cookie, expiresAt: session.expiresAt ?? null };
  }

  get(): ConsoleSession | null {
    return this.#session === null ? null : { ...this.#session };
  }

  set(value: ConsoleSession | string | null): void {
    this.#replace(SessionJar.parse(value));
  }

  /** The Cookie header to send, if any. */
  cookieHeader(): string | null {
    return this.#session?.cookie ?? null;
  }

  /** Takes the session cookie from a response's Set-Cookie headers (login sets it, logout clears it). */
  capture(response: Response): void {
    const setCookies = typeof response.headers.getSetCookie === "function" ? response.headers.getSetCookie() : [];
    for (const header of setCookies) {
      const [pair = "", ...attributes] = header.split(";");
      const name = pair.slice(0, pair.indexOf("=")).trim();
      if (!SESSION_COOKIE.test(name)) continue;
      const value = pair.slice(pair.indexOf("=") + 1).trim();
      let expiresAt: string | null = null;
      let expired = value === "";
      for (const attribute of attributes) {
        const [key = "", ...rest] = attribute.split("=");
        const attributeValue = rest.join("=").trim();
        if (/^\s*max-age\s*$/i.test(key)) {
          const seconds = Number(attributeValue);
          if (seconds <= 0) expired = true;
          else if (Number.isFinite(seconds)) expiresAt = new Date(Date.now() + seconds * 1000).toISOString();
        } else if (/^\s*expires\s*$/i.test(key) && expiresAt === null) {
          const at = Date.parse(attributeValue);
          if (!Number.isNaN(at)) {
            if (at <= Date.now()) expired = true;
            else expiresAt = new Date(at).toISOString();
          }
        }
      }
      this.#replace(expired ? null : { cookie: `${name}=${value}`, expiresAt });
    }
  }

  #replace(next: ConsoleSession | null): void {
    const changed = next?.cookie !== this.#session?.cookie || next?.expiresAt !== this.#session?.expiresAt;
    this.#session = next;
    if (changed) this.#onChange?.(next === null ? null : { ...next });
  }
}
