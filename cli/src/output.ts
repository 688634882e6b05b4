import pc from "picocolors";
import stringWidth from "string-width";

/**
 * Everything the CLI prints goes through here. The rules (cli/README.md "Output"):
 * - stdout carries the result only: with `--json` exactly one JSON document (the resource itself: the
 *   item a command created, changed or shows, the array a list command lists), otherwise tables and
 *   fields for people; nothing else, so `> file` and pipes stay clean.
 * - stderr carries everything else: status lines, warnings, prompts, progress and errors.
 * - colour: `--color auto` (the default) only on a stream that is really a terminal, and then not when
 *   NO_COLOR is set (non-empty) or TERM is dumb; FORCE_COLOR forces it on (FORCE_COLOR=0 or false off),
 *   pipes included. `--color always|never` decides outright. Progress only on a terminal.
 * - tables: on a terminal, aligned columns under a header, fitted to its width (the widest columns
 *   are cut with "…", never an id column: an id is there to be copied); anywhere else (a pipe, a file)
 *   one tab-separated line per row and no header, like gh, so `cut -f1` and `while read` work.
 * - IR21_FORCE_TTY=<columns> (or 1) lays stdout out as a terminal of that width (gh's GH_FORCE_TTY);
 *   it is still a pipe, so it gets no colour unless FORCE_COLOR or --color always asks for it.
 * - IR21_LEGACY_JSON=1 makes `--json` print the 0.1 shapes (`{items}`, `{item}`, …) until 0.3.0.
 */

export interface OutStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface Column<T> {
  header: string;
  value: (row: T) => string | number | boolean | null | undefined;
  /** Colour a cell (on a terminal only). */
  style?: (text: string, row: T) => string;
  /**
   * An id someone will copy (to revoke, retry, show…): never cut to fit the terminal. The other
   * columns give up their width first; a table of ids alone wider than the terminal wraps.
   */
  id?: boolean;
}

type Colors = ReturnType<typeof pc.createColors>;

export const COLOR_MODES = ["auto", "always", "never"] as const;
export type ColorMode = (typeof COLOR_MODES)[number];

/**
 * Whether a stream gets colour. `--color always|never` decide outright. Otherwise FORCE_COLOR decides
 * when it is set (to anything but "0" or "false": on, even into a pipe, as Node and the npm ecosystem
 * read it; "0"/"false": off), else colour needs a real terminal, NO_COLOR unset or empty
 * (https://no-color.org) and a TERM that is not dumb.
 */
export function colorEnabled(isTTY: boolean, env: Record<string, string | undefined>, mode: ColorMode): boolean {
  if (mode !== "auto") return mode === "always";
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force.toLowerCase() !== "false";
  return isTTY && !env.NO_COLOR && env.TERM !== "dumb";
}

function colorsFor(isTTY: boolean, env: Record<string, string | undefined>, mode: ColorMode): Colors {
  return pc.createColors(colorEnabled(isTTY, env, mode));
}

/** Narrowest a column is cut to when a table does not fit the terminal. */
const MIN_COLUMN_WIDTH = 6;
const DEFAULT_WIDTH = 80;
/** IR21_LEGACY_JSON values that turn the 0.1 JSON shapes on. */
const LEGACY_JSON_VALUES = new Set(["1", "true", "yes"]);

export class Output {
  readonly json: boolean;
  /** Colours for stdout and stderr, each on only when that stream is a terminal. */
  readonly c: Colors;
  readonly ce: Colors;
  /** Whether stdout is laid out for a terminal (tables for people) and how wide; otherwise tables are TSV. */
  readonly stdoutIsTTY: boolean;
  readonly width: number;
  /** `--json` prints the 0.1 shapes (IR21_LEGACY_JSON=1; see {@link result}). */
  readonly legacyJson: boolean;
  readonly #stdout: OutStream;
  readonly #stderr: OutStream;

  constructor(options: { stdout: OutStream; stderr: OutStream; json: boolean; env: Record<string, string | undefined>; color?: ColorMode }) {
    this.#stdout = options.stdout;
    this.#stderr = options.stderr;
    this.json = options.json;
    const forced = options.env.IR21_FORCE_TTY;
    const forcedWidth = forced && /^\d+$/.test(forced) && Number(forced) > 1 ? Number(forced) : undefined;
    this.stdoutIsTTY = options.stdout.isTTY === true || (forced !== undefined && forced !== "" && forced !== "0");
    this.width = forcedWidth ?? (options.stdout.columns || DEFAULT_WIDTH);
    this.legacyJson = LEGACY_JSON_VALUES.has(options.env.IR21_LEGACY_JSON ?? "");
    const mode = options.color ?? "auto";
    // Colour follows the real streams: IR21_FORCE_TTY changes the layout of a pipe, not what it is.
    this.c = colorsFor(options.stdout.isTTY === true, options.env, mode);
    this.ce = colorsFor(options.stderr.isTTY === true, options.env, mode);
  }

  get stderrIsTTY(): boolean {
    return this.#stderr.isTTY === true;
  }

  /**
   * The result of a command: with `--json` the resource itself as one JSON document (the created or
   * shown item, the array of a list), otherwise whatever `human` prints. `legacy` is what 0.1 printed
   * where that differs (`{items}`, `{item}`, …): printed instead while IR21_LEGACY_JSON=1, until 0.3.0.
   * @example
   * out.result(data.items, () => out.table(data.items, columns), data);
   */
  result(resource: unknown, human: () => void, legacy?: unknown): void {
    if (!this.json) human();
    else this.#stdout.write(`${JSON.stringify(this.legacyJson && legacy !== undefined ? legacy : resource, null, 2)}\n`);
  }

  /** A line of the human result on stdout. */
  line(text = ""): void {
    this.#stdout.write(`${text}\n`);
  }

  /** A status line on stderr ("✓ Revoked key …"); left out under `--json`, where scripts read stdout. */
  success(text: string): void {
    if (!this.json) this.#stderr.write(`${this.ce.green("✓")} ${text}\n`);
  }

  info(text: string): void {
    if (!this.json) this.#stderr.write(`${text}\n`);
  }

  /** A warning on stderr, shown even under `--json`. */
  warn(text: string): void {
    this.#stderr.write(`${this.ce.yellow("!")} ${text}\n`);
  }

  /** Raw text on stderr (errors, prompts' surroundings). */
  stderr(text: string): void {
    this.#stderr.write(text);
  }

  /**
   * Rows as a table: on a terminal, aligned columns with a header, fitted to its width; elsewhere
   * tab-separated lines without a header. An empty list prints `empty` on stderr instead.
   */
  table<T>(rows: readonly T[], columns: readonly Column<T>[], empty: string): void {
    if (rows.length === 0) {
      this.info(empty);
      return;
    }
    const cells = rows.map((row) => columns.map((column) => cellText(column.value(row))));
    if (!this.stdoutIsTTY) {
      // A tab or line break inside a value would split it: they become spaces.
      for (const texts of cells) this.line(texts.map((text) => text.replace(/[\t\r\n]+/g, " ")).join("\t"));
      return;
    }
    const natural = columns.map((column, i) => Math.max(stringWidth(column.header), ...cells.map((r) => stringWidth(r[i]!))));
    const widths = fitWidths(natural, this.width, columns.map((column) => column.id === true));
    const render = (texts: string[], style: (text: string, i: number) => string) =>
      texts
        .map((raw, i) => {
          const text = truncate(raw, widths[i]!);
          const last = i === texts.length - 1;
          const padded = last ? text : text + " ".repeat(widths[i]! - stringWidth(text));
          return style(padded, i);
        })
        .join("  ")
        .trimEnd();
    this.line(render(columns.map((c) => c.header), (text) => this.c.bold(text)));
    rows.forEach((row, r) => {
      this.line(render(cells[r]!, (text, i) => columns[i]!.style?.(text, row) ?? text));
    });
  }

  /** Label/value pairs, labels aligned: `Phone   +8613800138000`. */
  fields(pairs: ReadonlyArray<readonly [string, string | number | boolean | null | undefined]>): void {
    const width = Math.max(...pairs.map(([label]) => stringWidth(label)));
    for (const [label, value] of pairs) {
      this.line(`${this.c.dim(label + " ".repeat(width - stringWidth(label)))}  ${cellText(value)}`);
    }
  }

  /** A progress line redrawn in place on stderr when it is a terminal; silent when it is a file or pipe. */
  progress(): Progress {
    const live = this.#stderr.isTTY === true;
    let shown = false;
    return {
      update: (text: string) => {
        if (!live) return;
        this.#stderr.write(`\r\x1b[2K${text}`);
        shown = true;
      },
      done: () => {
        if (live && shown) this.#stderr.write("\r\x1b[2K");
        shown = false;
      },
    };
  }
}

export interface Progress {
  update(text: string): void;
  done(): void;
}

/**
 * Column widths that fit `total` columns of terminal (two spaces between columns): while the table is
 * too wide, the widest column that is not `fixed` (an id) gives up one cell, never below
 * {@link MIN_COLUMN_WIDTH}. A table that cannot fit even then keeps its minimum widths and its ids
 * whole (the terminal wraps it).
 */
export function fitWidths(natural: readonly number[], total: number, fixed: readonly boolean[] = []): number[] {
  const widths = [...natural];
  const used = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1);
  while (used() > total) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) if (!fixed[i] && widths[i]! > MIN_COLUMN_WIDTH && (widest === -1 || widths[i]! > widths[widest]!)) widest = i;
    if (widest === -1) break;
    widths[widest]!--;
  }
  return widths;
}

/** `text` cut to `width` terminal cells, ending in "…" when it was cut. */
export function truncate(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let out = "";
  for (const char of text) {
    if (stringWidth(out + char) > width - 1) break;
    out += char;
  }
  return `${out}…`;
}

function cellText(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "-";
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

/** An ISO time for people: local `YYYY-MM-DD HH:MM` (TZ respected); JSON keeps the ISO string. */
export function humanTime(iso: string | null | undefined): string {
  if (!iso) return "-";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** A byte count for people: `12.3 MB`. */
export function humanBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["kB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
