import { Writable } from "node:stream";
import { createLogger, type Logger } from "../src/log.ts";

/** A logger whose JSON lines are kept in memory, so tests can assert what was (not) logged. */
export interface LogCapture {
  log: Logger;
  /** Every line written so far, raw. */
  text(): string;
  /** Every line, parsed. */
  entries(): Array<Record<string, unknown>>;
}

export function captureLogs(level: "info" | "debug" = "info"): LogCapture {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString("utf8"));
      callback();
    },
  });
  const log = createLogger({ level, destination });
  return {
    log,
    text: () => chunks.join(""),
    entries: () =>
      chunks
        .join("")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
