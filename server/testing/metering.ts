import { AppError } from "../src/errors.ts";
import type { Metering, MeteredRequest } from "../src/metering/metering.ts";

/**
 * A metering that records what the data routes report (endpoint, access, cost, status), to test the
 * routes' side of the seam exactly: `startTestServer({ metering: () => recordingMetering() })`, or for
 * a few tests of a file through {@link switchableMetering}.
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
    async settle(request, status) {
      metering.settled.push({ ...request, status });
    },
  };
  return metering;
}

/**
 * A metering that passes to the real one until told to use another for a while: for a test file whose
 * one server needs the routes' reports recorded in a few tests only.
 * @example
 * server = await startTestServer({ metering: (real) => (switchable = switchableMetering(real)) });
 * switchable.use(recordingMetering()); … switchable.use(null);
 */
export interface SwitchableMetering extends Metering {
  use(metering: Metering | null): void;
}

export function switchableMetering(real: Metering): SwitchableMetering {
  let current: Metering = real;
  return {
    use(metering) {
      current = metering ?? real;
    },
    admit: (request) => current.admit(request),
    settle: (request, status) => current.settle(request, status),
  };
}
