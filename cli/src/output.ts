import pc from "picocolors";
import stringWidth from "string-width";

/**
 * Everything the CLI prints goes through here. The rules (cli/README.md "Output"):
 * - stdout carries the result only: with `--json` exactly one JSON document (the service's `data`,
 *   unchanged), otherwise tables and fields for people; nothing else, so `> file` and pipes stay clean.
 * - stderr carries everything else: status lines, warnings, prompts, progress and errors.
 * - colour only when the stream is a terminal (and NO_COLOR is unset); progress only on a terminal.
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
}

type Colors = ReturnType<typeof pc.createColors>;

function colorsFor(stream: OutStream, env: Record<string, string | undefined>): Colors {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0";
  const enabled = forced || (stream.isTTY === true && !env.NO_COLOR && env.TERM !== "dumb");
  return pc.createColors(enabled);
}

export class Output {
  readonly json: boolean;
  /** Colours for stdout and stderr, each on only when that stream is a terminal. */
  readonly c: Colors;
  readonly ce: Colors;
  readonly #stdout: OutStream;
  readonly #stderr: OutStream;

  constructor(options: { stdout: OutStream; stderr: OutStream; json: boolean; env: Record<string, string | undefined> }) {
    this.#stdout = options.stdout;
    this.#stderr = options.stderr;
    this.json = options.json;
    this.c = colorsFor(options.stdout, options.env);
    this.ce = colorsFor(options.stderr, options.env);
  }

  get stderrIsTTY(): boolean {
    return this.#stderr.isTTY === true;
  }

  /**
   * The result of a command: `data` as JSON with `--json`, otherwise whatever `human` prints.
   * @example
   * out.result(data, () => out.table(data.items, columns));
   */
  result(data: unknown, human: () => void): void {
    if (this.json) this.#stdout.write(`${JSON.stringify(data, null, 2)}\n`);
    else human();
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

  /** Rows as aligned columns with a header; an empty list prints `empty` on stderr instead. */
  table<T>(rows: readonly T[], columns: readonly Column<T>[], empty: string): void {
    if (rows.length === 0) {
      this.info(empty);
      return;
    }
    const cells = rows.map((row) => columns.map((column) => cellText(column.value(row))));
    const widths = columns.map((column, i) => Math.max(stringWidth(column.header), ...cells.map((r) => stringWidth(r[i]!))));
    const render = (texts: string[], style: (text: string, i: number) => string) =>
      texts
        .map((text, i) => {
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
