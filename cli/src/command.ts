import type { ArgDef, ArgsDef, CommandDef, ParsedArgs } from "citty";
import { UsageError } from "./errors.ts";

/**
 * How ir21 commands are declared on top of citty: citty parses and dispatches (`runCommand`), and
 * this module adds what a gh-style CLI needs around it: help with examples at every level, global
 * flags accepted anywhere on the line, strict checking of unknown flags and stray arguments (citty
 * itself parses loosely), and repeatable flags such as `--header`.
 */

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
  json: { type: "boolean", description: "Print the result as one JSON document on stdout (for scripts)" },
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
      return { globals, path, command, rawArgs: rest, repeated: {}, incomplete: true };
    }
    if (token.startsWith("-")) {
      if (globals.help) return { globals, path, command, rawArgs: rest, repeated: {}, incomplete: true };
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
  const repeated = globals.help ? {} : checkArguments(command, path, rest.slice(index));
  return { globals, path, command, rawArgs: rest, repeated, incomplete: false };
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

/** Checks a command's own arguments the way a strict parser would; returns the repeatable flags' values. */
function checkArguments(command: Ir21Command, path: string[], tokens: string[]): Record<string, string[]> {
  const args = (command.args ?? {}) as Record<string, ArgDef>;
  const byName = new Map<string, [string, ArgDef]>();
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    byName.set(`--${name}`, [name, def]);
    for (const alias of aliasesOf(def)) byName.set(alias.length === 1 ? `-${alias}` : `--${alias}`, [name, def]);
  }
  const positionals = Object.entries(args).filter(([, def]) => def.type === "positional");
  const repeatable = new Set(command.help.repeatable ?? []);
  const repeated: Record<string, string[]> = {};
  const seen = new Set<string>();
  const given: string[] = [];
  const fail = (message: string, hint?: string): never => {
    throw new CommandLineError(message, path, hint);
  };

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
    let entry = byName.get(flag);
    if (!entry && flag.startsWith("--no-")) {
      const negated = byName.get(`--${flag.slice(5)}`);
      if (negated && negated[1].type === "boolean" && inline === undefined) continue;
    }
    if (!entry) {
      const suggestion = closest(flag.replace(/^-+/, ""), [...byName.keys()].filter((k) => k.startsWith("--")).map((k) => k.slice(2)));
      return fail(`Unknown flag ${flag} for \`${["ir21", ...path].join(" ")}\``, suggestion ? `Did you mean --${suggestion}?` : undefined);
    }
    const [name, def] = entry;
    if (def.type === "boolean") {
      if (inline !== undefined && !["true", "false"].includes(inline)) fail(`${flag} takes no value`);
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
    if (repeatable.has(name)) (repeated[name] ??= []).push(value);
    else if (seen.has(name)) fail(`${flag} was given more than once`);
    seen.add(name);
  }

  for (const [name, def] of Object.entries(args)) {
    if (def.type !== "positional" && def.required && !seen.has(name)) fail(`Missing required flag --${name}`);
  }
  const required = positionals.filter(([, def]) => def.required !== false && def.default === undefined);
  if (given.length < required.length) {
    fail(`Missing argument ${required.slice(given.length).map(([name]) => `<${name.toUpperCase()}>`).join(" ")}`);
  }
  if (given.length > positionals.length && !command.help.variadic) {
    fail(`Unexpected argument "${given[positionals.length]}"`);
  }
  return repeated;
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
