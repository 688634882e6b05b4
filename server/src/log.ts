import { pino, type Logger, type LoggerOptions, type DestinationStream } from "pino";

export type { Logger };

/**
 * A mainland mobile number in any spelling we accept (11 digits, optionally +86/86/0086, with spaces
 * or hyphens). Lookbehind/lookahead keep it from matching inside longer digit runs such as ids.
 */
const PHONE = /(?<![\d])(?:\+?86[\s-]?|0086[\s-]?)?(1[3-9]\d)[\s-]?(\d{4})[\s-]?(\d{4})(?![\d])/g;

/**
 * Masks a mainland mobile number as 138****5678, the form the contract allows in logs.
 * @example
 * maskPhone("+8613812345678") // "138****5678"
 */
export function maskPhone(phone: string): string {
  return phone.replace(PHONE, (_m, head: string, _mid: string, tail: string) => `${head}****${tail}`);
}

/** Keys whose values never reach a log line, whatever object they sit in. */
const SECRET_KEYS = new Set([
  "code",
  "otp",
  "secret",
  "previous_secret",
  "key",
  "api_key",
  "apikey",
  "x-api-key",
  "token",
  "session",
  "cookie",
  "set-cookie",
  "authorization",
  "password",
  "session_secret",
  "otp_pepper",
]);

function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return maskPhone(value);
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { type: value.name, message: maskPhone(value.message), stack: value.stack };
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // Error codes such as "NOT_FOUND" share the key name with SMS codes but are not secrets.
    const isErrorCode = k === "code" && typeof v === "string" && /^[A-Z][A-Z0-9_]*$/.test(v);
    if (SECRET_KEYS.has(k.toLowerCase()) && !isErrorCode) {
      out[k] = "[redacted]";
    } else {
      out[k] = scrub(v, depth + 1);
    }
  }
  return out;
}

/**
 * JSON-lines logger. Phone numbers are masked and secret-named fields redacted in every line,
 * including the message text, so a careless call site cannot leak them.
 * @example
 * const log = createLogger({ level: "info" });
 * log.info({ phone: "+8613812345678" }, "sms sent"); // {"phone":"138****5678",...}
 */
export function createLogger(options: { level: LoggerOptions["level"]; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: "msg",
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => scrub(object) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          const masked = args.map((a) => (typeof a === "string" ? maskPhone(a) : a)) as Parameters<typeof method>;
          method.apply(this, masked);
        },
      },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/**
 * Writes `text` as it is to where the logger writes, after the lines it has not written out yet: the
 * logger's destination writes asynchronously and in order, so text written to stdout directly could
 * come before log lines still in flight (the first start's banner, app/main.ts).
 * @example
 * writeAfterLogLines(log, "ready\n");
 */
export function writeAfterLogLines(log: Logger, text: string): void {
  const stream = (log as unknown as Record<symbol, { write?: (chunk: string) => unknown } | undefined>)[pino.symbols.streamSym];
  if (typeof stream?.write === "function") stream.write(text);
  else process.stdout.write(text);
}
