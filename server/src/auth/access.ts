import { AppError } from "../errors.ts";
import type { Access, AccessResolver } from "../trpc/access.ts";
import type { ActiveSession } from "./sessions.ts";

/** Resolves an API key to its owner; implemented by the console's key store. */
export interface ApiKeyVerifier {
  verify(apiKey: string): Promise<{ userId: string; keyId: string } | null>;
}

/**
 * The real {@link AccessResolver}: an `X-API-Key` (explicit, so it wins over a cookie the browser
 * happens to send), else the session cookie, else anonymous. Presented but invalid credentials are a
 * 401, never a silent anonymous. Both lookups go through the credential cache (credential-cache.ts).
 */
export function createAccessResolver(deps: { apiKeys: ApiKeyVerifier; sessions: (token: string) => Promise<ActiveSession | null> }): AccessResolver {
  return {
    async resolve({ sessionToken, apiKey }): Promise<Access> {
      if (apiKey !== null) {
        const key = await deps.apiKeys.verify(apiKey);
        if (!key) throw new AppError("UNAUTHORIZED", "Unknown or revoked API key");
        return { kind: "apiKey", userId: key.userId, keyId: key.keyId };
      }
      if (sessionToken !== null) {
        const session = await deps.sessions(sessionToken);
        if (!session) throw new AppError("UNAUTHORIZED", "Session expired or revoked; sign in again");
        return { kind: "session", userId: session.userId, sessionId: session.id };
      }
      return { kind: "anonymous" };
    },
  };
}
