import { humanBytes, type Progress } from "./output.ts";

/** At most this many redraws a second: a fast download must not spend its time repainting a terminal. */
export const MAX_REDRAWS_PER_SECOND = 10;

/**
 * The download line of `ir21 export`: bytes so far, the total when the server sent it (with a
 * percentage), and the average rate, redrawn at most {@link MAX_REDRAWS_PER_SECOND} times a second.
 * `now` is the clock (ms), injected so tests can drive time.
 * @example
 * const onProgress = downloadProgress(rt.out.progress(), "operators.csv");
 * await client.exportCsv("operators", { onProgress });
 */
export function downloadProgress(progress: Pick<Progress, "update">, label: string, now: () => number = () => performance.now()): (state: { bytes: number; total: number | null }) => void {
  const interval = 1000 / MAX_REDRAWS_PER_SECOND;
  const started = now();
  let lastDrawn = -Infinity;
  return ({ bytes, total }) => {
    const at = now();
    const finished = total !== null && bytes >= total;
    if (at - lastDrawn < interval && !finished) return;
    lastDrawn = at;
    const seconds = (at - started) / 1000;
    const rate = seconds > 0 ? `${humanBytes(Math.round(bytes / seconds))}/s` : null;
    const size = total !== null && total > 0 ? `${humanBytes(bytes)} of ${humanBytes(total)} (${Math.floor((bytes / total) * 100)}%)` : humanBytes(bytes);
    progress.update(`Downloading ${label}: ${size}${rate ? ` at ${rate}` : ""}`);
  };
}
