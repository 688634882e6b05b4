import { randomBytes, randomFillSync } from "node:crypto";

/** Type prefixes of application-generated ids (DESIGN.md "Conventions"). */
export type IdPrefix = "usr" | "key" | "ses" | "whk" | "dlv" | "evt" | "att" | "inq" | "chl" | "req" | "lsn";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

function base32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += CROCKFORD[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += CROCKFORD[(buffer << (5 - bits)) & 31];
  return out;
}

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
  const bytes = new Uint8Array(16);
  let ms = at;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  copyRandom(bytes, 6, 10);
  return `${prefix}_${base32(bytes)}`;
}

/** A random token of `byteLength` bytes in base64url, for secrets that are shown once. */
export function randomToken(byteLength = 32): string {
  return randomBytes(byteLength).toString("base64url");
}
