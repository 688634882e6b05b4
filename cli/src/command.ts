import type { ArgDef, ArgsDef, CommandDef, ParsedArgs } from "citty";
import { UsageError } from "./errors.ts";

/**
 * How ir21 commands are declared on top of citty: citty parses and dispatches (`runCommand`), and
 * this module adds what a gh-style CLI needs around it: help with examples at every level, global
 * flags accepted anywhere on the line, strict checking of unknown flags and stray arguments (citty
 * itself parses loosely), repeatable flags such as `--header`, and the old spellings of 0.1 (rewritten
 * to the new grammar with a warning, until {@link OLD_SPELLINGS_REMOVED_IN}).
 *
 * The grammar (cli/README.md "Grammar"): the object a command acts on is a positional argument named
 * for what it is (`<webhook-id>`, `<url>`, `<number-or-imsi>`); flags qualify it; a flag taking a list
 * has a plural name and takes repeats and commas (`--events a,b --events c`), one taking one value a
 * singular name (`--country CN`).
 */

/** The version that drops the 0.1 spellings (and IR21_LEGACY_JSON); named in every warning. */
export const OLD_SPELLINGS_REMOVED_IN = "0.3.0";

/**
 * A 0.1 flag that still works, rewritten before parsing: renamed to another flag (`--event` →
 * `--events`), or its value made a positional argument (`--url U` → `<url>`), optionally mapped
 * (`export --format snapshot` → `snapshot`; `--format csv` → `number-ranges`, but only when no
 * `--resource` names another: a weak value; null drops the flag).
 */
export type OldSpelling = {
  alias?: string;
} & (
  | { flag: string }
  | {
      positional: string;
      /** The positional's value for the old flag's value; `weak` ones count only when nothing else gives it. */
      value?: (old: string) => { value: string; weak?: boolean } | null;
    }
);

export type Category = "Account" | "Console" | "Webhooks" | "Data" | "Setup";

export interface HelpInfo {
  /** One line, shown in the parent's command list. */
  summary: string;
  /** Paragraphs shown at the top of the command's own help. */
  details?: string;
  examples?: string[];
  category?: Category;
  /** Flags that may be given more than once; their values are collected in order. */
  repeatable?: string[];
  /** Takes any number of extra positional arguments (read from `args._`). */
  variadic?: string;
  /** The fixed values the first positional argument takes (`completion <shell>`), offered by shell completion. */
  choices?: readonly string[];
  /** The arguments as USAGE shows them, where the declared positionals cannot say it (ids told apart by prefix). */
  usage?: string;
  /** 0.1 flags that still work, by name (without dashes), with a warning naming the new spelling. */
  oldSpellings?: Record<string, OldSpelling>;
  /**
   * A 0.1 form of the positional arguments that still works (`ir21 api GET /path`): the new form's
   * positionals and flags for it, and the warning; null when `given` is not the old form.
   */
  oldArguments?: (given: string[]) => { given: string[]; flags: string[]; notice: string } | null;
}

export type Ir21Command = CommandDef<any> & { help: HelpInfo; subCommands?: Record<string, Ir21Command> };

/**
 * A command that runs.
 * @example
 * leaf({ summary: "List API keys", args: {}, run: async () => { … } })
 */
export function leaf<const T extends ArgsDef>(spec: HelpInfo & { args: T; run: (args: ParsedArgs<T>) => Promise<void> }): Ir21Command {
  const { args, run, ...help } = spec;
  return { meta: { description: spec.summary }, args, run: ({ args: parsed }) => run(parsed as ParsedArgs<T>), help };
}

/** A command made of subcommands (`ir21 keys list|create|revoke`). */
export function group(spec: HelpInfo & { commands: Record<string, Ir21Command> }): Ir21Command {
  const { commands, ...help } = spec;
  return { meta: { description: spec.summary }, subCommands: commands, help };
}

/** Flags every command accepts, anywhere on the command line. */
export const GLOBAL_FLAGS = {
  json: { type: "boolean", description: "Print the result as one JSON document on stdout, for scripts: the item, or a list's array" },
  profile: { type: "string", valueHint: "name", description: "Use this profile (a server and its login); default $IR21_PROFILE or \"default\"" },
  "base-url": { type: "string", valueHint: "url", description: "The server, e.g. https://ir21.example.com (overrides $IR21_BASE_URL and the profile)" },
  "api-key": { type: "string", valueHint: "key", description: "API key for data commands (overrides $IR21_API_KEY and the profile)" },
  "no-input": { type: "boolean", description: "Never prompt: fail when an answer is missing (implied when stdin is not a terminal)" },
  color: { type: "enum", options: ["auto", "always", "never"], default: "auto", description: "Colour: auto (on a terminal, unless NO_COLOR), always or never" },
  help: { type: "boolean", alias: "h", description: "Show help for the command" },
} as const satisfies ArgsDef;

export interface Globals {
  json: boolean;
  profile?: string;
  baseUrl?: string;
  apiKey?: string;
  noInput: boolean;
  help: boolean;
  version: boolean;
  color: "auto" | "always" | "never";
}

export interface Invocation {
  globals: Globals;
  /** The command words, e.g. ["keys", "create"]. */
  path: string[];
  command: Ir21Command;
  /** What citty parses: the command line without the global flags. */
  rawArgs: string[];
  /** Values of repeatable flags, in order. */
  repeated: Record<string, string[]>;
  /** True when the line names a group but not one of its commands. */
  incomplete: boolean;
  /** Warnings for old spellings that were rewritten (printed on stderr before the command runs). */
  notices: string[];
}

/** A usage error that also shows the help of the command it is about. */
export class CommandLineError extends UsageError {
  constructor(
    message: string,
    readonly path: string[],
    hint?: string,
  ) {
    super(message, hint ?? `Run \`${["ir21", ...path].join(" ")} --help\` for usage.`);
  }
}

/** Finds the command the words name, and checks its flags and arguments (after {@link extractGlobals}). */
export function parseInvocation(root: Ir21Command, globals: Globals, rest: string[]): Invocation {
  let command = root;
  const path: string[] = [];
  let index = 0;
  while (command.subCommands) {
    const token = rest[index];
    if (token === undefined) {
      return { globals, path, command, rawArgs: rest, repeated: {}, incomplete: true, notices: [] };
    }
    if (token.startsWith("-")) {
      if (globals.help) return { globals, path, command, rawArgs: rest, repeated: {}, incomplete: true, notices: [] };
      throw new CommandLineError(`Unknown flag ${token} for \`${["ir21", ...path].join(" ")}\``, path);
    }
    const next = command.subCommands[token];
    if (!next) {
      const suggestion = closest(token, Object.keys(command.subCommands));
      throw new CommandLineError(
        `Unknown command "${token}" for \`${["ir21", ...path].join(" ")}\``,
        path,
        suggestion ? `Did you mean \`${["ir21", ...path, suggestion].join(" ")}\`? Run \`${["ir21", ...path].join(" ")} --help\` for the list.` : undefined,
      );
    }
    command = next;
    path.push(token);
    index++;
  }
  if (globals.help) return { globals, path, command, rawArgs: rest, repeated: {}, incomplete: false, notices: [] };
  const checked = checkArguments(command, path, rest.slice(index));
  return { globals, path, command, rawArgs: [...path, ...checked.tokens], repeated: checked.repeated, incomplete: false, notices: checked.notices };
}

/** The warning for an old spelling: what to write instead, and when the old one stops working. */
export function oldSpellingNotice(old: string, instead: string): string {
  return `${old} is deprecated: use ${instead} (the old spelling stops working in ir21 ${OLD_SPELLINGS_REMOVED_IN}).`;
}

/** The command's synopsis: `ir21 webhooks create <url> [flags]`. */
export function usageLine(command: Ir21Command, path: string[]): string {
  const name = ["ir21", ...path].join(" ");
  if (command.subCommands) return `${name} <command> [flags]`;
  if (command.help.usage) return `${name} ${command.help.usage} [flags]`;
  const positionals = Object.entries((command.args ?? {}) as Record<string, ArgDef>).filter(([, def]) => def.type === "positional");
  const words = positionals.map(([argName, def]) => (def.required === false || def.default !== undefined ? `[${positionalLabel(argName, def)}]` : positionalLabel(argName, def)));
  if (command.help.variadic) words.push(`[${command.help.variadic}...]`);
  return [name, ...words, "[flags]"].join(" ");
}

/** How a positional argument is shown: `<webhook-id>` (its valueHint when it has one). */
export function positionalLabel(name: string, def: ArgDef): string {
  return `<${def.valueHint ?? name}>`;
}

const VALUE_GLOBALS = { "--profile": "profile", "--base-url": "baseUrl", "--api-key": "apiKey", "--color": "color" } as const;
const COLOR_VALUES = ["auto", "always", "never"];

/** Splits the global flags (accepted anywhere before `--`) off the command line. */
export function extractGlobals(argv: readonly string[]): { globals: Globals; rest: string[] } {
  const globals: Globals = { json: false, noInput: false, help: false, version: false, color: "auto" };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (token === "--json") globals.json = true;
    else if (token === "--no-input") globals.noInput = true;
    else if (token === "--help" || token === "-h") globals.help = true;
    else if (token === "--version" && rest.length === 0) globals.version = true;
    else {
      const [name, inline] = splitFlag(token);
      const key = VALUE_GLOBALS[name as keyof typeof VALUE_GLOBALS];
      if (!key) {
        rest.push(token);
        continue;
      }
      const value = inline ?? argv[i + 1];
      if (value === undefined || (inline === undefined && value.startsWith("-"))) {
        throw new UsageError(`${name} needs a value`, `e.g. ${name}=VALUE`);
      }
      if (inline === undefined) i++;
      if (key === "color") {
        if (!COLOR_VALUES.includes(value)) throw new UsageError(`Invalid value "${value}" for --color: expected one of ${COLOR_VALUES.join(", ")}`);
        globals.color = value as Globals["color"];
      } else globals[key] = value;
    }
  }
  // `ir21 help keys create` is `ir21 keys create --help`.
  if (rest[0] === "help") {
    rest.shift();
    globals.help = true;
  }
  return { globals, rest };
}

function splitFlag(token: string): [string, string | undefined] {
  const eq = token.indexOf("=");
  return eq > 0 && token.startsWith("--") ? [token.slice(0, eq), token.slice(eq + 1)] : [token, undefined];
}

/**
 * Checks a command's own arguments the way a strict parser would, rewriting old spellings to the new
 * grammar. Returns the tokens citty parses (flags, then the positionals), the repeatable flags' values
 * and the warnings for old spellings.
 */
function checkArguments(command: Ir21Command, path: string[], input: string[]): { tokens: string[]; repeated: Record<string, string[]>; notices: string[] } {
  const args = (command.args ?? {}) as Record<string, ArgDef>;
  const byName = new Map<string, [string, ArgDef]>();
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    byName.set(`--${name}`, [name, def]);
    for (const alias of aliasesOf(def)) byName.set(alias.length === 1 ? `-${alias}` : `--${alias}`, [name, def]);
  }
  const old = new Map<string, [string, OldSpelling]>();
  for (const [name, spelling] of Object.entries(command.help.oldSpellings ?? {})) {
    old.set(`--${name}`, [name, spelling]);
    if (spelling.alias) old.set(spelling.alias.length === 1 ? `-${spelling.alias}` : `--${spelling.alias}`, [name, spelling]);
  }
  const positionals = Object.entries(args).filter(([, def]) => def.type === "positional");
  const repeatable = new Set(command.help.repeatable ?? []);
  const repeated: Record<string, string[]> = {};
  const seen = new Set<string>();
  const given: string[] = [];
  const flags: string[] = [];
  /** Positionals that came from old flags: after the ones typed, since a flag has no position. */
  const fromFlags: Array<{ value: string; weak: boolean }> = [];
  const notices: string[] = [];
  const name = ["ir21", ...path].join(" ");
  const fail = (message: string, hint?: string): never => {
    throw new CommandLineError(message, path, hint);
  };

  const tokens = [...input];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === "--") {
      given.push(...tokens.slice(i + 1));
      break;
    }
    if (!token.startsWith("-") || token === "-") {
      given.push(token);
      continue;
    }
    const [flag, inline] = splitFlag(token);
    const oldSpelling = byName.has(flag) ? undefined : old.get(flag);
    if (oldSpelling) {
      const [, spelling] = oldSpelling;
      const value = inline ?? tokens[i + 1];
      if (value === undefined || (inline === undefined && value.startsWith("-") && value !== "-")) return fail(`${flag} needs a value`);
      if (inline === undefined) i++;
      if ("flag" in spelling) {
        notices.push(oldSpellingNotice(flag, `--${spelling.flag}`));
        // Checked as the new flag: the next turn of the loop reads it.
        tokens.splice(i + 1, 0, `--${spelling.flag}=${value}`);
      } else {
        const positional = args[spelling.positional];
        const label = positional ? positionalLabel(spelling.positional, positional) : `<${spelling.positional}>`;
        notices.push(oldSpellingNotice(flag, `the ${label} argument, \`${usageLine(command, path)}\``));
        const mapped = spelling.value ? spelling.value(value) : { value };
        if (mapped) fromFlags.push({ value: mapped.value, weak: mapped.weak === true });
      }
      continue;
    }
    let entry = byName.get(flag);
    if (!entry && flag.startsWith("--no-")) {
      const negated = byName.get(`--${flag.slice(5)}`);
      if (negated && negated[1].type === "boolean" && inline === undefined) {
        flags.push(token);
        continue;
      }
    }
    if (!entry) {
      const suggestion = closest(flag.replace(/^-+/, ""), [...byName.keys()].filter((k) => k.startsWith("--")).map((k) => k.slice(2)));
      return fail(`Unknown flag ${flag} for \`${name}\``, suggestion ? `Did you mean --${suggestion}?` : undefined);
    }
    const [argName, def] = entry;
    if (def.type === "boolean") {
      if (inline !== undefined && !["true", "false"].includes(inline)) fail(`${flag} takes no value`);
      flags.push(token);
      continue;
    }
    const value = inline ?? tokens[i + 1];
    if (value === undefined || (inline === undefined && value.startsWith("-") && value !== "-")) {
      return fail(`${flag} needs a value`, `e.g. ${flag}=${def.valueHint ?? "VALUE"}`);
    }
    if (inline === undefined) i++;
    if (def.type === "enum" && def.options && !def.options.includes(value)) {
      fail(`Invalid value "${value}" for ${flag}: expected one of ${def.options.join(", ")}`);
    }
    if (repeatable.has(argName)) (repeated[argName] ??= []).push(value);
    else if (seen.has(argName)) fail(`${flag} was given more than once`);
    seen.add(argName);
    // Handed to citty in one token, so a value starting with "-" (`--data -`) is never read as a flag.
    flags.push(`--${argName}=${value}`);
  }

  const strong = fromFlags.filter((p) => !p.weak).map((p) => p.value);
  const weak = fromFlags.filter((p) => p.weak).map((p) => p.value);
  given.push(...strong, ...(given.length + strong.length === 0 ? weak.slice(0, 1) : []));
  const oldForm = command.help.oldArguments?.(given);
  if (oldForm) {
    given.splice(0, given.length, ...oldForm.given);
    for (const flag of oldForm.flags) {
      const [flagName] = splitFlag(flag);
      const entry = byName.get(flagName);
      if (entry && seen.has(entry[0])) fail(`${flagName} was given more than once`);
      if (entry) seen.add(entry[0]);
      flags.push(flag);
    }
    notices.push(oldForm.notice);
  }

  for (const [flagName, def] of Object.entries(args)) {
    if (def.type !== "positional" && def.required && !seen.has(flagName)) fail(`Missing required flag --${flagName}`);
  }
  const required = positionals.filter(([, def]) => def.required !== false && def.default === undefined);
  if (given.length < required.length) {
    const [missingName, missing] = required[given.length]!;
    const example = command.help.examples?.[0];
    fail(
      `Missing ${positionalLabel(missingName, missing)}: ${lowerFirst(missing.description ?? missingName)}`,
      `${example ? `e.g. \`${example}\`. ` : ""}Run \`${name} --help\` for usage.`,
    );
  }
  if (given.length > positionals.length && !command.help.variadic) {
    fail(`Unexpected argument "${given[positionals.length]}"`, `Usage: \`${usageLine(command, path)}\`. Run \`${name} --help\` for more.`);
  }
  return { tokens: [...flags, "--", ...given], repeated, notices };
}

/** "The subscription's id" → "the subscription's id", in the middle of a sentence; "IMSI" stays. */
function lowerFirst(text: string): string {
  return /^[A-Z](?![A-Z])/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

/** The candidate nearest to `input` by edit distance, if it is plausibly a typo of it. */
export function closest(input: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(input, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && (bestDistance <= 2 || best.startsWith(input)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** A flag's aliases (positional arguments have none). */
export function aliasesOf(def: ArgDef): string[] {
  return "alias" in def && def.alias !== undefined ? [def.alias].flat() : [];
}
