import { AppError } from "../../errors.ts";
import type { Metering, MeteredRequest } from "../../metering.ts";
import type { AccessResolver } from "../../trpc/access.ts";

/**
 * Test doubles for the data routes' two seams until the accounts and console work lands: an access
 * resolver with fixed API keys and sessions, and a metering that records what the routes report.
 * (Tests install them on a running test server: `server.deps.access = …`.)
 */

export const TEST_API_KEY = "ir21_testkeyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
export const REVOKED_API_KEY = "ir21_revokedAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
export const TEST_SESSION = "test-session-token";

export const fakeAccess: AccessResolver = {
  async resolve({ sessionToken, apiKey }) {
    if (apiKey !== null) {
      if (apiKey === TEST_API_KEY) return { kind: "apiKey", userId: "usr_testuser0001", keyId: "key_testkey00001" };
      throw new AppError("UNAUTHORIZED", apiKey === REVOKED_API_KEY ? "This API key was revoked" : "Unknown API key");
    }
    if (sessionToken !== null) {
      if (sessionToken === TEST_SESSION) return { kind: "session", userId: "usr_testuser0001", sessionId: "ses_testsession01" };
      throw new AppError("UNAUTHORIZED", "Session expired or revoked; sign in again");
    }
    return { kind: "anonymous" };
  },
};

export interface RecordingMetering extends Metering {
  admitted: MeteredRequest[];
  settled: (MeteredRequest & { status: number })[];
  /** Make the next admit refuse with 429. */
  refuseNext(code: "RATE_LIMITED" | "QUOTA_EXCEEDED"): void;
}

export function recordingMetering(): RecordingMetering {
  let refuse: "RATE_LIMITED" | "QUOTA_EXCEEDED" | null = null;
  const metering: RecordingMetering = {
    admitted: [],
    settled: [],
    refuseNext(code) {
      refuse = code;
    },
    async admit(request) {
      metering.admitted.push(request);
      if (refuse) {
        const code = refuse;
        refuse = null;
        // QUOTA_EXCEEDED is the console's code; the generic 429 stands in for it until that lands.
        throw AppError.rateLimited(30, code === "QUOTA_EXCEEDED" ? "Monthly quota used up" : "Too many requests");
      }
      return { headers: { "RateLimit-Limit": "60", "RateLimit-Remaining": "59" } };
    },
    async settle(request) {
      metering.settled.push(request);
    },
  };
  return metering;
}
