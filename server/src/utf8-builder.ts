/**
 * Text assembled from pieces into one UTF-8 buffer, some pieces already encoded (answer fragments
 * made once per dataset version), the rest strings made per request.
 *
 * Why not a joined string: a string answer is a rope of many pieces; the response flattens it (into a
 * two-byte string as soon as one piece holds a character above U+00FF, such as a Chinese location),
 * measures its UTF-8 length and encodes it again when writing. Fragments kept as bytes are copied
 * instead, and only the request's own strings are encoded, once, straight into the buffer
 * (docs/performance.md "Answers as bytes").
 * @example
 * const out = new Utf8Builder();
 * out.text('{"items":[').bytes(fragment).text("]}");
 * out.toBuffer(); // the same bytes as Buffer.from('{"items":[' + fragment + "]}")
 */
/** Where answers are assembled, reused (toBuffer is synchronous); grows to the largest bound seen. */
let scratch = Buffer.allocUnsafe(64 * 1024);

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

  toString(): string {
    return this.toBuffer().toString("utf8");
  }
}
