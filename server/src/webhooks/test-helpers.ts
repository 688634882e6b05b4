import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { sessionCookieName } from "../http/cookies.ts";
import type { TestServer } from "../testing/index.ts";
import type { Access, AccessResolver } from "../trpc/access.ts";

/**
 * Console sessions for webhook tests until the accounts domain provides real sign-in: replaces the
 * server's access resolver with one that knows the tokens handed out here, so requests still go
 * through the real cookie, context and sessionProcedure path.
 */
export function testSessions(server: TestServer) {
  const sessions = new Map<string, Access>();
  const fallback = server.deps.access;
  const resolver: AccessResolver = {
    async resolve(credentials) {
      if (credentials.sessionToken !== null && sessions.has(credentials.sessionToken)) return sessions.get(credentials.sessionToken)!;
      return fallback.resolve(credentials);
    },
  };
  server.deps.access = resolver;
  const cookieName = sessionCookieName(server.deps.config);
  return {
    signIn(userId = `usr_${randomBytes(10).toString("hex")}`) {
      const token = randomBytes(16).toString("hex");
      sessions.set(token, { kind: "session", userId, sessionId: `ses_${randomBytes(10).toString("hex")}` });
      return { userId, cookie: `${cookieName}=${token}` };
    },
  };
}

/**
 * A receiver-side check written from docs/webhooks.md, independent of the server's signer: true when
 * `header` is v1= and the lower-case hex HMAC-SHA256 of `timestamp.body` under the secret's UTF-8 bytes.
 */
export function signatureMatches(header: string | string[] | undefined, timestamp: string | string[] | undefined, body: string, secret: string): boolean {
  if (typeof header !== "string" || typeof timestamp !== "string" || !/^v1=[0-9a-f]{64}$/.test(header) || !/^\d+$/.test(timestamp)) return false;
  const mac = createHmac("sha256", new TextEncoder().encode(secret));
  mac.update(new TextEncoder().encode(`${timestamp}.${body}`));
  return timingSafeEqual(mac.digest(), Buffer.from(header.slice(3), "hex"));
}

export function ir21Headers(headers: IncomingHttpHeaders) {
  return {
    eventId: headers["x-ir21-event-id"] as string | undefined,
    timestamp: headers["x-ir21-timestamp"] as string | undefined,
    signature: headers["x-ir21-signature"] as string | undefined,
    previous: headers["x-ir21-signature-previous"] as string | undefined,
  };
}
