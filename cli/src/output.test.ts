import { describe, expect, it } from "vitest";
import { colorEnabled, fitWidths, Output } from "./output.ts";

/** In-process checks of the output rules (cli/README.md "Grammar" and the colour rules). */

function sink(isTTY: boolean) {
  let text = "";
  return { stream: { isTTY, columns: 80, write: (chunk: string) => (text += chunk) }, text: () => text };
}

describe("fitWidths", () => {
  it("cuts the widest column first, never an id column", () => {
    // ID (30, an id), NAME (40), STATUS (8): 82 cells with the gaps, 60 to fit.
    const widths = fitWidths([30, 40, 8], 60, [true, false, false]);
    expect(widths[0]).toBe(30);
    expect(widths.reduce((a, b) => a + b, 0) + 4).toBe(60);
    // Without the mark the id would have given way too.
    expect(fitWidths([30, 40, 8], 40)[0]).toBeLessThan(30);
  });

  it("keeps ids whole when even the other columns at their minimum do not fit (the terminal wraps)", () => {
    const widths = fitWidths([30, 30, 20], 40, [true, true, false]);
    expect(widths).toEqual([30, 30, 6]);
  });
});

describe("colorEnabled", () => {
  it.each([
    // [isTTY, env, mode, expected]
    [true, {}, "auto", true],
    [false, {}, "auto", false],
    [true, { NO_COLOR: "1" }, "auto", false],
    [true, { NO_COLOR: "" }, "auto", true], // no-color.org: set and not empty
    [true, { TERM: "dumb" }, "auto", false],
    [false, { FORCE_COLOR: "1" }, "auto", true],
    [false, { FORCE_COLOR: "true" }, "auto", true],
    [true, { FORCE_COLOR: "0" }, "auto", false],
    [true, { FORCE_COLOR: "false" }, "auto", false],
    [true, { FORCE_COLOR: "" }, "auto", true], // empty: not set
    [false, { FORCE_COLOR: "1", NO_COLOR: "1" }, "auto", true], // FORCE_COLOR wins, as in Node
    [false, {}, "always", true],
    [true, { FORCE_COLOR: "1" }, "never", false],
  ] as const)("tty=%s env=%j --color %s → %s", (isTTY, env, mode, expected) => {
    expect(colorEnabled(isTTY, env, mode)).toBe(expected);
  });

  it("IR21_FORCE_TTY lays a pipe out as a terminal without colouring it", () => {
    const stdout = sink(false);
    const out = new Output({ stdout: stdout.stream, stderr: sink(false).stream, json: false, env: { IR21_FORCE_TTY: "100" } });
    out.table([{ id: "key_0123456789abcdefghjkmnpqrs", status: "active" }], [{ header: "ID", value: (r) => r.id, id: true }, { header: "STATUS", value: (r) => r.status, style: (t) => out.c.green(t) }], "none");
    expect(stdout.text()).toMatch(/^ID\s+STATUS\nkey_0123456789abcdefghjkmnpqrs\s+active\n$/);
    expect(stdout.text()).not.toContain("\x1b[");
  });
});

describe("Output.result", () => {
  it("prints the resource under --json, the 0.1 shape only with IR21_LEGACY_JSON=1", () => {
    const items = [{ id: "key_1" }];
    for (const [env, expected] of [[{}, items], [{ IR21_LEGACY_JSON: "1" }, { items }], [{ IR21_LEGACY_JSON: "0" }, items]] as const) {
      const stdout = sink(false);
      new Output({ stdout: stdout.stream, stderr: sink(false).stream, json: true, env }).result(items, () => {}, { items });
      expect(JSON.parse(stdout.text())).toEqual(expected);
    }
  });
});
