import { randomBytes, randomFillSync } from "node:crypto";

/** Type prefixes of application-generated ids (DESIGN.md "Conventions"). */
export type IdPrefix = "usr" | "key" | "ses" | "whk" | "dlv" | "evt" | "att" | "inq" | "chl" | "req" | "lsn";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/*
 * Random bytes for ids come from a pool refilled 8 KiB at a time: one CSPRNG call serves ~800 ids
 * instead of one call per id (every request gets an id, so this is on the hot path). Each byte is
 * handed out once; the pool is per process and never shared with secrets (randomToken draws fresh).
 */
const POOL_SIZE = 8192;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let poolOffset = POOL_SIZE;

function copyRandom(target: Uint8Array, at: number, length: number): void {
  if (poolOffset + length > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  pool.copy(target, at, poolOffset, poolOffset + length);
  poolOffset += length;
}

/**
 * A new opaque id: the type prefix, then 48 bits of milliseconds and 80 random bits in lower-case
 * Crockford base32, so ids created later sort later (a tie-breaker for cursors, never a clock).
 * @example
 * newId("usr") // "usr_01jd3k8y2m9q4c7h5n6p8r0t2v"
 */
export function newId(prefix: IdPrefix, at: number = Date.now()): string {
  let ms = at;
  for (let i = 5; i >= 0; i--) {
    idBytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  copyRandom(idBytes, 6, 10);
  // Written as bytes and read as one string: every request gets an id, and a string grown a
  // character at a time was a tenth of a small lookup's garbage (docs/performance.md "Lookup, seventh pass").
  let length = idText.write(prefix, 0, "latin1");
  idText[length++] = UNDERSCORE;
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < idBytes.length; i++) {
    buffer = (buffer << 8) | idBytes[i]!;
    bits += 8;
    while (bits >= 5) {
      idText[length++] = CROCKFORD_BYTES[(buffer >>> (bits - 5)) & 31]!;
      bits -= 5;
    }
  }
  if (bits > 0) idText[length++] = CROCKFORD_BYTES[(buffer << (5 - bits)) & 31]!;
  return idText.toString("latin1", 0, length);
}

/** The 16 bytes of an id being made, and its text (a prefix, "_", 26 characters), reused: newId is synchronous. */
const idBytes = new Uint8Array(16);
const idText = Buffer.alloc(64);
const CROCKFORD_BYTES = Buffer.from(CROCKFORD, "latin1");
const UNDERSCORE = 0x5f;

/** A random token of `byteLength` bytes in base64url, for secrets that are shown once. */
export function randomToken(byteLength = 32): string {
  return randomBytes(byteLength).toString("base64url");
}
