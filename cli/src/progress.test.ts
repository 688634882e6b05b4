import { describe, expect, it } from "vitest";
import { downloadProgress, MAX_REDRAWS_PER_SECOND } from "./progress.ts";

describe("downloadProgress", () => {
  it("redraws at most 10 times a second however often the body reports, with bytes, total and rate", () => {
    let clock = 0;
    const lines: string[] = [];
    const onProgress = downloadProgress({ update: (text) => lines.push(text) }, "operators.csv", () => clock);
    // 2 seconds of a 1 kB chunk every millisecond: 2000 reports.
    let bytes = 0;
    for (let ms = 1; ms <= 2000; ms++) {
      clock = ms;
      bytes += 1024;
      onProgress({ bytes, total: 4 * 1024 * 1024 });
    }
    expect(MAX_REDRAWS_PER_SECOND).toBe(10);
    expect(lines.length).toBeLessThanOrEqual(2 * MAX_REDRAWS_PER_SECOND + 1);
    expect(lines.length).toBeGreaterThanOrEqual(2 * MAX_REDRAWS_PER_SECOND - 1);
    // Redraws at 1, 101, …, 1901 ms: the last shows 1901 kB of 4 MiB (46%), 1024 B per ms = 1000 kB/s.
    expect(lines.at(-1)).toBe("Downloading operators.csv: 1.9 MB of 4.0 MB (46%) at 1000.0 kB/s");
  });

  it("without a total shows bytes and rate only, and always draws the final state of a known total", () => {
    let clock = 0;
    const lines: string[] = [];
    const onProgress = downloadProgress({ update: (text) => lines.push(text) }, "snapshot", () => clock);
    clock = 500;
    onProgress({ bytes: 512, total: null });
    expect(lines).toEqual(["Downloading snapshot: 512 B at 1.0 kB/s"]);
    clock = 1000;
    const known = downloadProgress({ update: (text) => lines.push(text) }, "x", () => clock);
    known({ bytes: 10, total: 20 });
    clock = 1001;
    known({ bytes: 20, total: 20 }); // within the interval, but the last one
    // 20 B in 1 ms = 20 000 B/s = 19.5 kB/s.
    expect(lines.slice(1)).toEqual(["Downloading x: 10 B of 20 B (50%)", "Downloading x: 20 B of 20 B (100%) at 19.5 kB/s"]);
  });
});
