/** Who is calling, as far as data access is concerned. */
export type Access =
  | { kind: "anonymous" }
  | { kind: "session"; userId: string; sessionId: string }
  | { kind: "apiKey"; userId: string; keyId: string };

export interface Credentials {
  sessionToken: string | null;
  apiKey: string | null;
  /**
   * The connection that carried them (node's socket), when the layer has it: an API key's hash is
   * remembered for the connection's next request (access/credential-cache.ts `credentialHashOn`).
   */
  connection?: object;
}

/**
 * Turns presented credentials into an {@link Access}. Presented-but-invalid credentials are an error
 * (401), never a silent fall back to anonymous.
 */
export interface AccessResolver {
  /**
   * The caller, at once when its credential is in memory (a cached API key: no promise on the hot
   * path of a keyed request), else a promise. An invalid credential throws (or rejects): `await` it.
   */
  resolve(credentials: Credentials): Access | Promise<Access>;
}
