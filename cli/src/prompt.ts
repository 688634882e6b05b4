import type { Readable, Writable } from "node:stream";
import * as clack from "@clack/prompts";
import { Interrupted, UsageError } from "./errors.ts";

/**
 * Questions to the person at the terminal. Only asked when stdin and stderr are both terminals and
 * `--no-input` is not given; otherwise a missing answer is a usage error naming the flag that supplies
 * it, so scripts and CI fail fast instead of hanging on a prompt nobody sees. Prompts draw on stderr.
 */
export class Prompter {
  readonly interactive: boolean;
  readonly #input: Readable;
  readonly #output: Writable;

  constructor(options: { stdin: Readable & { isTTY?: boolean }; stderr: Writable & { isTTY?: boolean }; noInput: boolean }) {
    this.interactive = options.stdin.isTTY === true && options.stderr.isTTY === true && !options.noInput;
    this.#input = options.stdin;
    this.#output = options.stderr;
  }

  /** Something to read before the next question (drawn in the prompts' style at a terminal). */
  note(text: string): void {
    if (this.interactive) clack.log.info(text, { output: this.#output });
    else this.#output.write(`${text}\n`);
  }

  /** A line of text; `flag` names the option that answers it non-interactively. */
  async text(options: { message: string; flag: string; placeholder?: string; validate?: (value: string) => string | undefined }): Promise<string> {
    this.#require(options.flag, options.message);
    const answer = await clack.text({
      message: options.message,
      placeholder: options.placeholder,
      validate: options.validate ? (value) => options.validate!(value ?? "") : undefined,
      input: this.#input,
      output: this.#output,
    });
    return answered(answer).trim();
  }

  /** A secret (shown masked as it is typed), e.g. an SMS code. */
  async secret(options: { message: string; flag: string; validate?: (value: string) => string | undefined }): Promise<string> {
    this.#require(options.flag, options.message);
    const answer = await clack.password({
      message: options.message,
      validate: options.validate ? (value) => options.validate!(value ?? "") : undefined,
      input: this.#input,
      output: this.#output,
    });
    return answered(answer).trim();
  }

  /** Yes or no; without a terminal the caller's `flag` (e.g. `--yes`) must say yes. */
  async confirm(options: { message: string; flag: string; initialValue?: boolean }): Promise<boolean> {
    if (!this.interactive) {
      throw new UsageError(`Confirmation needed: ${options.message}`, `Pass ${options.flag} to go ahead without a prompt (${WHY_NOT_PROMPTING}).`);
    }
    const answer = await clack.confirm({
      message: options.message,
      initialValue: options.initialValue ?? false,
      input: this.#input,
      output: this.#output,
    });
    return answered(answer);
  }

  #require(flag: string, message: string): void {
    if (!this.interactive) {
      throw new UsageError(`Missing ${message.replace(/[?:]\s*$/, "").toLowerCase()}`, `Pass ${flag} (${WHY_NOT_PROMPTING}).`);
    }
  }
}

const WHY_NOT_PROMPTING = "not prompting: stdin is not a terminal, or --no-input was given";

function answered<T>(answer: T): Exclude<T, symbol> {
  if (clack.isCancel(answer)) throw new Interrupted();
  return answer as Exclude<T, symbol>;
}
