import { describe, expect, it } from "vitest";
import { TEXT_ANSWER_BOUND, Utf8Builder } from "./utf8-builder.ts";

/** The reference is node's own encoder over the joined text: what a string body would have put on the wire. */
describe("Utf8Builder", () => {
  const samples = ["", "{", '"number":"+8613912345678"', "江苏省常州市", "Zürich", "😀 emoji", "\u{10FFFF}", "a\uD800b", "\uDC00", '"\\u2028"', "y".repeat(400), "x".repeat(5000)];

  it("gives the bytes of the joined text, whichever pieces came as bytes", () => {
    let seed = 7;
    // An LCG's high bits: its low bits repeat with a short period (the lowest alternates).
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16;
    for (let round = 0; round < 500; round++) {
      const pieces = Array.from({ length: next() % 12 }, () => samples[next() % samples.length]!);
      const out = new Utf8Builder();
      // The builder's bound: 3 bytes a UTF-16 unit of text, a byte piece's own length.
      let bound = 0;
      for (const piece of pieces) {
        if (next() % 2) {
          out.text(piece);
          bound += piece.length * 3;
        } else {
          out.bytes(Buffer.from(piece));
          bound += Buffer.byteLength(piece);
        }
      }
      const expected = Buffer.from(pieces.join(""));
      expect(out.toBuffer().equals(expected), JSON.stringify(pieces)).toBe(true);
      expect(out.toString()).toBe(expected.toString("utf8"));
      // The answer: text or bytes, the same bytes on the wire (node writes a string body as UTF-8).
      const answer = out.toAnswer();
      expect(Buffer.from(answer).equals(expected), JSON.stringify(pieces)).toBe(true);
      if (typeof answer === "string") expect(bound, "only small answers are text").toBeLessThanOrEqual(TEXT_ANSWER_BOUND);
      else expect(bound, "a small answer is text").toBeGreaterThan(TEXT_ANSWER_BOUND);
    }
  });

  it("empty: an empty buffer", () => {
    expect(new Utf8Builder().toBuffer().length).toBe(0);
  });
});
