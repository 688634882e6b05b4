import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

/**
 * Where webhooks may be sent (docs/webhooks.md "URL safety"). Two checks use these rules: at save time,
 * for quick feedback, and at every attempt just before connecting, which is the real guard (DNS can
 * change between the two). Both parse with the WHATWG URL parser, so every IPv4 spelling (decimal,
 * octal, hex, short forms) is canonical before it is classified, and classify addresses with ipaddr.js.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has. Injectable, so tests can simulate DNS rebinding. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

const DNS_TIMEOUT_MS = 5_000;

/** getaddrinfo through node:dns, every address, in the resolver's order, bounded to 5 s. */
export const systemResolver: HostResolver = async (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`DNS lookup of ${hostname} timed out`)), DNS_TIMEOUT_MS);
  });
  try {
    const answers = await Promise.race([lookup(hostname, { all: true, verbatim: true }), timeout]);
    return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  } finally {
    clearTimeout(timer);
  }
};

export interface UrlPolicy {
  /**
   * WEBHOOK_ALLOW_HOSTS: exact host names or IP literals (lower-case, IPv6 without brackets) exempt
   * from the address rules and allowed over plain http, so a test suite can reach a local receiver.
   * Empty in production (config.ts refuses it there).
   */
  allowHosts: ReadonlySet<string>;
  resolver: HostResolver;
}

export function createUrlPolicy(allowHosts: readonly string[], resolver: HostResolver = systemResolver): UrlPolicy {
  return { allowHosts: new Set(allowHosts.map(allowlistForm)), resolver };
}

export type BlockReason = "invalid_url" | "scheme" | "credentials" | "host" | "address" | "dns";

/** Why a URL may not receive webhooks; the message is safe to show to the subscription's owner. */
export class BlockedUrlError extends Error {
  constructor(
    readonly reason: BlockReason,
    message: string,
  ) {
    super(message);
    this.name = "BlockedUrlError";
  }
}

export const MAX_URL_LENGTH = 2048;

/** Host names that are never public, whatever DNS says about them. */
const PRIVATE_NAME_SUFFIXES = [".localhost", ".local", ".internal", ".arpa", ".lan", ".home", ".corp", ".intranet"];
const PRIVATE_NAMES = new Set(["localhost", "metadata.google.internal", "metadata", "instance-data"]);

/**
 * A host as the allowlist matches it: exactly as written but for case and IPv6 brackets. A trailing dot
 * is kept, so `localhost.` is not `localhost` (the allowlist is an exact match, docs/webhooks.md).
 */
function allowlistForm(host: string): string {
  const lower = host.toLowerCase();
  return lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
}

/** A host as the address rules read it: the root's trailing dot dropped, since `localhost.` is `localhost`. */
function normaliseHost(host: string): string {
  const lower = host.toLowerCase().replace(/\.$/, "");
  return lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
}

/** 192.88.99.0/24 is the retired 6to4 relay anycast; ipaddr.js calls it reserved, but be explicit. */
const EXTRA_FORBIDDEN_V4 = [ipaddr.parseCIDR("192.88.99.0/24")] as const;
/** Only global unicast space (2000::/3) is public in IPv6, minus the IETF blocks that tunnel or translate. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");
const FORBIDDEN_V6 = [
  ipaddr.parseCIDR("2001::/23"), // IETF protocol assignments: Teredo 2001::/32, ORCHID, benchmarking...
  ipaddr.parseCIDR("2001:db8::/32"), // documentation
  ipaddr.parseCIDR("2002::/16"), // 6to4: embeds an IPv4 address, which may be private
  ipaddr.parseCIDR("3fff::/20"), // documentation
] as const;

/**
 * Why an address may not be connected to, or null when it is public. IPv4-mapped IPv6 is unwrapped
 * first (`::ffff:127.0.0.1` is loopback); every other IPv6 form that embeds IPv4 (NAT64 64:ff9b::/96,
 * IPv4-compatible ::/96, 6to4, Teredo, ISATAP in ::/8 or private prefixes) is refused outright, because
 * enumerating what each embeds is how such checks get bypassed.
 */
export function forbiddenAddressReason(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address.replace(/%.*$/, ""));
  } catch {
    return "not an IP address";
  }
  const range = parsed.range();
  if (range !== "unicast") return `${range} address`;
  if (parsed.kind() === "ipv4") {
    if (EXTRA_FORBIDDEN_V4.some((cidr) => (parsed as ipaddr.IPv4).match(cidr as [ipaddr.IPv4, number]))) return "reserved address";
    return null;
  }
  const v6 = parsed as ipaddr.IPv6;
  if (!v6.match(GLOBAL_UNICAST_V6 as [ipaddr.IPv6, number])) return "non-global IPv6 address";
  if (FORBIDDEN_V6.some((cidr) => v6.match(cidr as [ipaddr.IPv6, number]))) return "special-purpose IPv6 address";
  return null;
}

export interface WebhookTarget {
  url: URL;
  /** Lower-case host without brackets or trailing dot: an IP literal or a DNS name. */
  host: string;
  /** The host is an IP literal, so there is nothing to resolve. */
  literal: boolean;
  /** The host is in WEBHOOK_ALLOW_HOSTS. */
  allowlisted: boolean;
}

/**
 * Parses and checks everything that can be checked without DNS: https only (http for allowlisted
 * hosts), no credentials, no fragment, a bounded length, no private host names, and a literal IP must
 * be public.
 */
export function checkUrl(input: string, policy: UrlPolicy): WebhookTarget {
  if (input.length > MAX_URL_LENGTH) throw new BlockedUrlError("invalid_url", `must be at most ${MAX_URL_LENGTH} characters`);
  if (/[\s\u0000-\u001f]/.test(input)) throw new BlockedUrlError("invalid_url", "must not contain whitespace or control characters");
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new BlockedUrlError("invalid_url", "must be an absolute URL such as https://hooks.example.com/ir21");
  }
  const host = normaliseHost(url.hostname);
  const allowlisted = policy.allowHosts.has(allowlistForm(url.hostname));
  if (url.protocol !== "https:" && !(allowlisted && url.protocol === "http:")) throw new BlockedUrlError("scheme", "must use https");
  if (url.username !== "" || url.password !== "") throw new BlockedUrlError("credentials", "must not contain a user name or password");
  if (url.hash !== "") throw new BlockedUrlError("invalid_url", "must not contain a fragment (#...)");
  const literal = ipaddr.isValid(host);
  if (allowlisted) return { url, host, literal, allowlisted };
  if (literal) {
    const reason = forbiddenAddressReason(host);
    if (reason) throw new BlockedUrlError("address", `must be a public address, not a ${reason}`);
    return { url, host, literal, allowlisted };
  }
  if (PRIVATE_NAMES.has(host) || PRIVATE_NAME_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
    throw new BlockedUrlError("host", `must be a public host name, not ${host}`);
  }
  if (!host.includes(".")) throw new BlockedUrlError("host", "must be a fully qualified public host name");
  return { url, host, literal, allowlisted };
}

/**
 * Resolves the target's host and vets every address: if any one is forbidden the whole target is
 * (a name that answers with a public and a private address must not pass). Returns the vetted
 * addresses, which are the only ones the sender may connect to.
 */
export async function resolveTarget(target: WebhookTarget, policy: UrlPolicy): Promise<ResolvedAddress[]> {
  if (target.literal) return [{ address: target.host, family: ipaddr.parse(target.host).kind() === "ipv6" ? 6 : 4 }];
  let addresses: ResolvedAddress[];
  try {
    addresses = await policy.resolver(target.host);
  } catch (error) {
    throw new BlockedUrlError("dns", `host ${target.host} does not resolve (${error instanceof Error ? error.message : String(error)})`);
  }
  if (addresses.length === 0) throw new BlockedUrlError("dns", `host ${target.host} has no addresses`);
  if (target.allowlisted) return addresses;
  for (const { address } of addresses) {
    const reason = forbiddenAddressReason(address);
    if (reason) throw new BlockedUrlError("address", `host ${target.host} resolves to a ${reason} (${address})`);
  }
  return addresses;
}

/** Both checks, as the subscription endpoints run them on a URL before saving it. */
export async function vetUrl(input: string, policy: UrlPolicy): Promise<{ target: WebhookTarget; addresses: ResolvedAddress[] }> {
  const target = checkUrl(input, policy);
  return { target, addresses: await resolveTarget(target, policy) };
}
