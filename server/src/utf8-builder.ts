/**
 * Text assembled from pieces into one UTF-8 buffer (or, for a small answer, one string), some pieces
 * already encoded (answer fragments made once per dataset version), the rest strings made per request.
 *
 * Why not a joined string: a string answer is a rope of many pieces; the response flattens it (into a
 * two-byte string as soon as one piece holds a character above U+00FF, such as a Chinese location),
 * measures its UTF-8 length and encodes it again when writing. Fragments kept as bytes are copied
 * instead, and only the request's own strings are encoded, once, straight into the buffer
 * (docs/performance.md "Answers as bytes").
 *
 * A small answer is the other way round (`toAnswer`): a `fields=` lookup of a few hundred bytes is
 * mostly the request's own strings, and node writes a string body together with its head in one
 * chunk, so as text it skips the encoding into a buffer, the copy out of it and node's chunk of its own
 * (docs/performance.md "Lookup, ninth pass").
 * @example
 * const out = new Utf8Builder();
 * out.text('{"items":[').bytes(fragment).text("]}");
 * out.toBuffer(); // the same bytes as Buffer.from('{"items":[' + fragment + "]}")
 */
/** Where answers are assembled, reused (toBuffer is synchronous); grows to the largest bound seen. */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * An answer whose bound (see `#bound`) is at most this many bytes is made as text by `toAnswer`: the
 * `fields=` answers callers ask for most. A larger one stays bytes: its fragments are copied rather
 * than decoded and encoded again, and the flattened text of a long answer costs more than its copy.
 */
export const TEXT_ANSWER_BOUND = 1024;

/**
 * The text of a byte piece, decoded once: pieces are fragments made once per dataset version and live
 * as long as their version. Each is the UTF-8 of a string, so its text encodes to the same bytes again
 * (a lone surrogate was already U+FFFD in them).
 */
const texts = new WeakMap<Buffer, string>();
function textOf(piece: Buffer): string {
  let text = texts.get(piece);
  if (text === undefined) texts.set(piece, (text = piece.toString("utf8")));
  return text;
}

export class Utf8Builder {
  readonly #pieces: (string | Buffer)[] = [];
  /** An upper bound of the bytes: a UTF-16 code unit is at most 3 bytes of UTF-8 (a pair, 4 for 2). */
  #bound = 0;

  text(piece: string): this {
    // Adjacent strings are joined (a rope, no copy): fewer, longer writes into the buffer.
    const last = this.#pieces.length - 1;
    if (last >= 0 && typeof this.#pieces[last] === "string") this.#pieces[last] += piece;
    else this.#pieces.push(piece);
    this.#bound += piece.length * 3;
    return this;
  }

  bytes(piece: Buffer): this {
    this.#pieces.push(piece);
    this.#bound += piece.length;
    return this;
  }

  toBuffer(): Buffer<ArrayBuffer> {
    if (scratch.length < this.#bound) scratch = Buffer.allocUnsafe(Math.max(this.#bound, 2 * scratch.length));
    let at = 0;
    for (const piece of this.#pieces) {
      if (typeof piece === "string") at += scratch.write(piece, at);
      else {
        // TypedArray#set: a plain copy, without Buffer#copy's argument handling.
        scratch.set(piece, at);
        at += piece.length;
      }
    }
    // Copied out at its exact size: an answer under 4 KB then comes from node's buffer pool, where a
    // buffer of the bound (up to three times the text) would often be a fresh allocation of its own.
    const out = Buffer.allocUnsafe(at);
    out.set(scratch.subarray(0, at));
    return out;
  }

  /**
   * The answer's body: text when it is small ({@link TEXT_ANSWER_BOUND}), bytes otherwise. Either
   * puts the same bytes on the wire (node encodes a string body as UTF-8).
   */
  toAnswer(): string | Buffer<ArrayBuffer> {
    if (this.#bound > TEXT_ANSWER_BOUND) return this.toBuffer();
    let text = "";
    for (const piece of this.#pieces) text += typeof piece === "string" ? piece : textOf(piece);
    return text;
  }

  toString(): string {
    return this.toBuffer().toString("utf8");
  }
}
