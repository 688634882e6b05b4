import { AppError } from "../errors.ts";

/** Who is calling, as far as data access is concerned. */
export type Access =
  | { kind: "anonymous" }
  | { kind: "session"; userId: string; sessionId: string }
  | { kind: "apiKey"; userId: string; keyId: string };

export interface Credentials {
  sessionToken: string | null;
  apiKey: string | null;
}

/**
 * Turns presented credentials into an {@link Access}. Presented-but-invalid credentials are an error
 * (401), never a silent fall back to anonymous.
 */
export interface AccessResolver {
  resolve(credentials: Credentials): Promise<Access>;
}

/**
 * The resolver of a server with no account store wired in: no session or key can be valid, so any
 * presented credential is refused and only anonymous access remains.
 */
export const noAccountsResolver: AccessResolver = {
  async resolve({ sessionToken, apiKey }) {
    if (apiKey !== null) throw new AppError("UNAUTHORIZED", "Unknown API key");
    if (sessionToken !== null) throw new AppError("UNAUTHORIZED", "Session expired or revoked; sign in again");
    return { kind: "anonymous" };
  },
};
