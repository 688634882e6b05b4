import { describe, expect, it } from "vitest";
import { Utf8Builder } from "./utf8-builder.ts";

/** The reference is node's own encoder over the joined text: what a string body would have put on the wire. */
describe("Utf8Builder", () => {
  const samples = ["", "{", '"number":"+8613912345678"', "江苏省常州市", "Zürich", "😀 emoji", "\u{10FFFF}", "a\uD800b", "\uDC00", '"\\u2028"', "x".repeat(5000)];

  it("gives the bytes of the joined text, whichever pieces came as bytes", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let round = 0; round < 500; round++) {
      const pieces = Array.from({ length: next() % 12 }, () => samples[next() % samples.length]!);
      const out = new Utf8Builder();
      for (const piece of pieces) next() % 2 ? out.text(piece) : out.bytes(Buffer.from(piece));
      const expected = Buffer.from(pieces.join(""));
      expect(out.toBuffer().equals(expected), JSON.stringify(pieces)).toBe(true);
      expect(out.toString()).toBe(expected.toString("utf8"));
    }
  });

  it("empty: an empty buffer", () => {
    expect(new Utf8Builder().toBuffer().length).toBe(0);
  });
});
