import { describe, expect, it } from "vitest";
import { cookieFetch, memoryCookieJar, sessionCookieOf } from "./cookies.ts";

const NOW = Date.parse("2026-01-01T00:00:00Z");

describe("sessionCookieOf", () => {
  it("reads the session cookie (plain or __Host-) and its expiry, Max-Age over Expires", () => {
    expect(sessionCookieOf("ir21_session=ses_a.s; Path=/; Expires=Wed, 01 Jan 2098 00:00:00 GMT; HttpOnly; SameSite=Lax", NOW)).toEqual({
      cookie: "ir21_session=ses_a.s",
      expiresAt: "2098-01-01T00:00:00.000Z",
    });
    expect(sessionCookieOf("__Host-ir21_session=ses_b.s; Max-Age=3600; Expires=Wed, 01 Jan 2098 00:00:00 GMT; Secure", NOW)).toEqual({
      cookie: "__Host-ir21_session=ses_b.s",
      expiresAt: "2026-01-01T01:00:00.000Z",
    });
    expect(sessionCookieOf("ir21_session=ses_c.s; Path=/", NOW)).toEqual({ cookie: "ir21_session=ses_c.s", expiresAt: null });
  });

  it("says null when the server clears the cookie, undefined for other cookies", () => {
    for (const clearing of ["ir21_session=; Path=/; Max-Age=0", "ir21_session=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "ir21_session=; Path=/"]) {
      expect(sessionCookieOf(clearing, NOW)).toBeNull();
    }
    expect(sessionCookieOf("theme=dark; Path=/", NOW)).toBeUndefined();
    expect(sessionCookieOf("xir21_session=a", NOW)).toBeUndefined();
  });
});

describe("cookieFetch", () => {
  it("sends the jar's cookie, stores what the server sets, and leaves other cookies alone", async () => {
    const jar = memoryCookieJar("ir21_session=old");
    const sent: Array<string | null> = [];
    const replies = [
      ["theme=dark; Path=/"],
      ["ir21_session=new; Path=/; Max-Age=60; HttpOnly"],
      ["ir21_session=; Path=/; Max-Age=0"],
    ];
    const base = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      sent.push(new Headers(init?.headers).get("cookie"));
      const headers = new Headers();
      for (const c of replies.shift() ?? []) headers.append("set-cookie", c);
      return new Response(null, { headers });
    }) as typeof fetch;
    const send = cookieFetch(base, jar);
    await send("http://x/");
    expect(jar.get()).toBe("ir21_session=old");
    await send("http://x/");
    expect(jar.get()).toBe("ir21_session=new");
    await send("http://x/", { headers: { cookie: "explicit=1" } });
    expect(jar.get()).toBeNull();
    await send("http://x/");
    expect(sent).toEqual(["ir21_session=old", "ir21_session=old", "explicit=1", null]);
  });

  it("memoryCookieJar refuses anything but a bare session cookie pair", () => {
    for (const bad of ["", "ir21_session=", "session=abc", "ir21_session=a; Path=/", "ir21_session=a\nb", "ir21_session=a b"]) {
      expect(() => memoryCookieJar(bad)).toThrow(TypeError);
    }
    expect(memoryCookieJar("__Host-ir21_session=ses_a.b").get()).toBe("__Host-ir21_session=ses_a.b");
  });
});
