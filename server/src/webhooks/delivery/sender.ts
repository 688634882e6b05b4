import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { BlockedUrlError, checkUrl, resolveTarget, type ResolvedAddress, type UrlPolicy } from "../subscriptions/url-policy.ts";
import { ANSWER_BODY_BYTES, keptHeaders, redactSecrets } from "./answer.ts";
import type { DestinationAgents } from "./agents.ts";

/**
 * One HTTP POST of a delivery, guarded against SSRF at connect time: the URL is checked again,
 * the host resolved and every address vetted, and the socket connects only to a vetted address
 * (the host name stays in Host and SNI, so certificates are checked against it). Redirects are
 * never followed, proxy variables are ignored (never the global agent: a fresh one per request, or
 * the worker's keep-alive pools, agents.ts), time is bounded and at most a few KiB of the response
 * are read.
 */

export interface SendLimits {
  /** TCP + TLS connect, per attempt. */
  connectTimeoutMs: number;
  /** Everything: DNS, connect, request, response headers and the part of the body we read. */
  totalTimeoutMs: number;
  /** Response bytes kept for the attempt record; the rest is never read. */
  maxResponseBytes: number;
}

export const DEFAULT_SEND_LIMITS: SendLimits = { connectTimeoutMs: 5_000, totalTimeoutMs: 15_000, maxResponseBytes: ANSWER_BODY_BYTES };

/** A failure class, stored as the prefix of the attempt's error text. */
export type SendErrorCode = "internal" | "ssrf_blocked" | "dns" | "connect_timeout" | "timeout" | "connection" | "tls" | "redirect_not_followed" | "http_status";

export interface SendResult {
  /** The response status, or null when no response arrived. */
  status: number | null;
  errorCode: SendErrorCode | null;
  /** Human-readable, no secrets; null on a 2xx. */
  error: string | null;
  /** The start of the response body (UTF-8, at most maxResponseBytes, secrets masked: answer.ts). */
  responseExcerpt: string | null;
  /** The response headers as kept (answer.ts); null when no response arrived. */
  responseHeaders: Record<string, string> | null;
  /** True when the body went on past the excerpt. */
  responseTruncated: boolean;
  /** The Retry-After header as sent, for the scheduler to interpret. */
  retryAfter: string | null;
  durationMs: number;
}

export interface SendOptions {
  policy: UrlPolicy;
  limits?: Partial<SendLimits>;
  /** Extra trusted CA certificates (tests with a local HTTPS receiver); the system store otherwise. */
  ca?: string | Buffer;
  userAgent?: string;
  /**
   * Keep-alive pools per destination (agents.ts): connections are reused across deliveries. Without
   * it, every request opens its own connection and closes it.
   */
  agents?: DestinationAgents;
}

/** A lookup that answers only with the already-vetted addresses, in both callback forms Node uses. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean; family?: number } | number, callback: (...args: unknown[]) => void) => {
    const opts = typeof options === "number" ? { family: options } : (options ?? {});
    const wanted = opts.family === 4 || opts.family === 6 ? addresses.filter((a) => a.family === opts.family) : addresses;
    const list = wanted.length ? wanted : addresses;
    if (opts.all) callback(null, list.map((a) => ({ address: a.address, family: a.family })));
    else callback(null, list[0]!.address, list[0]!.family);
  }) as LookupFunction;
}

function classifyNetworkError(error: NodeJS.ErrnoException): SendErrorCode {
  const code = error.code ?? "";
  if (code.startsWith("ERR_TLS") || code.startsWith("CERT_") || code.includes("SSL") || /certificate|tls|ssl/i.test(error.message)) return "tls";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "dns";
  return "connection";
}

export async function sendWebhook(input: { url: string; headers: Record<string, string>; body: string }, options: SendOptions): Promise<SendResult> {
  const limits = { ...DEFAULT_SEND_LIMITS, ...options.limits };
  const started = performance.now();
  const finish = (partial: Omit<SendResult, "durationMs">): SendResult => ({ ...partial, durationMs: Math.round(performance.now() - started) });
  const failure = (errorCode: SendErrorCode, error: string, status: number | null = null) =>
    finish({ status, errorCode, error: `${errorCode}: ${error}`.slice(0, 1024), responseExcerpt: null, responseHeaders: null, responseTruncated: false, retryAfter: null });

  let target;
  let addresses: ResolvedAddress[];
  const deadline = AbortSignal.timeout(limits.totalTimeoutMs);
  try {
    target = checkUrl(input.url, options.policy);
    addresses = await Promise.race([
      resolveTarget(target, options.policy),
      new Promise<never>((_, reject) => deadline.addEventListener("abort", () => reject(new BlockedUrlError("dns", "DNS lookup timed out")), { once: true })),
    ]);
  } catch (error) {
    if (error instanceof BlockedUrlError) return failure(error.reason === "dns" ? "dns" : "ssrf_blocked", error.message);
    throw error;
  }

  const url = target.url;
  const body = Buffer.from(input.body, "utf8");
  const isHttps = url.protocol === "https:";
  const request = isHttps ? httpsRequest : httpRequest;

  const agent = options.agents?.for(url) ?? false;
  const attempt = (retried: boolean) => new Promise<SendResult>((resolve) => {
    let settled = false;
    const settle = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(totalTimer);
      clearTimeout(connectTimer);
      resolve(result);
    };
    const req = request({
      protocol: url.protocol,
      hostname: target.host,
      port: url.port || (isHttps ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: "POST",
      agent,
      lookup: pinnedLookup(addresses),
      ...(isHttps ? { servername: target.literal ? undefined : target.host, ca: options.ca, rejectUnauthorized: true } : {}),
      headers: {
        ...input.headers,
        "content-type": "application/json",
        "content-length": String(body.length),
        "user-agent": options.userAgent ?? "ir21-webhooks/1",
        ...(agent ? {} : { connection: "close" }),
      },
    });
    const connectTimer = setTimeout(() => {
      req.destroy(Object.assign(new Error(`no connection within ${limits.connectTimeoutMs} ms`), { code: "IR21_CONNECT_TIMEOUT" }));
    }, limits.connectTimeoutMs);
    // DNS already spent part of the total budget.
    const remainingMs = Math.max(0, limits.totalTimeoutMs - (performance.now() - started));
    const totalTimer = setTimeout(() => {
      req.destroy(Object.assign(new Error(`no complete response within ${limits.totalTimeoutMs} ms`), { code: "IR21_TIMEOUT" }));
    }, remainingMs);
    req.on("socket", (socket) => {
      // A pooled socket is connected already.
      if (req.reusedSocket) clearTimeout(connectTimer);
      else socket.once(isHttps ? "secureConnect" : "connect", () => clearTimeout(connectTimer));
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      // A kept-alive connection the receiver closed just as it was reused: nothing was answered, so
      // send once more on another connection (the receiver deduplicates on the event id anyway).
      if (req.reusedSocket && !retried && (error.code === "ECONNRESET" || error.code === "EPIPE") && performance.now() - started < limits.totalTimeoutMs) {
        if (settled) return;
        settled = true;
        clearTimeout(totalTimer);
        clearTimeout(connectTimer);
        resolve(attempt(true));
        return;
      }
      if (error.code === "IR21_CONNECT_TIMEOUT") settle(failure("connect_timeout", error.message));
      else if (error.code === "IR21_TIMEOUT") settle(failure("timeout", error.message));
      else settle(failure(classifyNetworkError(error), error.message));
    });
    req.on("response", (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const retryAfter = typeof res.headers["retry-after"] === "string" ? res.headers["retry-after"].slice(0, 64) : null;
      const location = typeof res.headers.location === "string" ? res.headers.location.slice(0, 200) : null;
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      const headers = keptHeaders(Object.entries(res.headers));
      const done = () => {
        const excerpt = chunks.length ? redactSecrets(Buffer.concat(chunks).toString("utf8")) : null;
        // A response read to its end leaves a pooled socket to its pool; otherwise dropping the
        // socket is how we stop reading (and a socket of its own, without a pool, always goes).
        if (!agent || !res.complete || truncated) {
          res.destroy();
          req.destroy();
        }
        let errorCode: SendErrorCode | null = null;
        let error: string | null = null;
        if (status >= 300 && status < 400) {
          errorCode = "redirect_not_followed";
          error = `redirect_not_followed: HTTP ${status}${location ? ` to ${location}` : ""}; update the webhook URL instead`;
        } else if (status < 200 || status >= 300) {
          errorCode = "http_status";
          error = `http_status: HTTP ${status}`;
        }
        settle(finish({ status, errorCode, error, responseExcerpt: excerpt, responseHeaders: headers, responseTruncated: truncated, retryAfter }));
      };
      res.on("data", (chunk: Buffer) => {
        if (kept < limits.maxResponseBytes) {
          const part = chunk.subarray(0, limits.maxResponseBytes - kept);
          chunks.push(part);
          kept += part.length;
          if (part.length < chunk.length) truncated = true;
        } else truncated = true;
        // A full excerpt whose end has not been seen: what follows is never read.
        if (kept >= limits.maxResponseBytes) {
          truncated ||= !res.complete;
          done();
        }
      });
      res.on("end", done);
      res.on("error", done);
      // A receiver that sends headers and then stalls the body still answered: keep its status.
      req.removeAllListeners("error");
      req.on("error", done);
    });
    req.end(body);
  });
  return attempt(false);
}
