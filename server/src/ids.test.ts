import { describe, expect, it } from "vitest";
import { newId } from "./ids.ts";

describe("newId", () => {
  it("is the prefix and 26 Crockford base32 characters, sorting by creation time", () => {
    const early = newId("req", Date.parse("2026-01-01T00:00:00Z"));
    const late = newId("req", Date.parse("2026-01-01T00:00:00.001Z"));
    expect(early).toMatch(/^req_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(early < late).toBe(true);
  });

  it("never repeats, across many refills of the random pool", () => {
    const at = Date.now();
    const ids = new Set<string>();
    for (let i = 0; i < 20_000; i++) ids.add(newId("evt", at));
    expect(ids.size).toBe(20_000);
    // With one timestamp, the random part is all that differs: 80 bits each, none repeated.
    const tails = new Set([...ids].map((id) => id.slice(14)));
    expect(tails.size).toBe(20_000);
  });
});
