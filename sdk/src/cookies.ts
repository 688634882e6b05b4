/**
 * Where the console client keeps the session cookie between calls. In a browser the cookie is
 * HttpOnly and the browser keeps it (same-origin credentials); in Node (the CLI, scripts) nothing keeps
 * cookies, so the client does, in a jar: in memory by default, or anywhere the caller likes (the CLI
 * keeps it in its 0600 config file). The cookie is a credential: store it like a password.
 */
export interface SessionCookieJar {
  /** The `name=value` pair to send, or null when signed out. */
  get(): string | null | Promise<string | null>;
  /**
   * Called with the new pair after sign-in, or null when the server cleared the cookie (logout, the
   * current session revoked). `expiresAt` is when the server said the cookie expires (ISO 8601).
   */
  set(cookie: string | null, details?: { expiresAt: string | null }): void | Promise<void>;
}

/** The in-memory jar: reads are synchronous, so its cookie can be read back at any time. */
export interface MemoryCookieJar extends SessionCookieJar {
  get(): string | null;
  set(cookie: string | null): void;
}

const SESSION_COOKIE = /^(?:__Host-)?ir21_session$/;

/**
 * A jar that lives as long as the client, optionally starting from a saved cookie pair.
 * @example
 * const jar = memoryCookieJar(config.session); // e.g. "ir21_session=ses_…"
 * const ir21 = createConsoleClient({ baseUrl, cookies: jar });
 * await ir21.auth.login.mutate(input);
 * config.session = jar.get();
 */
export function memoryCookieJar(initial: string | null = null): MemoryCookieJar {
  let cookie = initial === null ? null : checkSessionCookie(initial);
  return {
    get: () => cookie,
    set: (value) => {
      cookie = value;
    },
  };
}

/** A saved pair must be the session cookie and nothing else (no attributes, no header injection). */
function checkSessionCookie(pair: string): string {
  const eq = pair.indexOf("=");
  if (eq < 1 || !SESSION_COOKIE.test(pair.slice(0, eq)) || eq === pair.length - 1 || /[;\s]/.test(pair)) {
    throw new TypeError("A saved session is the session cookie pair, e.g. ir21_session=ses_…");
  }
  return pair;
}

/**
 * The session cookie a Set-Cookie line sets: the pair and its expiry, `null` when it clears the
 * cookie, `undefined` when the line is about another cookie.
 */
export function sessionCookieOf(line: string, nowMs: number = Date.now()): { cookie: string; expiresAt: string | null } | null | undefined {
  const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
  const eq = pair.indexOf("=");
  if (eq < 1 || !SESSION_COOKIE.test(pair.slice(0, eq))) return undefined;
  let maxAge: number | undefined;
  let expires: number | undefined;
  for (const attribute of attributes) {
    const at = attribute.indexOf("=");
    const name = (at === -1 ? attribute : attribute.slice(0, at)).toLowerCase();
    const value = at === -1 ? "" : attribute.slice(at + 1);
    if (name === "max-age") maxAge = Number(value);
    else if (name === "expires") expires = Date.parse(value);
  }
  // Max-Age wins over Expires (RFC 6265 §5.3).
  const expiresAtMs = maxAge !== undefined && !Number.isNaN(maxAge) ? nowMs + maxAge * 1000 : expires !== undefined && !Number.isNaN(expires) ? expires : null;
  if (pair.length === eq + 1 || (expiresAtMs !== null && expiresAtMs <= nowMs)) return null;
  return { cookie: pair, expiresAt: expiresAtMs === null ? null : new Date(expiresAtMs).toISOString() };
}

/**
 * Wraps a fetch so that it sends the jar's session cookie and stores the one the server sets.
 * @example
 * const fetchWithSession = cookieFetch(globalThis.fetch, memoryCookieJar());
 */
export function cookieFetch(base: typeof globalThis.fetch, jar: SessionCookieJar): typeof globalThis.fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const cookie = await jar.get();
    // A browser ignores a script's Cookie header and sends its own; elsewhere this is the session.
    if (cookie && !headers.has("cookie")) headers.set("cookie", cookie);
    const response = await base(input, { ...init, headers });
    for (const line of response.headers.getSetCookie?.() ?? []) {
      const session = sessionCookieOf(line);
      if (session !== undefined) await jar.set(session?.cookie ?? null, { expiresAt: session?.expiresAt ?? null });
    }
    return response;
  };
}
