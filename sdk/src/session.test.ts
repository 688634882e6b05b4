import { describe, expect, it } from "vitest";
import { SessionJar, type ConsoleSession } from "./session.ts";

const withCookies = (...setCookies: string[]) => {
  const headers = new Headers();
  for (const c of setCookies) headers.append("set-cookie", c);
  return new Response(null, { headers });
};

describe("SessionJar", () => {
  it("captures the session cookie (plain or __Host-) with its expiry, ignoring other cookies", () => {
    const changes: Array<ConsoleSession | null> = [];
    const jar = new SessionJar(null, (s) => changes.push(s));
    jar.capture(withCookies("theme=dark; Path=/", "ir21_session=ses_a.secret; Path=/; Expires=Wed, 01 Jan 2098 00:00:00 GMT; HttpOnly; SameSite=Lax"));
    expect(jar.get()).toEqual({ cookie: "ir21_session=ses_a.secret", expiresAt: "2098-01-01T00:00:00.000Z" });
    jar.capture(withCookies("__Host-ir21_session=ses_b.secret; Path=/; Max-Age=3600; Secure; HttpOnly"));
    expect(jar.cookieHeader()).toBe("__Host-ir21_session=ses_b.secret");
    expect(Date.parse(jar.get()!.expiresAt!) - Date.now()).toBeGreaterThan(3_500_000);
    expect(changes).toHaveLength(2);
  });

  it("drops the session when the server clears the cookie, by Max-Age=0, a past Expires or an empty value", () => {
    for (const clearing of ["ir21_session=; Path=/; Max-Age=0", "ir21_session=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "ir21_session=; Path=/"]) {
      const jar = new SessionJar("ir21_session=ses_a.secret");
      jar.capture(withCookies(clearing));
      expect(jar.get()).toBeNull();
    }
  });

  it("reports a change only when the session changed, and returns copies", () => {
    const changes: Array<ConsoleSession | null> = [];
    const jar = new SessionJar({ cookie: "ir21_session=a", expiresAt: null }, (s) => changes.push(s));
    jar.set("ir21_session=a");
    jar.capture(withCookies("other=1"));
    expect(changes).toEqual([]);
    jar.get()!.cookie = "tampered";
    expect(jar.cookieHeader()).toBe("ir21_session=a");
    jar.set(null);
    expect(changes).toEqual([null]);
  });

  it("refuses values that are not the session cookie pair", () => {
    for (const bad of ["", "ir21_session=", "session=abc", "ir21_session=a; Path=/", "ir21_session=a\nb"]) {
      expect(() => new SessionJar(bad)).toThrow(TypeError);
    }
  });
});
