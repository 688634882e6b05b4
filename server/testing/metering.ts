import { AppError } from "../src/errors.ts";
import type { Metering, MeteredRequest } from "../src/metering/metering.ts";

/**
 * A metering that records what the data routes report (endpoint, access, cost, status), to test the
 * routes' side of the seam exactly; install it on a running test server (`server.deps.metering = …`)
 * and restore the real one after.
 */
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
