import { AppError } from "../errors.ts";
import type { Access, AccessResolver } from "./access.ts";
import type { ActiveSession } from "../auth/sessions.ts";

/** Resolves an API key to its owner; implemented by the console's key store. */
export interface ApiKeyVerifier {
  /** The key's owner, at once when the key is cached and nothing is due, else a promise; null for an unknown or revoked key. */
  verify(apiKey: string, connection?: object): VerifiedKey | null | Promise<VerifiedKey | null>;
}

export interface VerifiedKey {
  userId: string;
  keyId: string;
}

/**
 * The real {@link AccessResolver}: an `X-API-Key` (explicit, so it wins over a cookie the browser
 * happens to send), else the session cookie, else anonymous. Presented but invalid credentials are a
 * 401, never a silent anonymous. Both lookups go through the credential cache (credential-cache.ts).
 */
export function createAccessResolver(deps: { apiKeys: ApiKeyVerifier; sessions: (token: string) => Promise<ActiveSession | null> }): AccessResolver {
  // Not async: a cached API key resolves without a promise (ApiKeyVerifier.verify).
  return {
    resolve({ sessionToken, apiKey, connection }): Access | Promise<Access> {
      if (apiKey !== null) {
        const key = deps.apiKeys.verify(apiKey, connection);
        return key instanceof Promise ? key.then(apiKeyAccess) : apiKeyAccess(key);
      }
      if (sessionToken !== null) return sessionAccess(deps.sessions, sessionToken);
      return { kind: "anonymous" };
    },
  };
}

function apiKeyAccess(key: VerifiedKey | null): Access {
  if (!key) throw new AppError("UNAUTHORIZED", "Unknown or revoked API key");
  return { kind: "apiKey", userId: key.userId, keyId: key.keyId };
}

async function sessionAccess(sessions: (token: string) => Promise<ActiveSession | null>, sessionToken: string): Promise<Access> {
  const session = await sessions(sessionToken);
  if (!session) throw new AppError("UNAUTHORIZED", "Session expired or revoked; sign in again");
  return { kind: "session", userId: session.userId, sessionId: session.id };
}

/**
 * Console operations need an account session: an API key cannot act for the user (403), no
 * credentials at all is 401. Shared by the session procedures and the listen stream (an h3 route).
 */
export async function requireConsoleSession(resolver: AccessResolver, credentials: { sessionToken: string | null; apiKey: string | null }): Promise<Extract<Access, { kind: "session" }>> {
  if (credentials.sessionToken === null) {
    if (credentials.apiKey !== null) throw new AppError("FORBIDDEN", "An API key cannot manage the account; sign in to the console");
    throw new AppError("UNAUTHORIZED", "Sign in to use the console");
  }
  const access = await resolver.resolve({ sessionToken: credentials.sessionToken, apiKey: null });
  if (access.kind !== "session") throw new AppError("UNAUTHORIZED", "Sign in to use the console");
  return access;
}
