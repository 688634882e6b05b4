import { isIP } from "node:net";
import { getRequestIP, type H3Event } from "h3";
import type { Config } from "../config.ts";

/**
 * The client's address, for rate limits, audit rows and logs. Behind a proxy we run (TRUST_PROXY),
 * it is the RIGHTMOST X-Forwarded-For entry, the one our proxy appended; everything left of it came
 * from the client and can be forged (h3's `xForwardedFor` option takes the leftmost, which would let a
 * client choose its own rate-limit bucket). An entry that is not an IP address is ignored too: the
 * value goes into rate-limit keys and varchar(64) columns, and a proxy we run only appends addresses.
 * Without TRUST_PROXY the header is ignored.
 * @example
 * const ip = clientIp(event, deps.config); // "203.0.113.7"
 */
export function clientIp(event: H3Event, config: Pick<Config, "trustProxy">): string | null {
  return clientIpOf(event.req.headers.get("x-forwarded-for"), getRequestIP(event), config);
}

/** {@link clientIp} from the X-Forwarded-For header and the peer's address (node's `socket.remoteAddress`). */
export function clientIpOf(forwardedFor: string | null | undefined, peer: string | undefined, config: Pick<Config, "trustProxy">): string | null {
  if (config.trustProxy) {
    const nearest = forwardedFor?.split(",").at(-1)?.trim();
    if (nearest && isIP(nearest) !== 0) return nearest;
  }
  return peer ?? null;
}
