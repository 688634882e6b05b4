import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "./errors.ts";

describe("docs/errors.md", () => {
  it("lists exactly the codes of the error table, with the same statuses", () => {
    const doc = readFileSync(fileURLToPath(new URL("../../../docs/errors.md", import.meta.url)), "utf8");
    const documented = Object.fromEntries(
      [...doc.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]),
    );
    const table = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]));
    expect(documented).toEqual(table);
  });
});
