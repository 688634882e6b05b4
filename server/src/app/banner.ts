import { stripVTControlCharacters } from "node:util";

/**
 * Whether text written to `stream` may carry ANSI colours: only to a terminal, and never when NO_COLOR
 * is set to anything (no-color.org) or TERM is dumb. citty, which prints `--help`, decides at load from
 * NO_COLOR=1 and CI alone, and so wrote colours into pipes.
 */
export function colourFor(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== "dumb";
}

/** `text` as it may be written to `stream`: its colours taken out unless {@link colourFor} allows them. */
export function forStream(text: string, stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): string {
  return colourFor(stream, env) ? text : stripVTControlCharacters(text);
}

export interface BannerFacts {
  /** The listener's URL, e.g. http://0.0.0.0:8787 */
  url: string;
  metricsUrl: string | null;
  version: string;
  database: string;
  datasetVersion: string;
}

/**
 * The few lines `ir21-server serve` prints for a person once it is ready, when its output is a
 * terminal (app/main.ts): where the console, the API reference and the health checks are. On a pipe
 * only the JSON log lines are written (the same facts are in "ir21 server listening").
 * @example
 * process.stdout.write(readyBanner({ url: "http://127.0.0.1:8787", metricsUrl: null, version: "0.1.0", database: "sqlite", datasetVersion: "2026-…" }, true));
 */
export function readyBanner(facts: BannerFacts, colour: boolean): string {
  const bold = (text: string) => (colour ? `\u001b[1m${text}\u001b[22m` : text);
  const dim = (text: string) => (colour ? `\u001b[2m${text}\u001b[22m` : text);
  // A wildcard address is not one a browser can open: the same port on this machine is.
  const base = facts.url.replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, "http://localhost");
  const rows: Array<[string, string]> = [
    ["Console", `${base}/`],
    ["API docs", `${base}/docs`],
    ["Health", `${base}/healthz  ${base}/readyz`],
  ];
  if (facts.metricsUrl) rows.push(["Metrics", facts.metricsUrl]);
  rows.push(["Data", `${facts.database}, dataset ${facts.datasetVersion}`]);
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    "",
    `  ${bold(`ir21 server ${facts.version} is ready`)}`,
    "",
    ...rows.map(([label, value]) => `  ${dim(label.padEnd(width))}  ${value}`),
    "",
    `  ${dim("Stop with Ctrl-C. Logs are JSON lines; the same output on a pipe has only those.")}`,
    "",
    "",
  ].join("\n");
}
