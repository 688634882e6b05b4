/**
 * Where the console client keeps the session cookie between calls. In a browser the cookie is
 * HttpOnly and the browser keeps it (same-origin credentials); in Node (the CLI, scripts) nothing keeps
 * cookies, so the client does, in a jar: in memory by default, or anywhere the caller likes (the CLI
 * keeps it in its 0600 config file).
 */
export interface SessionCookieJar {
  /** The `name=value` pair to send, or null when signed out. */
  get(): string | null | Promise<string | null>;
  /** Called with the new pair after sign-in, or null when the server cleared the cookie. */
  set(cookie: string | null): void | Promise<void>;
}

/**
 * A jar that lives as long as the client.
 * @example
 * const jar = memoryCookieJar();
 * const ir21 = createConsoleClient({ baseUrl, cookies: jar });
 */
export function memoryCookieJar(initial: string | null = null): SessionCookieJar {
  let cookie = initial;
  return {
    get: () => cookie,
    set: (value) => {
      cookie = value;
    },
  };
}

const SESSION_COOKIE = /^(?:__Host-)?ir21_session$/;

/** The session cookie a Set-Cookie line sets: the pair, or null when it clears it; undefined if unrelated. */
function sessionCookieOf(line: string): string | null | undefined {
  const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
  const eq = pair.indexOf("=");
  if (eq < 1 || !SESSION_COOKIE.test(pair.slice(0, eq))) return undefined;
  const value = pair.slice(eq + 1);
  const expired = attributes.some((a) => {
    const [name = "", v = ""] = a.split("=");
    if (name.toLowerCase() === "max-age") return Number(v) <= 0;
    if (name.toLowerCase() === "expires") return Date.parse(v) <= Date.now();
    return false;
  });
  return value === "" || expired ? null : pair;
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
    if (cookie && !headers.has("cookie")) headers.set("cookie", cookie);
    const response = await base(input, { ...init, headers });
    for (const line of response.headers.getSetCookie?.() ?? []) {
      const session = sessionCookieOf(line);
      if (session !== undefined) await jar.set(session);
    }
    return response;
  };
}
