import type { ArgDef } from "citty";
import stringWidth from "string-width";
import { aliasesOf, GLOBAL_FLAGS, OLD_SPELLINGS_REMOVED_IN, positionalLabel, usageLine, type Category, type Ir21Command } from "./command.ts";
import type { Output } from "./output.ts";

const CATEGORY_ORDER: Category[] = ["Account", "Console", "Webhooks", "Data", "Setup"];

/**
 * The help of one command, gh-style: what it does, usage, its arguments and flags, the global flags,
 * its subcommands, examples. Printed by `--help`/`-h`/`ir21 help …` at every level.
 */
export function renderHelp(command: Ir21Command, path: string[], out: Pick<Output, "c">): string {
  const { c } = out;
  const name = ["ir21", ...path].join(" ");
  const args = Object.entries((command.args ?? {}) as Record<string, ArgDef>);
  const positionals = args.filter(([, def]) => def.type === "positional");
  const flags = args.filter(([, def]) => def.type !== "positional");
  const lines: string[] = [];
  const heading = (text: string) => {
    lines.push("", c.bold(text));
  };

  lines.push(command.help.details ? `${command.help.summary}\n\n${command.help.details}` : command.help.summary);

  heading("USAGE");
  lines.push(`  ${usageLine(command, path)}`);

  if (command.subCommands) {
    const entries = Object.entries(command.subCommands);
    const byCategory = new Map<string, [string, Ir21Command][]>();
    for (const entry of entries) {
      const category = path.length === 0 ? (entry[1].help.category ?? "Setup") : "";
      byCategory.set(category, [...(byCategory.get(category) ?? []), entry]);
    }
    const categories = [...byCategory.keys()].sort((a, b) => CATEGORY_ORDER.indexOf(a as Category) - CATEGORY_ORDER.indexOf(b as Category));
    const width = Math.max(...entries.map(([sub]) => stringWidth(sub) + 1));
    for (const category of categories) {
      heading(category ? `${category.toUpperCase()} COMMANDS` : "COMMANDS");
      lines.push(...columns(byCategory.get(category)!.map(([sub, def]) => [`${sub}:`, def.help.summary]), width));
    }
  }

  if (positionals.length > 0) {
    heading("ARGUMENTS");
    lines.push(...columns(positionals.map(([argName, def]) => [positionalLabel(argName, def), def.description ?? ""])));
  }
  if (flags.length > 0) {
    heading("FLAGS");
    lines.push(...columns(flags.map(([flag, def]) => flagRow(flag, def))));
  }
  heading(path.length === 0 ? "FLAGS" : "GLOBAL FLAGS");
  const globals = (Object.entries(GLOBAL_FLAGS) as [string, ArgDef][]).map(([flag, def]) => flagRow(flag, def));
  if (path.length === 0) globals.push(["    --version", "Show the version"]);
  lines.push(...columns(globals));

  if (command.help.examples?.length) {
    heading("EXAMPLES");
    lines.push(...command.help.examples.map((example) => `  $ ${example}`));
  }

  if (path.length === 0) {
    heading("EXIT CODES");
    lines.push(
      ...columns([
        ["0", "Done"],
        ["1", "Usage error: unknown command or flag, bad or missing value, or a local failure"],
        ["2", "The service answered with an error (its code, message and request id are printed)"],
        ["3", "Login needed: no session for this server, or it expired or was revoked"],
      ]),
    );
    heading("ENVIRONMENT");
    lines.push(
      ...columns([
        ["IR21_BASE_URL", "The server (instead of the profile's; --base-url wins)"],
        ["IR21_API_KEY", "API key for data commands (--api-key wins)"],
        ["IR21_PROFILE", "The profile to use (--profile wins)"],
        ["XDG_CONFIG_HOME", "Where profiles live: $XDG_CONFIG_HOME/ir21 (default ~/.config/ir21)"],
        ["NO_COLOR", "Turn colour off"],
        ["FORCE_COLOR", "Colour even into a pipe (0 or false: never)"],
        ["IR21_FORCE_TTY", "Lay a pipe out as a terminal of this many columns (tables, not colour)"],
        ["IR21_LEGACY_JSON", `1: --json prints the 0.1 shapes ({items}, {item}, …) until ir21 ${OLD_SPELLINGS_REMOVED_IN}`],
      ]),
    );
  }

  heading("LEARN MORE");
  lines.push(
    command.subCommands
      ? `  Use \`${name} <command> --help\` for more about a command.`
      : `  Use \`${path.length > 1 ? ["ir21", ...path.slice(0, -1)].join(" ") : "ir21"} --help\` for related commands.`,
  );
  return `${lines.join("\n")}\n`;
}

function flagRow(flag: string, def: ArgDef): [string, string] {
  const short = aliasesOf(def).filter((a) => a.length === 1).map((a) => `-${a}, `).join("");
  const value = def.type === "boolean" ? "" : def.type === "enum" && def.options ? ` <${def.options.join("|")}>` : ` <${def.valueHint ?? "value"}>`;
  const notes = [def.description ?? ""];
  if (def.default !== undefined && def.type !== "boolean") notes.push(`(default ${def.default})`);
  if (def.required) notes.push("(required)");
  return [`${short ? short : "    "}--${flag}${value}`, notes.filter(Boolean).join(" ")];
}

function columns(rows: [string, string][], width = Math.max(...rows.map(([left]) => stringWidth(left)))): string[] {
  return rows.map(([left, right]) => `  ${left}${" ".repeat(width - stringWidth(left))}   ${right}`.trimEnd());
}
