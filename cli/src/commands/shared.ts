import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { UsageError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";
import { EVENT_TYPES, type EventType } from "../sdk.ts";

/** `--yes`, shared by every command that destroys something. */
export const YES_FLAG = { yes: { type: "boolean", alias: "y", description: "Do not ask for confirmation (required without a terminal)" } } as const;

/**
 * Asks before a destructive action unless `--yes` was given; without a terminal `--yes` is required,
 * so a script never destroys something by accident or hangs on a question.
 */
export async function confirmOrYes(rt: Runtime, yes: boolean | undefined, message: string): Promise<void> {
  if (yes) return;
  const ok = await rt.prompt.confirm({ message, flag: "--yes" });
  if (!ok) throw new UsageError("Cancelled: nothing was changed");
}

/** The first line of stdin (for `--code -`, `--message -`), without its newline. */
export async function readStdinLine(stdin: Readable): Promise<string> {
  const lines = createInterface({ input: stdin, terminal: false });
  try {
    for await (const line of lines) return line.trim();
  } finally {
    lines.close();
  }
  throw new UsageError("Expected a line on stdin, got end of input");
}

/** All of stdin as bytes (a webhook body must be verified byte for byte). */
export async function readStdin(stdin: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** A phone number shown back to its owner: `+86 138****8000`. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, "");
  const national = digits.length === 13 && digits.startsWith("86") ? digits.slice(2) : digits;
  if (national.length !== 11) return phone.length > 4 ? `${"*".repeat(phone.length - 4)}${phone.slice(-4)}` : phone;
  return `+86 ${national.slice(0, 3)}****${national.slice(7)}`;
}

/** An API key shortened to what a summary shows (its 12-character prefix), for status lines. */
export function maskKey(key: string): string {
  return `${key.slice(0, 12)}…`;
}

/** Values of a repeatable flag, each also split on commas: `--country CN,HK --country MO`. */
export function listOf(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((value) => value.split(",")).map((value) => value.trim()).filter(Boolean);
}

/** A whole number from a flag, or a usage error naming the flag. */
export function integer(value: string, flag: string, bounds?: { min: number; max: number }): number {
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`${flag} must be a whole number, got "${value}"`);
  const number = Number(value);
  if (bounds && (number < bounds.min || number > bounds.max)) throw new UsageError(`${flag} must be ${bounds.min} to ${bounds.max}`);
  return number;
}

/**
 * `--events` (repeatable, comma-separated, short or long names, `all` for every type) as the
 * contract's long names without repeats; a typo is a usage error before any request.
 */
export function eventTypesOf(values: string[] | undefined): { all: boolean; types: EventType[] } {
  const names = listOf(values);
  if (names.includes("all")) return { all: true, types: [...EVENT_TYPES] };
  return { all: false, types: [...new Set(names.map(longEventType))] };
}

/**
 * The flags every command that selects events spells alike (`webhooks create|update`, `listen`,
 * `changes`): plural names, each repeatable and comma-separated.
 */
export const EVENT_FILTER_FLAGS = {
  events: { type: "string", valueHint: "types", description: "Event types, short (operator.updated) or long (ir21.operator.updated); repeatable or comma-separated; all for every type" },
  countries: { type: "string", valueHint: "CC,…", description: "Only events for these countries (ISO alpha-2; repeatable or comma-separated)" },
  operators: { type: "string", valueHint: "id,…", description: "Only events for these operator ids (repeatable or comma-separated)" },
} as const;

/** The 0.1 singular spellings of {@link EVENT_FILTER_FLAGS}, still accepted with a warning. */
export const OLD_EVENT_FILTER_SPELLINGS = {
  event: { flag: "events" },
  country: { flag: "countries" },
  operator: { flag: "operators" },
} as const;

/**
 * Ids carry their kind in their prefix (DESIGN.md "Conventions"), so where a command takes an id of
 * either of two kinds (a subscription's or a listen session's deliveries) the prefix tells which.
 */
export type IdKind = "webhook" | "session" | "delivery";
const ID_PREFIXES: Record<IdKind, string> = { webhook: "whk_", session: "lsn_", delivery: "dlv_" };

export function idKind(id: string): IdKind | null {
  for (const [kind, prefix] of Object.entries(ID_PREFIXES) as [IdKind, string][]) if (id.startsWith(prefix)) return kind;
  return null;
}

/**
 * Where a list has more than was printed: how to get the rest. On stderr; under `--json` too (as a
 * warning), since the printed array alone cannot say it is one page of several.
 */
export function moreHint(rt: Runtime, shown: number, nextCursor: string | null | undefined, command: string): void {
  if (!nextCursor) return;
  const text = `More than these ${shown}: \`${rt.commandPrefix()} ${command} --cursor ${nextCursor}\` for the next page, or --all for every one`;
  if (rt.out.json) rt.out.warn(text);
  else rt.out.info(text);
}

/**
 * `operator.updated` or `ir21.operator.updated` → the contract's long form; anything else is a usage
 * error before any request, naming the valid types.
 */
export function longEventType(name: string): EventType {
  const long = name.startsWith("ir21.") ? name : `ir21.${name}`;
  if ((EVENT_TYPES as readonly string[]).includes(long)) return long as EventType;
  throw new UsageError(`Unknown event type "${name}"`, `One of: ${EVENT_TYPES.map((t) => t.replace(/^ir21\./, "")).join(", ")} (with or without the ir21. prefix)`);
}

/**
 * An entity tag for If-None-Match: a quoted one (`"v"`, `W/"v"`) as given, a bare value quoted (what
 * `jq -r .etag` prints is already quoted; a version typed by hand is not). Characters an ETag cannot
 * hold (RFC 9110 §8.8.3: no quote, space or control character inside) are a usage error, not a request.
 */
export function quotedEtag(value: string, flag: string): string {
  const trimmed = value.trim();
  const quoted = /^(W\/)?"[^"]*"$/.test(trimmed) ? trimmed : `"${trimmed}"`;
  const inner = /^(?:W\/)?"(.*)"$/.exec(quoted)![1]!;
  if (inner === "" || !/^[\x21\x23-\x7e\x80-\xff]+$/.test(inner)) {
    throw new UsageError(`${flag} is not an ETag: ${JSON.stringify(value)}`, 'Give the ETag a previous download printed, e.g. "2026-11-23.000001-operators"');
  }
  return quoted;
}
